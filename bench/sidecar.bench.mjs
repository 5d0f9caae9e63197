// The sidecar daemon as deployed: `store serve` (embedded store over SPARQL on loopback), the
// example plant, a mock door bridge on a Unix socket, and two built sidecars (door1 runs the
// Operations, robot1's local API requests them). Rows: start-up time, end-to-end dispatch latency
// (to the receiver's record, and as a local-API client sees it with a long-poll), throughput with
// K requesters, proxy overhead against the direct device call, RSS idle and under load, and
// store requests per Operation (from the store's request log, and exactly, in process).
// Env: BENCH_N (default 200), BENCH_K (8), BENCH_SECONDS (5), BENCH_STARTS (5), BENCH_IDLE_S (15), BENCH_TIMEOUT_S
// (300); SPARQL_ENDPOINT adds the in-process row on that remote store (in a graph dropped after).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS } from '../dist/limits.js';
import { dispatchInProcess, openBenchStore, OPEN_REQUEST } from './sidecar-inprocess.mjs';
import { activityWatch, BRIDGE, Children, cpuOf, envInt, jsonClient, median, ROOT, rssMb, rssPeaks } from './sidecar-support.mjs';
import { report, round, row, timeEach } from './support.mjs';

const N = envInt('BENCH_N', 200);
const K = envInt('BENCH_K', 8);
// Proxy calls take ~3 ms a pair: enough of them, after a warm-up that lets V8 optimize the hot
// path, that the medians measure the running sidecar rather than its first minutes.
const PROXY_N = envInt('BENCH_PROXY_N', 2_000);
const PROXY_WARMUP = 300;
const SECONDS = envInt('BENCH_SECONDS', 5);
const STARTS = envInt('BENCH_STARTS', 5);
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_S', 300) * 1000;
const IDLE_AIM_MB = 80;
const PROXY_AIM_MS = 1;
const IDLE_SETTLE_S = envInt('BENCH_IDLE_S', 15);

/** NODE_OPTIONS as the systemd unit runs a sidecar (the one place the deployed flags are set). */
async function deployedNodeOptions() {
  const unit = await readFile(join(ROOT, 'config/systemd/semantic-sidecar@.service'), 'utf8');
  return /^Environment="?NODE_OPTIONS=([^"\n]*)"?$/m.exec(unit)?.[1]?.trim() ?? '';
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
const LOG_SETTLE_MS = 300;

/** Store requests seen in the log of `store serve --log-level debug`, by kind. */
function storeRequestLog() {
  const counts = { total: 0 };
  const onLine = (line) => {
    if (!line.includes('"sparql request"')) return;
    const { kind } = JSON.parse(line);
    counts.total += 1;
    counts[kind] = (counts[kind] ?? 0) + 1;
  };
  return { onLine, snapshot: () => ({ ...counts }) };
}

/** Store, plant, door bridge, `STARTS` door1 start-ups (all but the last stopped again), robot1. */
async function startPlant(kids, dir) {
  const log = storeRequestLog();
  const store = await kids.daemon('store', ['store', 'serve', '--memory', '--port', '0', '--provision', '--log-level', 'debug'], {
    onStderrLine: log.onLine,
  });
  const storeUrl = store.first.trim();
  await kids.command(['ontology', 'load', join(ROOT, 'ontology/examples/plant.ttl'), '--store', storeUrl]);
  const doorDevice = join(dir, 'door1-device.sock');
  const bridge = await kids.daemon('door1-bridge', ['--kind', 'door', '--socket', doorDevice, '--delay-ms', '0'], { script: BRIDGE });
  const env = { NODE_OPTIONS: await deployedNodeOptions() };
  const sidecar = async (name, config, device, extra = []) => {
    const localApi = join(dir, `${name}-local.sock`);
    const args = [
      'start',
      '--config',
      config,
      '--store',
      storeUrl,
      '--port',
      '0',
      '--device-socket',
      device,
      '--local-api-socket',
      localApi,
      ...extra,
    ];
    const started = await kids.daemon(name, args, { env });
    return { ...started, ...JSON.parse(started.first), localApi };
  };
  const startMs = [];
  let door;
  for (let i = 0; i < STARTS; i++) {
    door = await sidecar('door1', 'config/door1.yaml', doorDevice, ['--activity-feed']);
    startMs.push(door.startMs);
    if (i < STARTS - 1) await kids.stop(door.child);
  }
  // robot1 only requests; its device is never called, so no bridge listens on its socket.
  const robot = await sidecar('robot1', 'config/robot1.yaml', join(dir, 'robot1-device.sock'));
  startMs.push(robot.startMs);
  return { log, store, bridge, door, robot, doorDevice, startMs };
}

