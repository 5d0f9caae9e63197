// The sidecar daemon as deployed: `store serve` (embedded store over SPARQL on loopback), the
// example plant, a mock door bridge on a Unix socket, and two built sidecars (door1 runs the
// Operations, robot1's local API requests them). Rows: start-up time, end-to-end dispatch latency
// (to the receiver's record, cold after the idle wait and warm, beside its physical floor measured
// on the same store: bench/dispatch-floor.mjs; and as a local-API client sees it with a long-poll), throughput with
// K requesters (door1 running one Operation at a time, then restarted with an opt-in concurrency), proxy overhead against the direct device call, a bare Node proxy and nginx (latency, requests/s), RSS idle and under load, and
// store requests per Operation (from the store's request log, and exactly, in process), and the
// library level in process on the embedded store, on its main thread and on one of its own
// (latency, and throughput with K requesters).
// Env: BENCH_N (default 200), BENCH_K (8), BENCH_SECONDS (5), BENCH_PROXY_N (2000), BENCH_PROXY_SECONDS (10),
// BENCH_PROXY_CONNECTIONS (32), BENCH_PROXY_ONLY (1: the proxy rows alone), BENCH_STARTS (5), BENCH_IDLE_S (15),
// BENCH_CONCURRENCY (4: door1's --operation-concurrency in the load row measured last),
// BENCH_DISPATCH_WARMUP_S (10: sequential dispatch before the measured one), BENCH_TIMEOUT_S
// (300); SPARQL_ENDPOINT adds the in-process row on that remote store (in a graph dropped after);
// BENCH_REFERENCE_DIST (another build's dist/, e.g. a worktree's) adds a door1 sidecar of that
// build on the same bridge, whose proxy throughput is measured in the same alternating rounds.
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { dispatchInProcess, dispatchInProcessLoad, openBenchStore, OPEN_REQUEST } from './sidecar-inprocess.mjs';
import { Pool } from 'undici';
import {
  activityWatch,
  BARE_PROXY,
  BRIDGE,
  Children,
  cpuOf,
  envInt,
  jsonClient,
  median,
  ROOT,
  rssMb,
  rssPeaks,
} from './sidecar-support.mjs';
import { dispatchFloor, libraryFloor } from './dispatch-floor.mjs';
import { startNginxProxy } from './nginx-proxy.mjs';
import { percentile, report, round, row, timeEach } from './support.mjs';

// Caller and receiver together, a waiting caller included (it is told the outcome, never polls).
const MAX_STORE_REQUESTS_PER_OP = 4;

const N = envInt('BENCH_N', 200);
const K = envInt('BENCH_K', 8);
// Proxy calls take ~3 ms a pair: enough of them, after a warm-up that lets V8 optimize the hot
// path, that the medians measure the running sidecar rather than its first minutes.
const PROXY_N = envInt('BENCH_PROXY_N', 2_000);
const PROXY_WARMUP = 300;
// Throughput through each proxy: PROXY_CONNECTIONS connections sending back to back, for
// PROXY_SECONDS in all, split into PROXY_ROUNDS rounds alternating sidecar and bare proxy.
const PROXY_CONNECTIONS = envInt('BENCH_PROXY_CONNECTIONS', 32);
const PROXY_SECONDS = envInt('BENCH_PROXY_SECONDS', 10);
const PROXY_ROUNDS = 2;
const PROXY_WARMUP_SECONDS = 2;
const PROXY_ROUND_WARMUP_SECONDS = 1;
// Unmeasured seconds of the waiting requesters first: their cost per Operation settles only after
// about 10 s of load (measured in 5 s rounds: the first two cost a third more).
const LOAD_WARMUP_SECONDS = envInt('BENCH_LOAD_WARMUP_SECONDS', 10);
// The proxy hop's aims, relative to the bare Node proxy measured in the same run.
const PROXY_OVERHEAD_AIM = 1.2;
const PROXY_RATE_AIM = 12_000;
// BENCH_PROXY_ONLY=1 starts the plant once and measures the proxy rows alone.
const PROXY_ONLY = process.env.BENCH_PROXY_ONLY === '1';
// The launcher beside the reference build's dist/ (its bundle reads the package and ontology there).
const REFERENCE_CLI = process.env.BENCH_REFERENCE_DIST
  ? join(process.env.BENCH_REFERENCE_DIST, '..', 'bin', 'semantic-sidecar.js')
  : undefined;
const SECONDS = envInt('BENCH_SECONDS', 5);
// Requesters of the pipelined row: each dispatches its next Operation once the last was acknowledged.
const PIPELINED = envInt('BENCH_PIPELINED_K', 4);
const STARTS = envInt('BENCH_STARTS', 5);
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_S', 300) * 1000;
const IDLE_AIM_MB = 80;
const IDLE_SETTLE_S = envInt('BENCH_IDLE_S', 15);
// Sequential dispatch before the measured one, so that it measures sidecars that have been running.
const DISPATCH_WARMUP_S = envInt('BENCH_DISPATCH_WARMUP_S', 10);
const DISPATCH_P50_AIM_MS = 4;
// Replays of the floors (process and library level) before the measured ones.
const FLOOR_WARMUP = 300;
const DISPATCH_RATE_AIM = 500;
// door1 restarted last with this opt-in concurrency (its instant device takes calls at once).
const CONCURRENCY = envInt('BENCH_CONCURRENCY', 4);
// The library level (requester, receiver and embedded store in one process): its aims, and the
// unmeasured seconds before its latency row and each of its load rows.
const LIBRARY_P50_AIM_MS = 1.5;
const LIBRARY_OPS_AIM = 1_500;
const LIBRARY_WARMUP_SECONDS = 3;

