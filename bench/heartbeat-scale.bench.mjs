// Heartbeat-scale simulation: how many Services one store sustains at the 30 s heartbeat before
// the sweep or discovery degrades. Per store (the embedded store in process; the store at
// SPARQL_ENDPOINT, Virtuoso, in a graph of the run's own) N steps up: the Services missing are
// registered through the registration library (plus 1% more with an hour-old heartbeat, for
// the sweep to find), every heartbeat is refreshed once as fast as the store allows (the burst
// row: headroom over the required rate), then for a window of seconds, concurrently:
// heartbeats paced at N/30 per second (on the remote store from a worker thread, as sidecars
// send them from processes of their own), the watchdog's sweep every second, and discovery
// (unpinned and pinned, alternating). A step degrades when heartbeats fall behind the required
// rate (below 95%), the sweep's p50 exceeds its bound or discovery's p99 exceeds its bound, in
// the window and in a second one run to confirm it; larger steps on that store are then not run. Wrong answers (a live Service swept, a stale one
// left, discovery naming a stale or foreign Service, failed heartbeats) fail the run.
// Env: BENCH_HB_STEPS (default 100,1000), BENCH_HB_SECONDS (5), BENCH_HB_CONCURRENCY (16
// heartbeats in flight), BENCH_HB_REG_CONCURRENCY (8), BENCH_HB_SWEEP_BOUND_MS (1000),
// BENCH_HB_DISCOVERY_BOUND_MS (100), BENCH_HB_STORES (embedded,virtuoso), BENCH_HB_ORDER
// (phases: each Service beats on a phase of its own; registration: in the order registered,
// the worst case for Virtuoso's locks; see heartbeatOrder in heartbeat-sim.mjs).
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { OGM } from '../dist/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../dist/ontology/files.js';
import { provisionOntology } from '../dist/ontology/provision.js';
import { openEmbeddedStore } from '../dist/store/embedded-store.js';
import { openRemoteStore } from '../dist/store/remote-store.js';
import { sparql } from '../dist/store/sparql.js';
import { namedNode } from '../dist/store/terms.js';
import { DEFAULT_DATA_GRAPH, ONTOLOGY_GRAPHS } from '../dist/vocab/index.js';
import { discoveryLoop, heartbeat, heartbeatOrder, paceHeartbeats, pool, registerOne, STALENESS_S, sweepLoop } from './heartbeat-sim.mjs';
import { startHeartbeatWorker } from './heartbeat-worker.mjs';
import { writeResults } from './results.mjs';
import { envInt } from './sidecar-support.mjs';
import { percentile, round } from './support.mjs';

const HEARTBEAT_S = 30;
const STALE_INDEX = 100_000_000;
const STORES = { embedded: 'embedded (in process)', virtuoso: 'Virtuoso (SPARQL_ENDPOINT)' };

