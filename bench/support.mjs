// Shared pieces of the benchmarks: timing, percentiles, result tables and files (written by
// results.mjs), and a plant of registered Services generated straight into the store.
import { performance } from 'node:perf_hooks';
import { writeResults } from './results.mjs';

export { RESULTS_DIR } from './results.mjs';

/** Runs `fn` `n` times (after `warmup` untimed runs) and returns per-call milliseconds. */
export async function timeEach(n, fn, warmup = Math.min(50, n)) {
  for (let i = 0; i < warmup; i++) await fn(i, true);
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i, false);
    ms.push(performance.now() - t);
  }
  return ms;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One row of a result table. */
export function row(name, ms, extra = {}) {
  for (const [k, v] of Object.entries(extra)) if (typeof v === 'number') extra[k] = round(v);
  const p = (q) => round(percentile(ms, q));
  return { name, n: ms.length, p50_ms: p(50), p95_ms: p(95), p99_ms: p(99), ...extra };
}

export function round(x) {
  return Math.round(x * 1000) / 1000;
}

/**
 * Writes rows as bench/results/<name>-<timestamp>.json and <name>-latest.md and prints the
 * table (see results.mjs); returns what `writeResults` returns.
 */
export function report(name, meta, rows, { ok = true } = {}) {
  return writeResults(name, { meta, rows, ok });
}

const SVC = 'https://w3id.org/circularfactory/Service#';
const CFC = 'https://w3id.org/circularfactory/Core#';
const PLANT = 'https://example.org/plant#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/**
 * N-Triples of `count` registered resources, each with one controller Service (address,
 * heartbeat), one Workflow realizing one Capability, as registration writes them, and
 * `queuedPerResource` queued Operations. `heartbeatAt(i)` and `queuedAt(i)` override the
 * heartbeat and the number of queued Operations of resource `i` (to interleave stale ones).
 */
export function plantNTriples(count, heartbeat = new Date(), { from = 0, queuedPerResource = 0, heartbeatAt, queuedAt } = {}) {
  const lines = [];
  const literal = (date) => `"${date.toISOString()}"^^<http://www.w3.org/2001/XMLSchema#dateTime>`;
  const fixed = literal(heartbeat);
  for (let i = from; i < from + count; i++) {
    const t = heartbeatAt ? literal(heartbeatAt(i)) : fixed;
    const queued = queuedAt ? queuedAt(i) : queuedPerResource;
    const r = `${PLANT}res${i}`;
    const s = `${r}_service_http_c__s__s_10_d_0_d_0_d_1_c_${8000 + (i % 1000)}`;
    const w = `${s}_workflow_open`;
    const c = `${r}_capability_open`;
    lines.push(
      `<${s}> <${RDF_TYPE}> <${PLANT}ControllerService> .`,
      `<${s}> <${SVC}isServiceOf> <${r}> .`,
      `<${s}> <${SVC}address> "http://10.0.0.1:${8000 + (i % 1000)}/${i}"^^<http://www.w3.org/2001/XMLSchema#anyURI> .`,
      `<${s}> <${SVC}lastHeartbeat> ${t} .`,
      `<${w}> <${RDF_TYPE}> <${PLANT}OpenDoorWorkflow> .`,
      `<${w}> <${SVC}isWorkflowOf> <${s}> .`,
      `<${w}> <${SVC}endpoint> "http://10.0.0.1/${i}/workflows/open/execute"^^<http://www.w3.org/2001/XMLSchema#anyURI> .`,
      `<${c}> <${RDF_TYPE}> <${PLANT}DoorOpeningCapability> .`,
      `<${c}> <${SVC}realizedByWorkflow> <${w}> .`,
      `<${r}> <${RDF_TYPE}> <${PLANT}Door> .`,
      `<${r}> <${CFC}hasCapability> <${c}> .`,
    );
    for (let k = 0; k < queued; k++) {
      const op = `${PLANT}OpenDoorOperation_op_${String(i).padStart(8, '0')}${String(k).padStart(4, '0')}`;
      lines.push(
        `<${op}> <${RDF_TYPE}> <${PLANT}OpenDoorOperation> .`,
        `<${op}> <${CFC}implementsCapability> <${c}> .`,
        `<${op}> <${SVC}operationStatus> "queued" .`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