/**
 * The environment the systemd unit runs a sidecar with: its `Environment=` lines (NODE_OPTIONS,
 * MALLOC_TRIM_THRESHOLD_, NODE_ENV), the one place the deployed settings are.
 */
async function deployedEnv() {
  const unit = await readFile(join(ROOT, 'config/systemd/semantic-sidecar@.service'), 'utf8');
  return Object.fromEntries([...unit.matchAll(/^Environment="?(\w+)=([^"\n]*)"?$/gmu)].map(([, key, value]) => [key, value.trim()]));
}

/** Median RSS of `pid` over five readings a second apart. */
async function settledRss(pid) {
  const readings = [];
  for (let i = 0; i < 5; i++) {
    readings.push(await rssMb(pid));
    await sleep(1000);
  }
  return median(readings);
}

/**
 * Store requests served so far, by kind (query, update), read from the store's `/metrics`: the
 * store runs at its default log level, as deployed, rather than logging every request.
 */
function storeRequestCounter(storeUrl) {
  const metricsUrl = new URL('/metrics', storeUrl);
  const SERVED = /^semantic_middleware_store_requests_total\{kind="(query|update)",outcome="ok"\} (\d+)$/gmu;
  return {
    async snapshot() {
      const text = await (await fetch(metricsUrl)).text();
      const counts = { total: 0 };
      for (const [, kind, n] of text.matchAll(SERVED)) {
        counts[kind] = Number(n);
        counts.total += Number(n);
      }
      return counts;
    },
  };
}

/** Store, plant, door bridge, `starts` door1 start-ups (all but the last stopped again), robot1. */
export async function startPlant(kids, dir, { starts = PROXY_ONLY ? 1 : STARTS } = {}) {
  const store = await kids.daemon('store', ['store', 'serve', '--memory', '--port', '0', '--provision']);
  const storeUrl = store.first.trim();
  const log = storeRequestCounter(storeUrl);
  await kids.command(['ontology', 'load', join(ROOT, 'ontology/examples/plant.ttl'), '--store', storeUrl]);
  const doorDevice = join(dir, 'door1-device.sock');
  // Quiet: a log line per request costs the bridge about a fifth of its CPU per call, and the
  // bridge shares the 2 cores with the proxies it serves.
  const bridge = await kids.daemon('door1-bridge', ['--kind', 'door', '--socket', doorDevice, '--delay-ms', '0', '--quiet'], {
    script: BRIDGE,
  });
  const env = await deployedEnv();
  const sidecar = async (name, config, device, extra = [], script = undefined, store = storeUrl) => {
    const localApi = join(dir, `${name}-local.sock`);
    const args = [
      'start',
      '--config',
      config,
      '--store',
      store,
      '--port',
      '0',
      '--device-socket',
      device,
      '--local-api-socket',
      localApi,
      ...extra,
    ];
    const started = await kids.daemon(name, args, { env, ...(script && { script }) });
    return { ...started, ...JSON.parse(started.first), localApi };
  };
  const bare = await kids.daemon('bare-proxy', [doorDevice], { script: BARE_PROXY });
  // The same proxy with the unit's V8 flags: what those flags cost a proxy that does no more.
  const bareUnit = await kids.daemon('bare-proxy-unit-flags', [doorDevice], { script: BARE_PROXY, env });
  const nginx = await startNginxProxy(kids, dir, doorDevice);
  const startMs = [];
  const startDoor = (extra = []) => sidecar('door1', 'config/door1.yaml', doorDevice, ['--activity-feed', ...extra]);
  let door;
  for (let i = 0; i < starts; i++) {
    door = await startDoor();
    startMs.push(door.startMs);
    if (i < starts - 1) await kids.stop(door.child);
  }
  // robot1 only requests; its device is never called, so no bridge listens on its socket.
  const robot = await sidecar('robot1', 'config/robot1.yaml', join(dir, 'robot1-device.sock'));
  startMs.push(robot.startMs);
  if (REFERENCE_CLI)
    await access(REFERENCE_CLI).catch(() => {
      throw new Error(`BENCH_REFERENCE_DIST: no launcher at ${REFERENCE_CLI}; give the dist/ of a checkout that was built`);
    });
  const startReference = REFERENCE_CLI && (() => referenceDoor(sidecar, doorDevice));
  // door1 as the unit runs it by default: on an embedded store of its own, in a data directory.
  const startEmbeddedDoor = () => sidecar('door1-embedded', 'config/door1.yaml', doorDevice, [], undefined, join(dir, 'door1-store'));
  const address = (proxy) => ({ ...proxy, ...JSON.parse(proxy.first) });
  return {
    log,
    store,
    bridge,
    bare: address(bare),
    bareUnit: address(bareUnit),
    nginx,
    door,
    robot,
    doorDevice,
    startMs,
    startReference,
    startDoor,
    startEmbeddedDoor,
  };
}

/**
 * door1's configuration run by the reference build, as a resource of its own, on door1's bridge.
 * It realizes door1's Capability class: it runs only while the proxy's throughput is measured,
 * or robot1 would dispatch Operations to it.
 */
function referenceDoor(sidecar, doorDevice) {
  const resource = ['--resource', 'https://example.org/plant#door1-reference', '--activity-feed'];
  return sidecar('door1-reference', 'config/door1.yaml', doorDevice, resource, REFERENCE_CLI);
}

/**
 * Sequential dispatches: time to the receiver's `done` entry, the part of it the local API's
 * POST took (discovery, create, trigger), and per Operation the store requests logged and the
 * CPU time each of `pids` used.
 */
async function dispatchLatency(robotApi, watch, log, pids) {
  let post = [];
  const dispatch = async (_i, warmup) => {
    const t = performance.now();
    const { operation } = await robotApi.post('/operations', OPEN_REQUEST);
    if (!warmup) post.push(performance.now() - t);
    const outcome = await watch.terminal(operation);
    if (outcome.kind !== 'done') throw new Error(`${operation} failed: ${outcome.error}`);
  };
  // The first Operations after the idle wait, as a plant's first dispatch of the day meets them.
  const cold = await timeEach(N, dispatch, 5);
  // Then the running sidecars: V8 optimizes the hot path after some hundreds of Operations.
  const warmUntil = performance.now() + DISPATCH_WARMUP_S * 1000;
  for (let i = 0; performance.now() < warmUntil; i++) await dispatch(i, true);
  post = [];
  const base = await log.snapshot();
  const cpu = await cpuOf(pids);
  const ms = await timeEach(N, dispatch, 0);
  const cpuPerOp = (await cpuOf(pids)).since(cpu).map((used) => used / N);
  const end = await log.snapshot();
  const perOp = Object.fromEntries(Object.keys(end).map((k) => [k, (end[k] - (base[k] ?? 0)) / N]));
  return { ms, cold, post, perOp, cpuPerOp };
}

/**
 * Sequential dispatches as a local-API client sees them, in each of the two ways a caller waits
 * (see requestAndWait), one after the other.
 */
async function clientLatency(robotApi) {
  const timed = (longPoll) =>
    timeEach(N, async () => {
      const { operation, snap } = await requestAndWait(robotApi, 10_000, longPoll);
      if (snap.status !== 'done') throw new Error(`${operation} ended ${snap.status}: ${snap.result}`);
    });
  return { oneCall: await timed(false), longPoll: await timed(true) };
}

/**
 * Requests one Operation through robot1's local API and waits for it as a caller does: in the
 * request itself (`waitMs`), or, with `longPoll`, saying it will wait (`wait: true`) and then
 * long-polling the status. Either wait is answered by the outcome the receiver announces.
 */
async function requestAndWait(api, waitMs, longPoll = false) {
  if (!longPoll) {
    const snap = await api.post('/operations', { ...OPEN_REQUEST, waitMs });
    return { operation: snap.operation, snap };
  }
  const { operation } = await api.post('/operations', { ...OPEN_REQUEST, wait: true });
  return { operation, snap: await api.get(`/operations/status?iri=${encodeURIComponent(operation)}&waitMs=${waitMs}`) };
}

/**
 * Direct device calls and the same calls through the sidecar, the bare Node proxy and nginx
 * (when there is one), interleaved in one run (the order rotating, so drift in the machine's load
 * stays out of the differences), and the CPU time per call of each proxy and, for scale, the
 * bridge (a bare node:http server).
 */
async function proxyOverhead({ door, bridge, bare, nginx, doorDevice }, path, body) {
  const pids = [door.pid, bare.pid, bridge.pid, ...(nginx.pid ? [nginx.pid] : [])];
  const cpu = await cpuOf(pids);
  const clients = {
    direct: jsonClient({ socketPath: doorDevice }),
    proxied: jsonClient({ address: door.address }),
    bare: jsonClient({ address: bare.address }),
    ...(nginx.address && { nginx: jsonClient({ address: nginx.address }) }),
  };
  const ms = Object.fromEntries(Object.keys(clients).map((which) => [which, []]));
  const send = (client, p) => (body === undefined ? client.get(p) : client.post(p, body));
  const call = (which, p) => async (warmup) => {
    const t = performance.now();
    const answer = await send(clients[which], p);
    if (!warmup) ms[which].push(performance.now() - t);
    if (answer === undefined || (body !== undefined && answer?.door !== 'open'))
      throw new Error(`${which} ${p} answered ${JSON.stringify(answer)}`);
  };
  const calls = Object.keys(clients).map((which) => call(which, which === 'proxied' ? path.sidecar : path.device));
  try {
    await timeEach(
      PROXY_N,
      async (i, warmup) => {
        for (let k = 0; k < calls.length; k++) await calls[(i + k) % calls.length](warmup);
      },
      PROXY_WARMUP,
    );
  } finally {
    Object.values(clients).forEach((c) => c.close());
  }
  const [sidecarCpu, bareCpu, bridgeCpu, nginxCpu] = (await cpuOf(pids)).since(cpu);
  const n = PROXY_N + PROXY_WARMUP;
  const overhead = (which) => median(ms[which]) - median(ms.direct);
  return {
    ...ms,
    overhead: overhead('proxied'),
    bareOverhead: overhead('bare'),
    cpuPerCall: sidecarCpu / n,
    bareCpuPerCall: bareCpu / n,
    bridgeCpuPerCall: bridgeCpu / (calls.length * n),
    ...(nginx.pid && { nginxOverhead: overhead('nginx'), nginxCpuPerCall: nginxCpu / n }),
  };
}

/**
 * Requests/s through a proxy at `address` with PROXY_CONNECTIONS connections, each sending
 * POST `path` (the sidecar's workflow route, the bare proxy's device path) back to back for
 * `seconds`, and the proxy's CPU time per call.
 */
async function proxyThroughput(address, pid, path, seconds) {
  const pool = new Pool(address, { connections: PROXY_CONNECTIONS });
  const body = '{}';
  const cpu = await cpuOf([pid]);
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const loop = async () => {
    while (performance.now() < deadline) {
      const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`POST ${path} -> ${res.statusCode}`);
      done += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: PROXY_CONNECTIONS }, loop));
  } finally {
    await pool.destroy();
  }
  const [used] = (await cpuOf([pid])).since(cpu);
  return { perSecond: done / ((performance.now() - started) / 1000), cpuPerCall: used / done };
}