/**
 * Sequential dispatches: time to the receiver's `done` entry, the part of it the local API's
 * POST took (discovery, create, trigger), and per Operation the store requests logged and the
 * CPU time each of `pids` used.
 */
async function dispatchLatency(robotApi, watch, log, pids) {
  const post = [];
  const dispatch = async (_i, warmup) => {
    const t = performance.now();
    const { operation } = await robotApi.post('/operations', OPEN_REQUEST);
    if (!warmup) post.push(performance.now() - t);
    const outcome = await watch.terminal(operation);
    if (outcome.kind !== 'done') throw new Error(`${operation} failed: ${outcome.error}`);
  };
  for (let i = 0; i < Math.min(50, N); i++) await dispatch(i, true);
  // The store logs a request after answering it: let the lines of the last one arrive.
  await sleep(LOG_SETTLE_MS);
  const base = log.snapshot();
  const cpu = await cpuOf(pids);
  const ms = await timeEach(N, dispatch, 0);
  const cpuPerOp = (await cpuOf(pids)).since(cpu).map((used) => used / N);
  await sleep(LOG_SETTLE_MS);
  const end = log.snapshot();
  const perOp = Object.fromEntries(Object.keys(end).map((k) => [k, (end[k] - (base[k] ?? 0)) / N]));
  return { ms, post, perOp, cpuPerOp };
}

/** Sequential dispatches as a local-API client sees them: POST, then long-poll the status. */
async function clientLatency(robotApi) {
  return timeEach(N, async () => {
    const { operation } = await robotApi.post('/operations', OPEN_REQUEST);
    const snap = await robotApi.get(`/operations/status?iri=${encodeURIComponent(operation)}&waitMs=10000`);
    if (snap.status !== 'done') throw new Error(`${operation} ended ${snap.status}: ${snap.result}`);
  });
}

/**
 * Direct device calls and the same calls through the sidecar, interleaved in one run, and the
 * CPU time per call of the sidecar and, for scale, of the bridge (a bare node:http server).
 */
async function proxyOverhead({ door, bridge, doorDevice }) {
  const cpu = await cpuOf([door.pid, bridge.pid]);
  const direct = jsonClient({ socketPath: doorDevice });
  const proxied = jsonClient({ address: door.address });
  const ms = { direct: [], proxied: [] };
  const call = (which, client, path) => async (warmup) => {
    const t = performance.now();
    const answer = await client.post(path, {});
    if (!warmup) ms[which].push(performance.now() - t);
    if (answer?.door !== 'open') throw new Error(`${which} open answered ${JSON.stringify(answer)}`);
  };
  const pair = [call('direct', direct, '/open'), call('proxied', proxied, '/workflows/open/execute')];
  try {
    // Alternating which goes first keeps drift in the machine's load out of the difference.
    await timeEach(
      PROXY_N,
      async (i, warmup) => {
        for (const one of i % 2 ? pair : [...pair].reverse()) await one(warmup);
      },
      PROXY_WARMUP,
    );
  } finally {
    direct.close();
    proxied.close();
  }
  const [sidecarCpu, bridgeCpu] = (await cpuOf([door.pid, bridge.pid])).since(cpu);
  const calls = PROXY_N + PROXY_WARMUP;
  return {
    ...ms,
    paired: ms.proxied.map((p, i) => p - ms.direct[i]),
    cpuPerCall: sidecarCpu / calls,
    bridgeCpuPerCall: bridgeCpu / (2 * calls),
  };
}

