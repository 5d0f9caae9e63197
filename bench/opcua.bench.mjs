// The OPC UA connectors against the simulated PLC of examples/opcua-plc (node-opcua's server, a
// child process on a free loopback port), each row beside its reference measured in the same run:
// - subscription-to-visible latency: a value written to the PLC's Label by a bare node-opcua
//   client until GET /parameters/unitLabel of a sidecar shows it, beside the same client's own
//   subscription (same sampling and publishing intervals) seeing it;
// - method-call overhead: POST /workflows/stopConveyor/execute on the sidecar beside the bare
//   client's own Call of the same method;
// - start-up and memory: a sidecar process whose resource declares the example's OPC UA
//   parameters and workflows beside one whose resource declares none (same ontology), each
//   started RUNS times: time to its first stdout line, time to /readyz 200, RSS once ready.
// Env: BENCH_N (default 200), BENCH_RUNS (3), BENCH_TIMEOUT_S (300).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Children, envInt, jsonClient, median, ROOT, rssMb } from './sidecar-support.mjs';
import { writeResults } from './results.mjs';
import { round, row } from './support.mjs';

const N = envInt('BENCH_N', 200);
const RUNS = envInt('BENCH_RUNS', 3);
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_S', 300) * 1000;
const EXAMPLE = join(ROOT, 'examples', 'opcua-plc');
const PLANT = 'https://example.org/plant#';
const LABEL = 'ns=1;s=TransferUnit.Label';
const SETTLE_MS = 1_000;

/** Polls `probe` every `everyMs` until it is true. */
async function until(probe, what, timeoutMs = 90_000, everyMs = 50) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** The example's ontology for `endpoint`, plus a resource of the same class that declares nothing. */
async function ontologyFile(dir, endpoint) {
  const text = (await readFile(join(EXAMPLE, 'transfer-unit.ttl'), 'utf8')).replaceAll('opc.tcp://127.0.0.1:4840/UA/PLC', endpoint);
  const file = join(dir, 'transfer-unit.ttl');
  await writeFile(file, `${text}\n<${PLANT}plainUnit> a <${PLANT}OpcuaTransferUnit> .\n`);
  return file;
}

/** Starts a sidecar of `resource` in a state directory of its own; start, ready and RSS figures. */
async function sidecar(children, dir, name, resource, ontology) {
  const { child, first, startMs } = await children.daemon(name, ['start', '--resource', resource, '--port', '0', '--store', 'memory'], {
    env: { SIDECAR_ONTOLOGY_FILES: ontology, STATE_DIRECTORY: join(dir, name) },
  });
  const { address } = JSON.parse(first);
  const started = performance.now();
  await until(async () => (await fetch(`${address}/readyz`)).status === 200, `${name} readiness`);
  const readyMs = startMs + (performance.now() - started);
  await sleep(SETTLE_MS);
  return { child, address, startMs, readyMs, rss: await rssMb(child.pid) };
}

/** A bare node-opcua client session on the PLC, with a subscription on the Label. */
async function directClient(endpoint) {
  const opcua = await import('node-opcua-client');
  const quiet = () => undefined;
  opcua.setWarningLogger(quiet);
  opcua.setErrorLogger(quiet);
  const client = opcua.OPCUAClient.create({ endpointMustExist: false, connectionStrategy: { maxRetry: 0 } });
  await client.connect(endpoint);
  const session = await client.createSession();
  const subscription = await session.createSubscription2({
    requestedPublishingInterval: 50,
    requestedMaxKeepAliveCount: 10,
    requestedLifetimeCount: 60,
    publishingEnabled: true,
  });
  const item = await subscription.monitor(
    { nodeId: LABEL, attributeId: opcua.AttributeIds.Value },
    { samplingInterval: 50, queueSize: 1, discardOldest: true },
    opcua.TimestampsToReturn.Neither,
  );
  let seen;
  item.on('changed', (value) => (seen = value.value.value));
  return {
    opcua,
    session,
    seen: () => seen,
    write: (value) =>
      session.write({ nodeId: LABEL, attributeId: opcua.AttributeIds.Value, value: { value: { dataType: opcua.DataType.String, value } } }),
    stop: () => session.call({ objectId: 'ns=1;s=TransferUnit', methodId: 'ns=1;s=TransferUnit.Stop', inputArguments: [] }),
    close: async () => {
      await session.close().catch(() => undefined);
      await client.disconnect();
    },
  };
}