/**
 * Sidecar, bare proxy and nginx throughput (and the reference build's sidecar, when there is one),
 * alternating in PROXY_ROUNDS rounds, the order rotating; the medians of each.
 */
async function proxyLoad({ door, bare, bareUnit, nginx, reference }) {
  const targets = {
    sidecar: [door.address, door.pid, '/workflows/open/execute'],
    bare: [bare.address, bare.pid, '/open'],
    bareUnit: [bareUnit.address, bareUnit.pid, '/open'],
    ...(nginx.pid && { nginx: [nginx.address, nginx.pid, '/open'] }),
    ...(reference && { reference: [reference.address, reference.pid, '/workflows/open/execute'] }),
  };
  const names = Object.keys(targets);
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  const seconds = PROXY_SECONDS / PROXY_ROUNDS;
  // Warmed first, unmeasured, and again right before each of its rounds: after some seconds idle
  // (the other proxies' rounds) V8's memory reducer has shrunk a sidecar's heap, and its first
  // seconds of proxying cost about 20% more CPU per call (seen on door1 after the bench's idle RSS
  // readings, against a reference sidecar just started).
  for (const name of names) await proxyThroughput(...targets[name], PROXY_WARMUP_SECONDS);
  for (let r = 0; r < PROXY_ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const which = names[(r + k) % names.length];
      await proxyThroughput(...targets[which], PROXY_ROUND_WARMUP_SECONDS);
      runs[which].push(await proxyThroughput(...targets[which], seconds));
    }
  }
  const summary = (list) => ({ perSecond: median(list.map((x) => x.perSecond)), cpuPerCall: median(list.map((x) => x.cpuPerCall)) });
  return Object.fromEntries(names.map((name) => [name, summary(runs[name])]));
}