/** K requesters, each dispatching and awaiting the outcome until SECONDS are up. */
async function throughput(robot, watch, pids) {
  const api = jsonClient({ socketPath: robot.localApi });
  const peaks = rssPeaks(pids);
  const ms = [];
  let failed = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const requester = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      const { operation } = await api.post('/operations', OPEN_REQUEST);
      const outcome = await watch.terminal(operation, 30_000);
      if (outcome.kind === 'done') ms.push(performance.now() - t);
      else failed += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: K }, requester));
  } finally {
    api.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { ms, failed, perSecond: ms.length / seconds, peaks: peaks.stop() };
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
    ...(process.env.SPARQL_ENDPOINT ? [['remote store (SPARQL_ENDPOINT)', process.env.SPARQL_ENDPOINT]] : []),
  ];
  const rows = [];
  for (const [label, url] of stores) {
    const store = await openBenchStore(url);
    try {
      const r = await dispatchInProcess(store, { n: N, graph: `urn:bench:sidecar:${process.pid}` });
      const note = `requester: ${callList(r.requester)}; receiver: ${callList(r.receiver)}`;
      rows.push(row(`dispatch in process, ${label}`, r.ms, { value: r.requests, unit: 'store requests/op', note }));
    } finally {
      await store.close();
    }
  }
  return rows;
}

/** The result table, in the order of the rows. */
function tableRows({ startMs, idle, e2e, client, proxy, load, inProcess }) {
  const idleAim = `< ${IDLE_AIM_MB} MB`;
  const cpu = e2e.cpuPerOp;
  return [
    row('start-up: spawn to registered line', startMs),
    row('dispatch: request to receiver record', e2e.ms),
    row('  of which local API POST /operations', e2e.post, { note: 'discover, create, trigger' }),
    row('dispatch: POST + long-poll status', client, { note: `status re-read every ${LIMITS.operationPollMs} ms` }),
    row(`dispatch under load, ${K} requesters`, load.ms, {
      value: load.perSecond,
      unit: 'ops/s',
      note: `${SECONDS} s, ${load.failed} failed`,
    }),
    figure('store requests per Operation', e2e.perOp.total, 'store requests/op', {
      n: N,
      note: `${round(e2e.perOp.query ?? 0)} queries, ${round(e2e.perOp.update ?? 0)} updates, both sidecars`,
    }),
    figure('CPU per Operation, all three processes', cpu[0] + cpu[1] + cpu[2], 'ms', {
      n: N,
      note: `door1 ${round(cpu[0])}, robot1 ${round(cpu[1])}, store ${round(cpu[2])}`,
    }),
    row('device call, direct (Unix socket)', proxy.direct),
    row('device call via sidecar proxy', proxy.proxied, { note: 'POST /workflows/open/execute' }),
    figure('proxy overhead (median difference)', median(proxy.proxied) - median(proxy.direct), 'ms', {
      n: PROXY_N,
      aim: `< ${PROXY_AIM_MS} ms`,
      note: `paired p50 ${round(median(proxy.paired))} ms`,
    }),
    figure('sidecar CPU per proxied call', proxy.cpuPerCall, 'ms', {
      n: PROXY_N,
      note: `bridge: ${round(proxy.bridgeCpuPerCall)} ms per call`,
    }),
    ...inProcess,
    figure('RSS door1 sidecar, idle', idle[0], 'MB', { aim: idleAim }),
    figure('RSS robot1 sidecar, idle', idle[1], 'MB', { aim: idleAim }),
    figure('RSS door1 sidecar, peak under load', load.peaks[0], 'MB'),
    figure('RSS robot1 sidecar, peak under load', load.peaks[1], 'MB'),
  ];
}

async function measure(kids, dir) {
  const plant = await startPlant(kids, dir);
  const { door, robot } = plant;
  // Idle means settled: V8 gives back start-up garbage only after some seconds without work.
  await sleep(IDLE_SETTLE_S * 1000);
  const idle = await Promise.all([settledRss(door.pid), settledRss(robot.pid)]);
  const robotApi = jsonClient({ socketPath: robot.localApi });
  const watch = await activityWatch(door.address);
  try {
    const e2e = await dispatchLatency(robotApi, watch, plant.log, [door.pid, robot.pid, plant.store.pid]);
    const client = await clientLatency(robotApi);
    const proxy = await proxyOverhead(plant);
    const load = await throughput(robot, watch, [door.pid, robot.pid]);
    const inProcess = await inProcessRows();
    return tableRows({ startMs: plant.startMs, idle, e2e, client, proxy, load, inProcess });
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
      store: '`store serve --memory` on loopback, debug log (counts the requests)',
      sidecars: `built CLI, config/door1.yaml (+ --activity-feed) and config/robot1.yaml, heartbeat 30 s, NODE_OPTIONS of the systemd unit; idle RSS is the median of 5 readings after ${IDLE_SETTLE_S} s without work`,
      device: 'mock door bridge on a Unix socket, --delay-ms 0',
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
