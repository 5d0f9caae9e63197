// The dispatch lifecycle's cost with and without a waiting caller: a robot1 requester and a door1
// receiver in this process, the trigger over loopback HTTP, the store (`store serve --memory`) in
// a process of its own so that this process's CPU is the two sides' alone. "Not waiting" requests
// and learns nothing more (the run is paced by the receiver's activity feed); "waiting" requests
// with `wait` and waits with `waitForOperation`. Figures are medians over rounds.
//
// The reference is measured in the same run, arms interleaved and their order rotated each round:
// with BENCH_REFERENCE_DIST (another build's dist/, e.g. the unchanged code) that build; without
// it, this build asking for the outcome channel with nobody waiting, as every request did before.
// BENCH_DISPATCH_N Operations per arm and round (default 200), BENCH_DISPATCH_ROUNDS rounds (default 7).
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Children, ROOT } from './sidecar-support.mjs';
import { terminalWatch } from './sidecar-inprocess.mjs';
import { percentile, report, round } from './support.mjs';

const N = Number(process.env.BENCH_DISPATCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_DISPATCH_ROUNDS ?? 7);
const WARMUP = 50;
const REFERENCE_DIST = process.env.BENCH_REFERENCE_DIST;
const THIS_DIST = new URL('../dist/', import.meta.url);

/** A requester and a receiver of the build in `dist`, on the served store at `storeUrl`, in `graph`. */
async function startPair(dist, storeUrl, graph) {
  const load = (path) => import(new URL(path, dist).href);
  const [{ createLogger }, { SemanticMiddleware }, { OGM }, { openRemoteStore }, { plant, ONTOLOGY_GRAPHS }] = await Promise.all([
    load('lib/logger.js'),
    load('middleware/index.js'),
    load('ogm/index.js'),
    load('store/remote-store.js'),
    load('vocab/index.js'),
  ]);
  const store = openRemoteStore({ queryUrl: storeUrl });
  const ogm = () => new OGM({ store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  // No heartbeats beside the dispatch: the receiver's registration stays fresh for the whole run.
  const quiet = { heartbeatInterval: null, stalenessThreshold: 86_400 };
  const common = { serviceClass: plant.ControllerService, port: 0, ...quiet, logger: createLogger({ level: 'silent' }) };
  const door = new SemanticMiddleware({ ...common, resourceIri: plant.door1, ogm: ogm(), activityFeed: true });
  door.workflow({ capabilityClass: plant.DoorOpeningCapability, workflowClass: plant.OpenDoorWorkflow, name: 'open' }, () => 'opened');
  door.registerCallback(() => 'opened');
  const robot = new SemanticMiddleware({ ...common, resourceIri: plant.robot1, ogm: ogm() });
  await door.start();
  await robot.start();
  const request = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation };
  const terminal = terminalWatch(door.activity);
  return {
    request,
    robot,
    terminal,
    async stop() {
      await robot.stop();
      await door.stop();
      await store.close();
    },
  };
}

/**
 * The ways one Operation is dispatched: `ms` is what the caller waits for (the request's answer,
 * or the outcome); the receiver's `done` ends every Operation before the next.
 */
const DISPATCH = {
  'not waiting': async (pair) => {
    const t = performance.now();
    const op = await pair.robot.request(pair.request);
    const ms = performance.now() - t;
    await pair.terminal(op);
    return ms;
  },
  'not waiting, outcome channel asked for': async (pair) => {
    const t = performance.now();
    const op = await pair.robot.request({ ...pair.request, wait: true });
    const ms = performance.now() - t;
    await pair.terminal(op);
    return ms;
  },
  waiting: async (pair) => {
    const t = performance.now();
    const op = await pair.robot.request({ ...pair.request, wait: true });
    const outcome = await pair.robot.waitForOperation(op, { timeoutMs: 10_000 });
    const ms = performance.now() - t;
    if (outcome.status !== 'done') throw new Error(`${op} ended ${outcome.status}: ${outcome.result}`);
    await pair.terminal(op);
    return ms;
  },
};

/** One arm's round: `N` Operations; per-Operation CPU (ms, this process) and latency p50. */
async function round1(pair, dispatch) {
  const ms = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) ms.push(await dispatch(pair));
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / N, p50: percentile(ms, 50) };
}

const median = (values) => percentile(values, 50);

/** `store serve --memory` with the bundled ontology and the example plant; its URL. */
async function servedStore(kids) {
  const store = await kids.daemon('store', ['store', 'serve', '--memory', '--port', '0', '--provision']);
  const url = store.first.trim();
  await kids.command(['ontology', 'load', join(ROOT, 'ontology/examples/plant.ttl'), '--store', url]);
  return url;
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-dispatch-'));
  const kids = new Children(dir);
  try {
    await measure(await servedStore(kids));
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    console.error(`dispatch benchmark failed: ${error.message}; logs in ${dir}`);
    throw error;
  } finally {
    await kids.stopAll();
  }
}