/**
 * K requesters, each dispatching and waiting for the outcome as a caller does (in the request, or
 * with `longPoll` through the status long-poll; see requestAndWait): `warmupSeconds` unmeasured,
 * then SECONDS measured. No activity-stream client is connected meanwhile: door1 would spend CPU
 * serving the bench.
 */
async function throughput(robot, pids, storePid, log, { longPoll = false, warmupSeconds = LOAD_WARMUP_SECONDS } = {}) {
  const api = jsonClient({ socketPath: robot.localApi, connections: K });
  let ms = [];
  let failed = 0;
  const requesters = async (seconds) => {
    const deadline = performance.now() + seconds * 1000;
    const requester = async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const { snap } = await requestAndWait(api, 30_000, longPoll);
        if (snap.status === 'done') ms.push(performance.now() - t);
        else failed += 1;
      }
    };
    await Promise.all(Array.from({ length: K }, requester));
  };
  let peaks, base, cpu, started;
  try {
    await requesters(warmupSeconds);
    // Only the measured seconds' latencies count; a failure counts whenever it came.
    ms = [];
    peaks = rssPeaks(pids);
    base = await log.snapshot();
    cpu = await cpuOf([...pids, storePid]);
    started = performance.now();
    await requesters(SECONDS);
  } finally {
    api.close();
  }
  const seconds = (performance.now() - started) / 1000;
  // The same three processes as the sequential row, busy: no idle wake-up between Operations.
  const cpuPerOp = (await cpuOf([...pids, storePid])).since(cpu).map((used) => used / Math.max(1, ms.length));
  const end = await log.snapshot();
  // Operations still in flight at the deadline were awaited above, so every request counted is theirs.
  const requestsPerOp = (end.total - (base.total ?? 0)) / Math.max(1, ms.length + failed);
  return { ms, failed, perSecond: ms.length / seconds, peaks: peaks.stop(), cpuPerOp, requestsPerOp };
}