async function latencyRows(direct, http) {
  const viaSidecar = [];
  const viaSubscription = [];
  for (let i = 0; i < N; i++) {
    const value = `bench ${i} ${Date.now()}`;
    const t0 = performance.now();
    await direct.write(value);
    const both = [
      until(() => Promise.resolve(direct.seen() === value), 'the direct notification', 10_000, 1).then(() =>
        viaSubscription.push(performance.now() - t0),
      ),
      until(async () => (await http.get('/parameters/unitLabel')).value === value, 'the sidecar value', 10_000, 2).then(() =>
        viaSidecar.push(performance.now() - t0),
      ),
    ];
    await Promise.all(both);
  }
  return [
    row('sidecar: Write on the PLC -> visible at GET /parameters/unitLabel', viaSidecar),
    row('bare node-opcua subscription: Write -> notification', viaSubscription),
  ];
}

async function methodRows(direct, http) {
  const viaSidecar = [];
  const bare = [];
  for (let i = 0; i < N; i++) {
    let t0 = performance.now();
    await http.post('/workflows/stopConveyor/execute', {});
    viaSidecar.push(performance.now() - t0);
    t0 = performance.now();
    const result = await direct.stop();
    if (result.statusCode.name !== 'Good') throw new Error(`Stop answered ${result.statusCode.name}`);
    bare.push(performance.now() - t0);
  }
  const overhead = median(viaSidecar) - median(bare);
  return [
    row('sidecar: POST /workflows/stopConveyor/execute', viaSidecar, { overhead_p50_ms: overhead }),
    row('bare node-opcua session: Call Stop', bare),
  ];
}

async function measure(children, dir) {
  const plc = await children.daemon('opcua-plc', ['--port', '0', '--pki-dir', join(dir, 'plc-pki')], { script: join(EXAMPLE, 'plc.mjs') });
  const { endpoint } = JSON.parse(plc.first);
  const ontology = await ontologyFile(dir, endpoint);
  const startup = { plain: [], opcua: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const [kind, resource] of [
      ['plain', `${PLANT}plainUnit`],
      ['opcua', `${PLANT}transferUnit2`],
    ]) {
      const s = await sidecar(children, dir, `${kind}-${run}`, resource, ontology);
      startup[kind].push(s);
      if (!(kind === 'opcua' && run === RUNS - 1)) await children.stop(s.child);
    }
  }
  const live = startup.opcua.at(-1);
  const http = jsonClient({ address: live.address });
  const direct = await directClient(endpoint);
  try {
    await until(async () => (await http.get('/parameters/unitLabel')).value !== null, 'a first label');
    const latency = await latencyRows(direct, http);
    const methods = await methodRows(direct, http);
    const figure = (kind, key) => round(median(startup[kind].map((s) => s[key])));
    const memoryRows = ['plain', 'opcua'].map((kind) => ({
      name:
        kind === 'plain'
          ? 'sidecar, no OPC UA declarations (node-opcua not loaded)'
          : 'sidecar, 4 OPC UA parameters and 2 method workflows',
      runs: RUNS,
      first_line_ms: figure(kind, 'startMs'),
      ready_ms: figure(kind, 'readyMs'),
      rss_mb: figure(kind, 'rss'),
    }));
    return [
      {
        title: 'subscription to visible',
        meta: { measured: 'sampling 50 ms and publishing 50 ms on both sides; the sidecar polled every 2 ms' },
        rows: latency,
      },
      {
        title: 'method call',
        meta: { measured: 'one keep-alive HTTP connection to the sidecar; the bare client on its own session' },
        rows: methods,
      },
      {
        title: 'start-up and memory',
        meta: { measured: `medians of ${RUNS} starts; RSS ${SETTLE_MS} ms after /readyz answered 200` },
        rows: memoryRows,
      },
    ];
  } finally {
    http.close();
    await direct.close();
  }
}

export async function run() {
  const load = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'bench-opcua-'));
  const children = new Children(dir);
  let timer;
  try {
    const timeout = new Promise(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error(`the OPC UA benchmark took longer than ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS)),
    );
    const sections = await Promise.race([measure(children, dir), timeout]);
    const meta = {
      server: 'examples/opcua-plc (node-opcua server) on loopback, security None',
      sidecars: 'child processes, memory store, default log level',
      N,
      cpus: `${cpus().length}, shared: load average ${round(load)} at start, ${round(loadavg()[0])} at end`,
    };
    writeResults('opcua', { meta, sections });
    return { ok: true };
  } finally {
    clearTimeout(timer);
    await children.stopAll(5_000);
    await rm(dir, { recursive: true, force: true });
  }
}