async function measure(storeUrl) {
  const builds = { 'this build': THIS_DIST, ...(REFERENCE_DIST && { reference: pathToFileURL(`${resolve(REFERENCE_DIST)}/`) }) };
  // Each arm: a build and a way of dispatching; the reference of each row is measured beside it.
  const arms = REFERENCE_DIST
    ? [
        ['this build', 'not waiting'],
        ['reference', 'not waiting'],
        ['this build', 'waiting'],
        ['reference', 'waiting'],
      ]
    : [
        ['this build', 'not waiting'],
        ['this build', 'not waiting, outcome channel asked for'],
        ['this build', 'waiting'],
      ];
  const pairs = {};
  // A graph per build: each requester discovers its own build's receiver only.
  for (const [i, [label, dist]] of Object.entries(builds).entries())
    pairs[label] = await startPair(dist, storeUrl, `urn:bench:dispatch:${i}`);
  const loads = [round(loadavg()[0])];
  const results = new Map(arms.map((arm) => [arm.join(' / '), []]));
  try {
    for (const [label, mode] of arms) for (let i = 0; i < WARMUP; i++) await DISPATCH[mode](pairs[label]);
    for (let r = 0; r < ROUNDS; r++) {
      // Rotated each round, so drift in the machine's load falls on every arm alike.
      const order = arms.map((_, i) => arms[(i + r) % arms.length]);
      for (const [label, mode] of order) results.get(`${label} / ${mode}`).push(await round1(pairs[label], DISPATCH[mode]));
      loads.push(round(loadavg()[0]));
    }
  } finally {
    for (const pair of Object.values(pairs)) await pair.stop();
  }
  const figures = (key) => {
    const rounds = results.get(key);
    return { cpu: median(rounds.map((x) => x.cpuMs)), p50: median(rounds.map((x) => x.p50)) };
  };
  const change = (a, b) => `${a >= b ? '+' : ''}${round(((a - b) / b) * 100)}%`;
  // Rounds pair up (the same round ran both arms side by side): the median of their differences.
  const pairedDiff = (key, refKey, field) => median(results.get(key).map((x, r) => x[field] - results.get(refKey)[r][field]));
  const compare = (name, key, refKey, note) => {
    const it = figures(key);
    const ref = figures(refKey);
    return {
      name,
      n: N * ROUNDS,
      cpu_ms_per_op: round(it.cpu),
      ref_cpu_ms_per_op: round(ref.cpu),
      cpu_change: change(it.cpu, ref.cpu),
      cpu_paired_diff_ms: round(pairedDiff(key, refKey, 'cpuMs')),
      p50_ms: round(it.p50),
      ref_p50_ms: round(ref.p50),
      p50_change: change(it.p50, ref.p50),
      p50_paired_diff_ms: round(pairedDiff(key, refKey, 'p50')),
      note,
    };
  };
  const rows = REFERENCE_DIST
    ? [
        compare('not waiting', 'this build / not waiting', 'reference / not waiting', 'p50: until the request returns'),
        compare('waiting', 'this build / waiting', 'reference / waiting', 'p50: until waitForOperation has the outcome'),
      ]
    : [
        compare(
          'not waiting: plain trigger',
          'this build / not waiting',
          'this build / not waiting, outcome channel asked for',
          'reference: the channel asked for with nobody waiting, as before; p50: until the request returns',
        ),
        compare(
          'waiting: outcome channel',
          'this build / waiting',
          'this build / not waiting, outcome channel asked for',
          'reference: the same channel without the wait; p50: until waitForOperation has the outcome',
        ),
      ];
  const meta = {
    store: '`store serve --memory` in its own process; trigger over loopback HTTP',
    reference: REFERENCE_DIST ? `the build in ${REFERENCE_DIST}` : 'this build asking for the outcome channel with nobody waiting',
    rounds: `${ROUNDS} of ${N} Operations per arm, after ${WARMUP} warm-up each; arms interleaved, order rotated; medians over rounds`,
    cpu: 'process.cpuUsage of this process (requester and receiver, not the store) per Operation',
    cpus: `${cpus().length}, shared: load average ${loads[0]} at start, ${loads.at(-1)} at end (per round: ${loads.slice(1).join(', ')})`,
    rounds_raw: JSON.stringify(Object.fromEntries([...results].map(([k, v]) => [k, v.map((x) => [round(x.cpuMs), round(x.p50)])]))),
  };
  report('dispatch', meta, rows);
}