/**
 * PIPELINED requesters that each dispatch back to back without waiting for the outcome (a
 * planner handing out a batch), for SECONDS; CPU per Operation once every one of them is done.
 */
async function pipelinedLoad(robot, watch, pids, storePid) {
  const api = jsonClient({ socketPath: robot.localApi, connections: PIPELINED });
  const cpu = await cpuOf([...pids, storePid]);
  const outcomes = [];
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const requester = async () => {
    while (performance.now() < deadline) {
      const { operation } = await api.post('/operations', OPEN_REQUEST);
      outcomes.push(watch.terminal(operation, 30_000));
    }
  };
  try {
    await Promise.all(Array.from({ length: PIPELINED }, requester));
  } finally {
    api.close();
  }
  const done = (await Promise.all(outcomes)).filter((o) => o.kind === 'done').length;
  const seconds = (performance.now() - started) / 1000;
  const cpuPerOp = (await cpuOf([...pids, storePid])).since(cpu).map((used) => used / Math.max(1, outcomes.length));
  return { n: outcomes.length, failed: outcomes.length - done, perSecond: outcomes.length / seconds, cpuPerOp };
}

/**
 * The waiting requesters' load again, door1 restarted with `--operation-concurrency`
 * CONCURRENCY: what the opt-in buys a receiver whose device takes several calls at once. Last,
 * so that no other row measures a sidecar just started.
 */
async function concurrentLoad(plant, kids) {
  await kids.stop(plant.door.child);
  const door = await plant.startDoor(['--operation-concurrency', String(CONCURRENCY)]);
  return throughput(plant.robot, [door.pid, plant.robot.pid], plant.store.pid, plant.log);
}

/** A row holding one figure rather than timings. */
const figure = (name, value, unit, extra = {}) => ({ name, n: extra.n ?? 1, value: round(value), unit, ...extra });
const callList = (c) =>
  Object.entries(c)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${round(v)} ${k}`)
    .join(', ');

/** Exact store calls per Operation with a requester and a receiver in this process. */
async function inProcessRows() {
  const stores = [
    ['embedded store', undefined],
    ['embedded store on its own thread (ownThread)', undefined, { ownThread: true }],
    ...(process.env.SPARQL_ENDPOINT ? [['remote store (SPARQL_ENDPOINT)', process.env.SPARQL_ENDPOINT]] : []),
  ];
  const rows = [];
  for (const [label, url, options = {}] of stores) {
    const store = await openBenchStore(url, options);
    try {
      const graph = `urn:bench:sidecar:${process.pid}`;
      const r = await dispatchInProcess(store, { n: N, graph, warmupSeconds: LIBRARY_WARMUP_SECONDS });
      const note = `requester: ${callList(r.requester)}; receiver: ${callList(r.receiver)}`;
      const p50 = percentile(r.ms, 50);
      rows.push(
        row(`dispatch in process, ${label}`, r.ms, {
          value: r.requests,
          unit: 'store requests/op',
          note,
          aim: `p50 < ${LIBRARY_P50_AIM_MS} ms, <= ${MAX_STORE_REQUESTS_PER_OP} store requests/op`,
          met: p50 < LIBRARY_P50_AIM_MS && r.requests <= MAX_STORE_REQUESTS_PER_OP,
        }),
      );
      if (url) continue;
      for (const concurrency of [1, CONCURRENCY]) {
        const load = await dispatchInProcessLoad(store, {
          k: K,
          seconds: SECONDS,
          warmupSeconds: LIBRARY_WARMUP_SECONDS,
          graph,
          concurrency,
        });
        rows.push(
          figure(`  the same under load, ${K} requesters, receiver callback concurrency ${concurrency}`, load.opsPerS, 'ops/s', {
            n: load.n,
            aim: `>= ${LIBRARY_OPS_AIM} ops/s`,
            met: load.opsPerS >= LIBRARY_OPS_AIM,
            note: `${SECONDS} s after ${LIBRARY_WARMUP_SECONDS} s unmeasured, each requester awaiting the outcome from the receiver's feed; ${round(load.cpuMsPerOp)} ms of the process's CPU per Operation (requesters, receiver, store; V8's helper threads included)`,
          }),
        );
      }
      // The floor is that of one event loop doing all of it.
      if (options.ownThread) continue;
      // After the load: a store and an engine as warm as the rows above had them.
      const floor = await libraryFloor(store, { n: N, warmup: FLOOR_WARMUP, graph: `${graph}:floor` });
      const floorMean = floor.ms.reduce((a, b) => a + b, 0) / floor.ms.length;
      rows.push(
        row('  floor: the 3 writes sent straight to the embedded store + 1 bare HTTP hop', floor.ms, {
          note: `reference, same run, one at a time: mean ${round(floorMean)} ms, ${Math.round(1000 / floorMean)} Operations/s on the one event loop the three sides share; ${round(floor.cpuMsPerOp)} ms of the process's CPU per Operation (V8's helper threads included)`,
        }),
      );
    } finally {
      await store.close();
    }
  }
  return rows;
}

