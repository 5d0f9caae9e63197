// Memory under sustained work, as the systemd unit runs the sidecars (the sidecar bench's plant:
// `store serve --memory`, door1 with its bridge, robot1): BENCH_MEM_OPS Operations dispatched by
// BENCH_MEM_REQUESTERS requesters through robot1's local API (default 100,000 by 8), then
// BENCH_MEM_CALLS proxied calls to door1's `POST /workflows/open/execute` on 32 connections
// (default 100,000), the RSS of both sidecars read at every tenth of each, then once more after
// BENCH_IDLE_S seconds without work. RSS is sampled every 100 ms; each tenth keeps its highest
// reading and its lowest, over the tenth or over its last BENCH_MEM_FLOOR_WINDOW_S (3) seconds
// when the tenth was shorter. Under load RSS is a sawtooth (V8 grows the heap, then collects and
// gives pages back), so one reading per tenth lands anywhere on it: the aim is that the lowest
// reading of every tenth, what is still held after a collection, stays within 10% from the first
// tenth's end (10,000 of 100,000) to the last, as a leak would raise it with the count; the
// highest are reported beside it.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { OPEN_REQUEST } from './sidecar-inprocess.mjs';
import { startPlant } from './sidecar.bench.mjs';
import { activityWatch, Children, envInt, jsonClient, rssMb } from './sidecar-support.mjs';
import { writeResults } from './results.mjs';
import { round } from './support.mjs';

const SETTINGS = () => ({
  ops: envInt('BENCH_MEM_OPS', 100_000),
  requesters: envInt('BENCH_MEM_REQUESTERS', 8),
  calls: envInt('BENCH_MEM_CALLS', 100_000),
});
const CONNECTIONS = 32;
const MARKS = 10;
const IDLE_S = envInt('BENCH_IDLE_S', 15);
// Under 32 connections of proxying a tenth of 100,000 calls lasts about 1.2 s and door1 collects
// about every 2 s: a tenth's own lowest reading may come before any collection in it.
const FLOOR_WINDOW_S = envInt('BENCH_MEM_FLOOR_WINDOW_S', 3);
const FLAT_AIM = 0.1;

