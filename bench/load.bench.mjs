// Load test on loopback: many callers dispatching to several receivers through one shared store,
// then a final audit of the graph. On the embedded store served by `store serve --memory`
// (several processes share it) and, when SPARQL_ENDPOINT is set, on that store (Virtuoso) in a
// graph of the run's own, dropped after. Receivers are real door sidecars with mock PLC bridges;
// callers are in-process watchdog-mode middlewares calling `request` plus clients of a requester
// sidecar's local API, all concurrent (see load-callers.mjs). Bounded in count and time.
// Rows: Operations/s, latency request -> terminal (the receiver's done/failed entry), errors by
// kind, and the audit (load-audit.mjs). An audit failure marks the result failed, and
// `npm run bench` exits non-zero.
// Env: BENCH_LOAD_OPS (default 200), BENCH_LOAD_SECONDS (20), BENCH_LOAD_RECEIVERS (3),
// BENCH_LOAD_CALLERS (4 in-process), BENCH_LOAD_API_CALLERS (2), BENCH_LOAD_DELAY_MS (5, per
// device call), BENCH_LOAD_FAIL_PERCENT (0: device calls answered 500, so Operations fail with
// provenance), BENCH_LOAD_STORES (served,virtuoso), BENCH_TIMEOUT_S (300, per store).
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRemoteStore } from '../dist/store/remote-store.js';
import { sparql } from '../dist/store/sparql.js';
import { namedNode } from '../dist/store/terms.js';
import { audit } from './load-audit.mjs';
import { budget, drive, inProcessCaller, localApiCaller, Tally } from './load-callers.mjs';
import { prepareStore, startReceivers, startRequester } from './load-plant.mjs';
import { watchReceivers } from './load-watch.mjs';
import { writeResults } from './results.mjs';
import { Children, envInt } from './sidecar-support.mjs';
import { percentile, round } from './support.mjs';

const STORES = { served: 'embedded store, served by `store serve --memory`', virtuoso: 'Virtuoso (SPARQL_ENDPOINT)' };

/** The run's settings: `overrides` (from the soak) win over the environment and the defaults. */
export function loadSettings(overrides = {}) {
  const stores = (process.env.BENCH_LOAD_STORES ?? 'served,virtuoso')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of stores) if (!STORES[s]) throw new Error(`BENCH_LOAD_STORES names "${s}"; known: ${Object.keys(STORES).join(', ')}`);
  if (envInt('BENCH_LOAD_FAIL_PERCENT', 0, 0) > 100)
    throw new Error(`BENCH_LOAD_FAIL_PERCENT must be 0..100, got ${process.env.BENCH_LOAD_FAIL_PERCENT}`);
  return {
    ops: envInt('BENCH_LOAD_OPS', 200),
    seconds: envInt('BENCH_LOAD_SECONDS', 20),
    receivers: envInt('BENCH_LOAD_RECEIVERS', 3),
    callers: envInt('BENCH_LOAD_CALLERS', 4),
    apiCallers: envInt('BENCH_LOAD_API_CALLERS', 2, 0),
    delayMs: envInt('BENCH_LOAD_DELAY_MS', 5, 0),
    failPercent: envInt('BENCH_LOAD_FAIL_PERCENT', 0, 0),
    timeoutS: envInt('BENCH_TIMEOUT_S', 300),
    terminalTimeoutMs: 30_000,
    stores,
    progress: (line) => console.error(`[load] ${line}`),
    ...overrides,
  };
}

async function dropGraph(url, graph) {
  const client = openRemoteStore({ queryUrl: url });
  await client.update(sparql`DROP SILENT GRAPH ${namedNode(graph)}`.text).catch(() => undefined);
  await client.close();
}

/** Store, receivers and callers up; drive; audit. Returns everything the rows need. */
async function measure(kids, dir, kind, s) {
  const store = await prepareStore(kids, kind, process.env.SPARQL_ENDPOINT);
  let watch;
  try {
    const receivers = await startReceivers(kids, dir, store, { count: s.receivers, delayMs: s.delayMs, failRate: s.failPercent / 100 });
    const requester = s.apiCallers > 0 ? await startRequester(kids, dir, store) : undefined;
    watch = await watchReceivers(receivers);
    const callers = [
      ...Array.from({ length: s.callers }, (_, i) => inProcessCaller(store, `in-process ${i + 1}`)),
      ...Array.from({ length: s.apiCallers }, (_, i) => localApiCaller(requester.localApi, `local API ${i + 1}`)),
    ];
    const tally = new Tally();
    const bound = budget(s);
    const startedAt = Date.now();
    const progress = (granted) =>
      s.progress(`${kind}: ${granted} dispatched, ${tally.outcomes.size} terminal, errors: ${tally.errorSummary()}`);
    let seconds;
    try {
      seconds = await drive(callers, { receivers, bound, tally, watch, terminalTimeoutMs: s.terminalTimeoutMs, progress });
    } finally {
      await Promise.all(callers.map((c) => c.close()));
    }
    const checked = await audit(store, { tally, receivers, watch, startedAt });
    return { store, receivers, tally, seconds, checked };
  } finally {
    await watch?.close();
    await kids.stopAll();
    if (kind === 'virtuoso') await dropGraph(store.url, store.graph);
  }
}