/** The proxy hop's rows: latency of both routes, requests/s and CPU, each beside the bare Node proxy and nginx. */
function proxyRows({ execute, state, load }, nginx) {
  const ratio = (a, b) => `${round(a / b)}x the bare proxy`;
  const nginxNote = (text) => (nginx.skipped ? `nginx not measured (${nginx.skipped})` : text);
  const latency = (label, p) => [
    row(`${label}, direct (Unix socket)`, p.direct),
    row(`${label} via sidecar`, p.proxied),
    row(`${label} via bare Node proxy`, p.bare, { note: 'reference' }),
    ...(p.nginx ? [row(`${label} via nginx`, p.nginx, { note: `reference: ${nginx.version}, one process` })] : []),
    figure(`${label}: sidecar overhead (median difference)`, p.overhead, 'ms', {
      n: PROXY_N,
      aim: `< ${PROXY_OVERHEAD_AIM}x bare`,
      met: p.overhead < PROXY_OVERHEAD_AIM * p.bareOverhead,
      note: `bare proxy ${round(p.bareOverhead)} ms: ${ratio(p.overhead, p.bareOverhead)}; ${nginxNote(`nginx ${round(p.nginxOverhead)} ms`)}`,
    }),
    figure(`${label}: sidecar CPU per call`, p.cpuPerCall, 'ms', {
      n: PROXY_N,
      note: `bare proxy ${round(p.bareCpuPerCall)} ms, ${nginxNote(`nginx ${round(p.nginxCpuPerCall)} ms`)}, bridge ${round(p.bridgeCpuPerCall)} ms`,
    }),
  ];
  return [
    ...latency('POST /workflows/open/execute', execute),
    ...latency('GET /state/door', state),
    figure(`proxy throughput, ${PROXY_CONNECTIONS} connections`, load.sidecar.perSecond, 'req/s', {
      aim: `>= ${PROXY_RATE_AIM}`,
      met: load.sidecar.perSecond >= PROXY_RATE_AIM,
      note: `bare proxy ${Math.round(load.bare.perSecond)} req/s (${ratio(load.sidecar.perSecond, load.bare.perSecond)}), ${nginxNote(`nginx ${Math.round(load.nginx?.perSecond)} req/s`)}; CPU/call sidecar ${round(load.sidecar.cpuPerCall)} ms, bare ${round(load.bare.cpuPerCall)} ms${load.nginx ? `, nginx ${round(load.nginx.cpuPerCall)} ms` : ''}; ${PROXY_SECONDS} s each`,
    }),
    figure('  the bare proxy with the environment of the systemd unit', load.bareUnit.perSecond, 'req/s', {
      note: `reference: what the unit's V8 flags cost a proxy doing no more; CPU/call ${round(load.bareUnit.cpuPerCall)} ms (sidecar ${round(load.sidecar.cpuPerCall / load.bareUnit.cpuPerCall)}x)`,
    }),
    ...(load.reference
      ? [
          figure('proxy throughput, reference build (BENCH_REFERENCE_DIST)', load.reference.perSecond, 'req/s', {
            note: `this build ${Math.round(load.sidecar.perSecond)} req/s; CPU/call this build ${round(load.sidecar.cpuPerCall)} ms, reference ${round(load.reference.cpuPerCall)} ms (${round(load.sidecar.cpuPerCall / load.reference.cpuPerCall)}x)${PROXY_ONLY ? '' : '; the reference started just before these rounds, door1 ran the whole bench before them: compare builds with BENCH_PROXY_ONLY=1'}`,
          }),
        ]
      : []),
  ];
}