/** The run's settings: `overrides` (from the soak) win over the environment and the defaults. */
export function heartbeatSettings(overrides = {}) {
  const list = (name, fallback) =>
    (process.env[name] ?? fallback)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const steps = list('BENCH_HB_STEPS', '100,1000').map(Number);
  if (steps.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new Error(`BENCH_HB_STEPS must be whole numbers >= 1, got ${process.env.BENCH_HB_STEPS}`);
  const stores = list('BENCH_HB_STORES', 'embedded,virtuoso');
  for (const s of stores) if (!STORES[s]) throw new Error(`BENCH_HB_STORES names "${s}"; known: ${Object.keys(STORES).join(', ')}`);
  return {
    steps: steps.sort((a, b) => a - b),
    seconds: envInt('BENCH_HB_SECONDS', 5),
    concurrency: envInt('BENCH_HB_CONCURRENCY', 16),
    registerConcurrency: envInt('BENCH_HB_REG_CONCURRENCY', 8),
    order: process.env.BENCH_HB_ORDER ?? 'phases',
    sweepEveryMs: 1000,
    sweepBoundMs: envInt('BENCH_HB_SWEEP_BOUND_MS', 1000),
    discoveryBoundMs: envInt('BENCH_HB_DISCOVERY_BOUND_MS', 100),
    stalePercent: 1,
    stores,
    deadline: Infinity, // performance.now() time by which the last step should end
    progress: (line) => console.error(`[heartbeat-scale] ${line}`),
    ...overrides,
  };
}

async function openStore(kind) {
  const files = [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE];
  const store = kind === 'embedded' ? await openEmbeddedStore({}) : openRemoteStore({ queryUrl: process.env.SPARQL_ENDPOINT });
  await provisionOntology(store, { files });
  const graph = kind === 'embedded' ? DEFAULT_DATA_GRAPH : `urn:bench:heartbeat-scale:${randomUUID()}`;
  return { store, graph, ogm: new OGM({ store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes }) };
}

/** Registers the live Services missing up to `n` and 1% of them more, stale; returns the seconds it took. */
async function grow(ogm, plant, n, s) {
  const from = plant.live.length;
  const indices = Array.from({ length: n - from }, (_, k) => from + k);
  const staleCount = Math.ceil((indices.length * s.stalePercent) / 100);
  const hourAgo = new Date(Date.now() - 3_600_000);
  const stale = Array.from({ length: staleCount }, (_, k) => STALE_INDEX + plant.staleTotal + k);
  plant.staleTotal += staleCount;
  const seconds = await pool(indices, s.registerConcurrency, async (i) => void plant.live.push(await registerOne(ogm, i)));
  plant.stale = [];
  await pool(stale, s.registerConcurrency, async (i) => void plant.stale.push(await registerOne(ogm, i, hourAgo)));
  return { seconds, registered: indices.length };
}

/** What a step's windows got wrong: sweeps, discoveries and heartbeats. */
function wrongAnswers(plant, windows) {
  const staleSet = new Set(plant.stale.map((x) => x.serviceIri));
  const sweeps = windows.flatMap((w) => w.sweeps);
  const swept = new Set(sweeps.flatMap((x) => x.swept));
  const sum = (get) => windows.reduce((t, w) => t + get(w), 0);
  const problems = [];
  const live = [...swept].filter((iri) => !staleSet.has(iri)).length;
  if (live > 0) problems.push(`${live} live Services swept`);
  const left = [...staleSet].filter((iri) => !swept.has(iri)).length;
  if (left > 0 && sweeps.length > 0) problems.push(`${left} stale Services not swept`);
  if (sum((w) => w.found.wrong) > 0) problems.push(`${sum((w) => w.found.wrong)} discoveries named a wrong or stale Service`);
  if (sum((w) => w.found.failed) > 0) problems.push(`${sum((w) => w.found.failed)} discoveries failed`);
  if (sum((w) => w.hb.failed) > 0) problems.push(`${sum((w) => w.hb.failed)} heartbeats failed`);
  return problems;
}

const pct = (values, q) => (values.length ? round(percentile(values, q)) : null);

/** Why a step degraded (empty when it sustained the rate within the bounds). */
function degradation(hb, idleSweeps, found, s) {
  const reasons = [];
  // One heartbeat of slack: the last one due may fall due just as the window closes.
  if (hb.completed < 0.95 * hb.due - 1) reasons.push(`heartbeats behind (${hb.completed} of ${hb.due} due in the window)`);
  if ((pct(idleSweeps, 50) ?? 0) > s.sweepBoundMs) reasons.push(`sweep p50 over ${s.sweepBoundMs} ms`);
  if (Math.max(pct(found.unpinned, 99) ?? 0, pct(found.pinned, 99) ?? 0) > s.discoveryBoundMs)
    reasons.push(`discovery p99 over ${s.discoveryBoundMs} ms`);
  return reasons;
}

/**
 * One window: heartbeats at `rate`, sweeps and discoveries, concurrently for `s.seconds`. On a
 * remote store the heartbeats are paced in the plant's worker thread (`heartbeat-worker.mjs`),
 * and the window opens when they start.
 */
async function simulateWindow(ogm, plant, rate, s) {
  const options = { rate, seconds: s.seconds, concurrency: s.concurrency };
  const beats = plant.worker?.pace(plant.phases, options) ?? { started: undefined, done: paceHeartbeats(ogm, plant.phases, options) };
  await beats.started;
  const until = performance.now() + s.seconds * 1000;
  const [hb, sweeps, found] = await Promise.all([
    beats.done,
    sweepLoop(ogm, { everyMs: s.sweepEveryMs, until }),
    discoveryLoop(ogm, plant.live, plant.stale, { until }),
  ]);
  const idle = sweeps.filter((x) => x.swept.length === 0).map((x) => x.ms);
  return { hb, sweeps, found, idle, reasons: degradation(hb, idle, found, s) };
}

/**
 * One step: grow to `n`, burst, window. A degraded window is run once more (the machine is
 * shared: one stall of another process's making should not end the stepping), and the second
 * decides. Returns the step's row, whether it degraded, and its rates.
 */
async function step(ogm, plant, n, s) {
  const retried = plant.store.retriedRequests;
  const reg = await grow(ogm, plant, n, s);
  plant.phases = heartbeatOrder(plant.live, s.order);
  const burstS = await pool(plant.phases, s.concurrency, (x) => heartbeat(ogm, x));
  const required = n / HEARTBEAT_S;
  const once = await simulateWindow(ogm, plant, required, s);
  const last = once.reasons.length > 0 ? await simulateWindow(ogm, plant, required, s) : once;
  const { hb, found, idle, reasons } = last;
  const first = once.sweeps.find((x) => x.swept.length > 0);
  const problems = wrongAnswers(plant, last === once ? [once] : [once, last]);
  const again = last === once ? '' : ` (second window; the first: ${once.reasons.join('; ')})`;
  const rates = { register: reg.registered / reg.seconds, burst: plant.live.length / burstS };
  const row = {
    services: n,
    registered_per_s: round(rates.register),
    burst_hb_per_s: round(rates.burst),
    required_hb_per_s: round(required),
    achieved_hb_per_s: round(hb.completed / s.seconds),
    hb_done_of_due: `${hb.completed}/${hb.due}`,
    hb_p50_ms: pct(hb.ms, 50),
    hb_p99_ms: pct(hb.ms, 99),
    sweep_p50_ms: pct(idle, 50),
    stale: plant.stale.length,
    sweep_of_stale_ms: first ? round(first.ms) : null,
    discovery_p50_ms: pct(found.unpinned, 50),
    discovery_p99_ms: pct(found.unpinned, 99),
    pinned_p50_ms: pct(found.pinned, 50),
    pinned_p99_ms: pct(found.pinned, 99),
    // Remote stores only: requests the clients sent again after the store answered them as
    // deadlock victims (Virtuoso's endpoint retries its own victims first, unseen here).
    ...(typeof retried === 'number' && {
      deadlock_retries: plant.store.retriedRequests - retried + (once.hb.retried ?? 0) + (last === once ? 0 : (last.hb.retried ?? 0)),
    }),
    verdict: `${reasons.length ? `degraded: ${reasons.join('; ')}` : 'sustained'}${again}`,
    checks: problems.length ? `FAILED: ${problems.join('; ')}` : 'passed',
  };
  return { row, degraded: reasons.length > 0, problems, rates };
}

/** Seconds step `n` should take at the rates the last step measured (0 before the first step). */
function estimateS(n, plant, rates, s) {
  if (!rates) return 0;
  return ((n - plant.live.length) * (1 + s.stalePercent / 100)) / rates.register + n / rates.burst + s.seconds;
}

/**
 * Every step on one store; stops stepping at the first degraded step, and skips a step that
 * would not end by `deadline` (estimated from the last step's rates).
 */
async function runOnStore(kind, s, deadline) {
  const { store, graph, ogm } = await openStore(kind);
  const worker = kind === 'virtuoso' ? startHeartbeatWorker({ queryUrl: process.env.SPARQL_ENDPOINT, graph }) : undefined;
  const plant = { store, worker, live: [], stale: [], staleTotal: 0 };
  const rows = [];
  const problems = [];
  let stopped;
  let rates;
  try {
    for (const n of s.steps) {
      const estimate = estimateS(n, plant, rates, s);
      if (!stopped && performance.now() + estimate * 1000 > deadline)
        stopped = `not run: time budget (the step would take ~${Math.round(estimate)} s)`;
      if (stopped) {
        rows.push({ store: STORES[kind], services: n, verdict: stopped });
        continue;
      }
      s.progress(
        `${kind}: N=${n}: registering ${n - plant.live.length} Services, then ${s.seconds} s at ${round(n / HEARTBEAT_S)} heartbeats/s`,
      );
      const result = await step(ogm, plant, n, s);
      rates = result.rates;
      rows.push({ store: STORES[kind], ...result.row });
      problems.push(...result.problems.map((x) => `${kind} N=${n}: ${x}`));
      s.progress(`${kind}: N=${n}: ${result.row.verdict}, checks ${result.row.checks}`);
      if (result.degraded) stopped = `not run: degraded at N=${n}`;
    }
  } finally {
    await worker?.close();
    if (kind === 'virtuoso') await store.update(sparql`DROP SILENT GRAPH ${namedNode(graph)}`.text).catch(() => undefined);
    await store.close();
  }
  return { rows, problems };
}

/**
 * Runs the simulation on each store of `settings.stores` (see {@link heartbeatSettings}) and
 * returns `{ ok, meta, sections }`; with `write` (default true) also writes and prints the
 * results as `heartbeat-scale`. `ok` is false when a correctness check failed.
 */
export async function run(overrides = {}, { write = true } = {}) {
  const s = heartbeatSettings(overrides);
  const rows = [];
  const problems = [];
  const stores = s.stores.filter((kind) => kind !== 'virtuoso' || process.env.SPARQL_ENDPOINT);
  if (stores.length < s.stores.length) rows.push({ store: STORES.virtuoso, verdict: 'skipped (no SPARQL_ENDPOINT)' });
  for (const [j, kind] of stores.entries()) {
    // Each store gets an equal share of the time left.
    const deadline = performance.now() + (s.deadline - performance.now()) / (stores.length - j);
    const result = await runOnStore(kind, s, deadline);
    rows.push(...result.rows);
    problems.push(...result.problems);
  }
  const meta = {
    heartbeat: `every ${HEARTBEAT_S} s per Service (required rate N/${HEARTBEAT_S} per second), in ${s.order} order, at most ${s.concurrency} in flight (on a remote store from a worker thread with a client of its own); staleness ${STALENESS_S} s`,
    window: `${s.seconds} s per step, sweep every ${s.sweepEveryMs} ms, discovery back to back (10 ms pause), unpinned and pinned alternating`,
    degrades: `heartbeats completed in the window < 95% of those due (less one), idle sweep p50 > ${s.sweepBoundMs} ms, or discovery p99 > ${s.discoveryBoundMs} ms`,
    registration: `through the registration library (Service, Workflow + Capability, address + heartbeat), ${s.registerConcurrency} concurrent; 1% more Services registered stale`,
    cpus: `${cpus().length}, shared: load average ${round(loadavg()[0])} at the end`,
  };
  const ok = problems.length === 0;
  if (write) writeResults('heartbeat-scale', { meta, rows, ok });
  return { ok, meta, sections: [{ title: 'heartbeat-scale', rows }], problems };
}