/** One store's run, bounded by `timeoutS`; the temporary directory (logs) is kept when it fails. */
async function runOnStore(kind, s) {
  const dir = await mkdtemp(join(tmpdir(), `bench-load-${kind}-`));
  const kids = new Children(dir);
  let timer;
  try {
    const limit = (s.timeoutS + s.seconds) * 1000;
    const timeout = new Promise(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`the load run on ${kind} took longer than ${limit / 1000} s`)), limit)),
    );
    const measured = await Promise.race([measure(kids, dir, kind, s), timeout]);
    if (measured.checked.ok) await rm(dir, { recursive: true, force: true });
    else s.progress(`${kind}: audit failed; process logs kept in ${dir}`);
    return measured;
  } catch (error) {
    s.progress(`${kind}: failed: ${error.message}; process logs in ${dir}`);
    throw error;
  } finally {
    clearTimeout(timer);
    await kids.stopAll();
  }
}

/** The table row of one store's run. */
function storeRow(kind, { tally, seconds, checked, receivers }) {
  const ms = tally.latencies;
  const perReceiver = receivers.map((r) => `${r.name} ${r.bridge.executions}`).join(', ');
  return {
    store: STORES[kind],
    requested: tally.requested.length,
    done: checked.counts.done,
    failed: checked.counts.failed,
    ops_s: round(tally.outcomes.size / seconds),
    p50_ms: ms.length ? round(percentile(ms, 50)) : null,
    p99_ms: ms.length ? round(percentile(ms, 99)) : null,
    max_ms: ms.length ? round(Math.max(...ms)) : null,
    errors: tally.errorSummary(),
    audit: checked.ok
      ? `passed (${checked.counts.requested + checked.counts.dispatchFailed} Operations checked)`
      : `FAILED: ${checked.violations.length} violations`,
    device_executions: perReceiver,
    notes: checked.notes.join('; '),
  };
}

/**
 * Runs the load test on each store of `settings.stores` (see {@link loadSettings}) and returns
 * `{ ok, meta, sections }`; with `write` (default true) also writes and prints the results as
 * `load`. `ok` is false when an audit failed.
 */
export async function run(overrides = {}, { write = true } = {}) {
  const s = loadSettings(overrides);
  const rows = [];
  const violations = [];
  for (const kind of s.stores) {
    if (kind === 'virtuoso' && !process.env.SPARQL_ENDPOINT) {
      rows.push({ store: STORES.virtuoso, audit: 'skipped (no SPARQL_ENDPOINT)' });
      continue;
    }
    s.progress(`${kind}: starting ${s.receivers} receivers, ${s.callers} in-process and ${s.apiCallers} local-API callers`);
    const measured = await runOnStore(kind, s);
    rows.push(storeRow(kind, measured));
    violations.push(...measured.checked.violations.map((v) => ({ store: kind, ...v })));
  }
  const ok = violations.length === 0;
  const meta = {
    bound: `${s.ops} Operations or ${s.seconds} s per store, whichever comes first`,
    receivers: `${s.receivers} door sidecars (config/door1.yaml, own resource each), mock bridge --delay-ms ${s.delayMs} --fail-rate ${s.failPercent / 100}`,
    callers: `${s.callers} in-process watchdog-mode middlewares + ${s.apiCallers} local-API clients of a robot1 sidecar, round-robin pinned to the receivers`,
    latency: "request to the receiver's done/failed activity entry",
    cpus: `${cpus().length}, shared: load average ${round(loadavg()[0])} at the end`,
  };
  const sections = [{ title: 'load', rows }];
  if (!ok) sections.push({ title: 'audit violations (first 50)', rows: violations.slice(0, 50) });
  if (write) writeResults('load', { meta, sections, ok });
  return { ok, meta, sections, violations };
}