/** The result table, in the order of the issue's rows. */
function tableRows({ startMs, idle, idleAfter, e2e, floor, client, proxy, load, loadLongPoll, pipelined, concurrent, inProcess, nginx }) {
  const idleAim = `< ${IDLE_AIM_MB} MB`;
  const cpu = e2e.cpuPerOp;
  return [
    row('start-up: spawn to registered line', startMs),
    row('dispatch: request to receiver record', e2e.ms, {
      note: `after ${DISPATCH_WARMUP_S} s of dispatch; floor ${round(percentile(floor, 50))} ms (${round(percentile(e2e.ms, 50) / percentile(floor, 50))}x)`,
      aim: `p50 < ${DISPATCH_P50_AIM_MS} ms`,
      met: percentile(e2e.ms, 50) < DISPATCH_P50_AIM_MS,
    }),
    row('  floor: the 3 writes replayed by a bare client + 1 bare HTTP hop', floor, { note: 'reference, same store, same run' }),
    row(`  the first ${N} after ${IDLE_SETTLE_S} s idle`, e2e.cold, { note: 'cold: before V8 optimized the hot path' }),
    row('  of which local API POST /operations', e2e.post, { note: 'discovery (remembered for discoveryCacheMs), create, trigger' }),
    row('dispatch: POST with waitMs, answered with the outcome', client.oneCall, {
      note: 'one round trip, woken by the outcome the receiver announces',
    }),
    row('dispatch: POST with wait + long-poll status', client.longPoll, { note: 'two round trips, woken alike' }),
    row(`dispatch under load, ${K} requesters`, load.ms, {
      value: load.perSecond,
      unit: 'ops/s',
      note: `${SECONDS} s after ${LOAD_WARMUP_SECONDS} s unmeasured, each waiting in its request (waitMs); ${load.failed} failed (the unmeasured seconds included); ${round(load.requestsPerOp)} store requests/Operation; door1 runs one Operation at a time (the default)`,
      aim: `>= ${DISPATCH_RATE_AIM} ops/s`,
      met: load.perSecond >= DISPATCH_RATE_AIM,
    }),
    row(`  the same, waiting through the status long-poll`, loadLongPoll.ms, {
      value: loadLongPoll.perSecond,
      unit: 'ops/s',
      note: `${SECONDS} s right after the row above; ${loadLongPoll.failed} failed; ${round(loadLongPoll.requestsPerOp)} store requests/Operation`,
    }),
    row(`  the same waiting in the request, door1 with --operation-concurrency ${CONCURRENCY}`, concurrent.ms, {
      value: concurrent.perSecond,
      unit: 'ops/s',
      note: `door1 restarted after the other rows, then ${LOAD_WARMUP_SECONDS} s unmeasured; ${concurrent.failed} failed; ${round(concurrent.requestsPerOp)} store requests/Operation; CPU per Operation door1 ${round(concurrent.cpuPerOp[0])}, robot1 ${round(concurrent.cpuPerOp[1])}, store ${round(concurrent.cpuPerOp[2])} ms, caller and receiver ${round(concurrent.cpuPerOp[0] + concurrent.cpuPerOp[1])} (aim < 2)`,
      aim: `>= ${DISPATCH_RATE_AIM} ops/s`,
      met: concurrent.perSecond >= DISPATCH_RATE_AIM,
    }),
    figure('store requests per Operation', e2e.perOp.total, 'store requests/op', {
      n: N,
      note: `${round(e2e.perOp.query ?? 0)} queries, ${round(e2e.perOp.update ?? 0)} updates, both sidecars, the status long-poll included`,
      aim: `<= ${MAX_STORE_REQUESTS_PER_OP}`,
      met: e2e.perOp.total <= MAX_STORE_REQUESTS_PER_OP,
    }),
    figure('CPU per Operation, all three processes', cpu[0] + cpu[1] + cpu[2], 'ms', {
      n: N,
      note: `door1 ${round(cpu[0])}, robot1 ${round(cpu[1])}, store ${round(cpu[2])}; one Operation at a time, warm`,
    }),
    figure(`CPU per Operation under load, ${K} requesters`, load.cpuPerOp[0] + load.cpuPerOp[1] + load.cpuPerOp[2], 'ms', {
      n: load.ms.length,
      note: `door1 ${round(load.cpuPerOp[0])}, robot1 ${round(load.cpuPerOp[1])}, store ${round(load.cpuPerOp[2])}; caller and receiver ${round(load.cpuPerOp[0] + load.cpuPerOp[1])} (aim < 2); requesters waiting in their requests, no activity-stream client`,
    }),
    figure(
      `  the same, waiting through the status long-poll`,
      loadLongPoll.cpuPerOp[0] + loadLongPoll.cpuPerOp[1] + loadLongPoll.cpuPerOp[2],
      'ms',
      {
        n: loadLongPoll.ms.length,
        note: `door1 ${round(loadLongPoll.cpuPerOp[0])}, robot1 ${round(loadLongPoll.cpuPerOp[1])}, store ${round(loadLongPoll.cpuPerOp[2])}; caller and receiver ${round(loadLongPoll.cpuPerOp[0] + loadLongPoll.cpuPerOp[1])} (aim < 2)`,
      },
    ),
    figure(
      `CPU per Operation, ${PIPELINED} requesters not waiting for outcomes`,
      pipelined.cpuPerOp[0] + pipelined.cpuPerOp[1] + pipelined.cpuPerOp[2],
      'ms',
      {
        n: pipelined.n,
        note: `door1 ${round(pipelined.cpuPerOp[0])}, robot1 ${round(pipelined.cpuPerOp[1])}, store ${round(pipelined.cpuPerOp[2])}; caller and receiver ${round(pipelined.cpuPerOp[0] + pipelined.cpuPerOp[1])} (aim < 2); ${round(pipelined.perSecond)} Operations/s, ${pipelined.failed} failed; outcomes read from door1's activity stream, which it serves meanwhile`,
      },
    ),
    ...proxyRows(proxy, nginx),
    ...inProcess,
    figure('RSS door1 sidecar, idle', idle[0], 'MB', { aim: idleAim }),
    figure('RSS robot1 sidecar, idle', idle[1], 'MB', { aim: idleAim }),
    figure('RSS door1 sidecar on its own embedded store, idle', idle[2], 'MB', {
      aim: idleAim,
      note: 'the default deployment: no store given, a data directory of its own; its first start (the ontology provisioned)',
    }),
    figure('  the same after a restart on its data directory', idle[3], 'MB', {
      aim: idleAim,
      note: 'what the unit runs as after its first start; read after the latency rows, during which it idled',
    }),
    figure('RSS door1 sidecar, idle again after the load', idleAfter[0], 'MB', { note: `idle before: ${idle[0]} MB` }),
    figure('RSS robot1 sidecar, idle again after the load', idleAfter[1], 'MB', { note: `idle before: ${idle[1]} MB` }),
    figure('RSS door1 sidecar, peak under load', load.peaks[0], 'MB'),
    figure('RSS robot1 sidecar, peak under load', load.peaks[1], 'MB'),
  ];
}