/** Runs `total` units of work on `workers` loops; `onMark(done)` after every tenth. */
async function inTenths(total, workers, unit, onMark) {
  const step = Math.ceil(total / MARKS);
  let started = 0;
  let done = 0;
  let next = step;
  const loop = async () => {
    while (started < total) {
      started += 1;
      await unit();
      done += 1;
      if (done >= next) {
        next += step;
        await onMark(done);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
}

/**
 * The lowest and highest RSS of each pid since the last `take()`, sampled every 100 ms, and when
 * the readings of the lowest began (`from`). The lowest is taken over the last `floorWindowMs`
 * when the tenth was shorter: a tenth that holds no collection has no reading of what a
 * collection leaves, only a point on the rising edge.
 */
function rssRange(pids, floorWindowMs) {
  let since = performance.now();
  let readings = pids.map(() => []);
  const timer = setInterval(() => {
    pids.forEach((pid, i) =>
      rssMb(pid).then(
        (mb) => readings[i].push([performance.now(), mb]),
        () => undefined,
      ),
    );
  }, 100);
  return {
    take: () => {
      const now = performance.now();
      const from = Math.min(since, now - floorWindowMs);
      const taken = readings.map((rs) => {
        const tenth = rs.filter(([t]) => t >= since).map(([, mb]) => mb);
        const floor = rs.filter(([t]) => t >= from).map(([, mb]) => mb);
        return { low: Math.min(...floor), high: Math.max(0, ...tenth) };
      });
      since = now;
      readings = readings.map((rs) => rs.filter(([t]) => t >= now - floorWindowMs));
      return { ranges: taken, from, at: now };
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Per sidecar: how far the highest of the tenths' lowest readings is above the lowest of them,
 * from the first mark on (the first tenth starts from an idle sidecar: it is the ramp, listed
 * in the note but not judged, and so is a mark whose lowest reaches back into it).
 */
function series(name, marks) {
  const judged = marks.slice(1).filter((m) => m.from >= marks[0].at);
  return ['door1', 'robot1'].map((key, i) => {
    const lows = judged.map((m) => m.ranges[i].low);
    // Fewer than two marks to compare (a run too short for the window) judges nothing: not met.
    const spread = lows.length < 2 ? NaN : (Math.max(...lows) - Math.min(...lows)) / Math.min(...lows);
    return {
      name: `${name}: RSS ${key}, lowest of each tenth (at least its last ${FLOOR_WINDOW_S} s) after the first`,
      n: marks.at(-1).done,
      value: round(spread * 100),
      unit: '% above the smallest',
      aim: `<= ${FLAT_AIM * 100}%`,
      met: spread <= FLAT_AIM,
      note: `${marks.map((m) => `${m.done}: ${round(m.ranges[i].low)}-${round(m.ranges[i].high)}`).join(', ')} MB (lowest-highest); judged from ${judged[0]?.done}`,
    };
  });
}

async function measure(kids, dir, { ops: OPS, requesters: REQUESTERS, calls: CALLS, progress }) {
  const plant = await startPlant(kids, dir, { starts: 1 });
  const { door, robot } = plant;
  const range = rssRange([door.pid, robot.pid], FLOOR_WINDOW_S * 1000);
  const sample = async (done) => {
    const { ranges, from, at } = range.take();
    // A tenth shorter than the sampling interval has no reading yet: one now.
    for (const [i, pid] of [door.pid, robot.pid].entries()) {
      if (ranges[i].high > 0) continue;
      const mb = await rssMb(pid);
      ranges[i] = { low: Math.min(ranges[i].low, mb), high: mb };
    }
    return { done, ranges, from, at };
  };
  const api = jsonClient({ socketPath: robot.localApi, connections: REQUESTERS });
  const watch = await activityWatch(door.address);
  const dispatched = [];
  let failed = 0;
  const t0 = performance.now();
  try {
    await inTenths(
      OPS,
      REQUESTERS,
      async () => {
        const { operation } = await api.post('/operations', OPEN_REQUEST);
        if ((await watch.terminal(operation, 30_000)).kind !== 'done') failed += 1;
      },
      async (done) => {
        dispatched.push(await sample(done));
        const [d, r] = dispatched.at(-1).ranges;
        progress(`${done} Operations, door1 ${round(d.low)}-${round(d.high)} MB, robot1 ${round(r.low)}-${round(r.high)} MB`);
      },
    );
  } finally {
    watch.close();
    api.close();
  }
  const opsSeconds = (performance.now() - t0) / 1000;
  const pool = new Pool(door.address, { connections: CONNECTIONS });
  const proxied = [];
  const t1 = performance.now();
  try {
    await inTenths(
      CALLS,
      CONNECTIONS,
      async () => {
        const res = await pool.request({
          method: 'POST',
          path: '/workflows/open/execute',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`POST /workflows/open/execute -> ${res.statusCode}`);
      },
      async (done) => {
        proxied.push(await sample(done));
        const [d] = proxied.at(-1).ranges;
        progress(`${done} proxied calls, door1 ${round(d.low)}-${round(d.high)} MB`);
      },
    );
  } finally {
    await pool.destroy();
  }
  const callSeconds = (performance.now() - t1) / 1000;
  range.stop();
  await sleep(IDLE_S * 1000);
  const idle = { door1: await rssMb(door.pid), robot1: await rssMb(robot.pid) };
  const rows = [
    ...series('dispatched Operations', dispatched),
    // robot1 only waits while door1 proxies: its row is door1's alone.
    series('proxied calls', proxied)[0],
    { name: 'RSS door1 / robot1, idle after both', n: 1, value: round(idle.door1), unit: 'MB', note: `robot1 ${round(idle.robot1)} MB` },
    {
      name: 'work done',
      n: OPS + CALLS,
      value: failed,
      unit: 'failed Operations',
      note: `${round(OPS / opsSeconds)} Operations/s, ${round(CALLS / callSeconds)} calls/s`,
    },
  ];
  return { rows, ok: failed === 0 && rows.every((r) => r.met !== false) };
}

/**
 * Runs the measurement; `overrides` (from the soak: ops, requesters, calls, progress) win over
 * the environment. Writes the results unless `write` is false; returns them with `ok`.
 */
export async function run(overrides = {}, { write = true } = {}) {
  const settings = { ...SETTINGS(), progress: (line) => console.error(`[memory] ${line}`), ...overrides };
  const dir = await mkdtemp(join(tmpdir(), 'bench-memory-'));
  const kids = new Children(dir);
  const load = loadavg()[0];
  try {
    const { rows, ok } = await measure(kids, dir, settings);
    const meta = {
      sidecars:
        'built CLI, config/door1.yaml (+ --activity-feed) and config/robot1.yaml, the environment of the systemd unit (NODE_OPTIONS, MALLOC_TRIM_THRESHOLD_, NODE_ENV)',
      work: `${settings.ops} Operations by ${settings.requesters} requesters, then ${settings.calls} proxied calls on ${CONNECTIONS} connections; RSS read at every tenth`,
      cpus: `${cpus().length}, shared: load average ${round(load)} at start, ${round(loadavg()[0])} at the end`,
    };
    if (write) writeResults('memory', { meta, rows, ok });
    await rm(dir, { recursive: true, force: true });
    return { ok, meta, sections: [{ title: 'memory', rows }] };
  } catch (error) {
    console.error(`memory benchmark failed: ${error.message}; logs in ${dir}`);
    throw error;
  } finally {
    await kids.stopAll();
  }
}