/** The proxy hop, both routes, then its throughput. */
async function proxyHop(plant, kids) {
  const execute = await proxyOverhead(plant, { device: '/open', sidecar: '/workflows/open/execute' }, {});
  const state = await proxyOverhead(plant, { device: '/state/door', sidecar: '/state/door' }, undefined);
  const reference = plant.startReference && (await plant.startReference());
  try {
    return { execute, state, load: await proxyLoad({ ...plant, reference }) };
  } finally {
    if (reference) await kids.stop(reference.child);
  }
}

async function measure(kids, dir) {
  const plant = await startPlant(kids, dir);
  if (PROXY_ONLY) return proxyRows(await proxyHop(plant, kids), plant.nginx);
  const { door, robot } = plant;
  const embeddedDoor = await plant.startEmbeddedDoor();
  // Idle means settled: V8 gives back start-up garbage only after some seconds without work.
  await sleep(IDLE_SETTLE_S * 1000);
  const idle = await Promise.all([settledRss(door.pid), settledRss(robot.pid), settledRss(embeddedDoor.pid)]);
  await kids.stop(embeddedDoor.child);
  // Started again on the same data directory, as the unit is after its first start: it idles
  // (its own store, no traffic) while the latency rows run, and is read before the load rows.
  const restartedDoor = await plant.startEmbeddedDoor();
  const robotApi = jsonClient({ socketPath: robot.localApi });
  let watch = await activityWatch(door.address);
  try {
    const e2e = await dispatchLatency(robotApi, watch, plant.log, [door.pid, robot.pid, plant.store.pid]);
    const floor = await dispatchFloor(plant.store.first.trim(), { n: N, warmup: FLOOR_WARMUP });
    const client = await clientLatency(robotApi);
    // The dispatch loads before the proxy rounds: door1 is still collecting what 200,000 proxied
    // calls promoted for a while after them, which a dispatch row measured next would pay.
    watch.close();
    idle.push(await settledRss(restartedDoor.pid));
    await kids.stop(restartedDoor.child);
    const load = await throughput(robot, [door.pid, robot.pid], plant.store.pid, plant.log);
    const loadLongPoll = await throughput(robot, [door.pid, robot.pid], plant.store.pid, plant.log, { longPoll: true, warmupSeconds: 0 });
    watch = await activityWatch(door.address);
    const pipelined = await pipelinedLoad(robot, watch, [door.pid, robot.pid], plant.store.pid);
    // The feed streams an entry per proxied call to its watcher: the proxy rows measure proxying alone.
    watch.close();
    const proxy = await proxyHop(plant, kids);
    // What the work left resident: the young generation V8 grew under load, caches, buffers.
    await sleep(IDLE_SETTLE_S * 1000);
    const idleAfter = await Promise.all([settledRss(door.pid), settledRss(robot.pid)]);
    const inProcess = await inProcessRows();
    const concurrent = await concurrentLoad(plant, kids);
    return tableRows({
      startMs: plant.startMs,
      idle,
      idleAfter,
      e2e,
      floor,
      client,
      proxy,
      load,
      loadLongPoll,
      pipelined,
      concurrent,
      inProcess,
      nginx: plant.nginx,
    });
  } finally {
    watch.close();
    robotApi.close();
  }
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-sidecar-'));
  const kids = new Children(dir);
  const load = loadavg()[0];
  let timer;
  try {
    const timeout = new Promise(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error(`the sidecar benchmark took longer than ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS)),
    );
    const rows = await Promise.race([measure(kids, dir), timeout]);
    const meta = {
      store: '`store serve --memory` on loopback, default log level (its `/metrics` counts the requests)',
      sidecars: `built CLI, config/door1.yaml (+ --activity-feed) and config/robot1.yaml, heartbeat 30 s, the environment of the systemd unit (NODE_OPTIONS, MALLOC_TRIM_THRESHOLD_, NODE_ENV); idle RSS is the median of 5 readings after ${IDLE_SETTLE_S} s without work`,
      device: 'mock door bridge on a Unix socket, --delay-ms 0 --quiet (no log line per request)',
      N,
      K,
      cpus: `${cpus().length}, shared: load average ${round(load)} at start`,
    };
    report('sidecar', meta, rows);
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    console.error(`sidecar benchmark failed: ${error.message}; logs in ${dir}`);
    throw error;
  } finally {
    clearTimeout(timer);
    await kids.stopAll();
  }
}
