#!/usr/bin/env node
// `npm run soak`: the long checks, in order, with progress lines, within a time budget:
//   1. the load test at a larger size (bench/load.bench.mjs), with its final audit;
//   2. the heartbeat-scale simulation up to 20,000 Services (bench/heartbeat-scale.bench.mjs);
//   3. the fault tests with many rounds (jest test/faults, SOAK=1, FAULT_ROUNDS);
//   4. the fuzz tests with many runs (jest test/fuzz, FUZZ_RUNS; cases counted via FUZZ_REPORT);
//   5. memory under sustained work (bench/memory.bench.mjs): RSS of two sidecars at every tenth
//      of SOAK_MEM_OPS dispatched Operations and SOAK_MEM_CALLS proxied calls.
// Parts that need a remote store run on SPARQL_ENDPOINT (Virtuoso) when it is set and say
// "skipped (no SPARQL_ENDPOINT)" otherwise. Results: bench/results/soak-<timestamp>.json and
// soak-latest.md (printed). Exits 1 when an audit, a check or a test failed, or a part ran out
// of time. Runs against dist/: `npm run soak` builds first.
// Env: SOAK_MINUTES (default 40; each part gets a share of what is left: load 12%, heartbeat 22%,
// faults 16%, fuzz 12%, memory 38%; the memory part runs its counts whatever its share), SOAK_LOAD_OPS (5000), SOAK_LOAD_RECEIVERS (4), SOAK_LOAD_CALLERS (8),
// SOAK_HB_STEPS (100,1000,5000,10000,20000), SOAK_HB_SECONDS (30), SOAK_FAULT_ROUNDS (the fault
// tests' own SOAK default when unset), SOAK_FUZZ_RUNS (2000), SOAK_JEST_WORKERS (1),
// SOAK_MEM_OPS (100000), SOAK_MEM_CALLS (100000), SOAK_PARTS (load,heartbeat-scale,faults,fuzz,memory:
// a subset to run).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { run as runHeartbeatScale } from '../bench/heartbeat-scale.bench.mjs';
import { run as runLoad } from '../bench/load.bench.mjs';
import { run as runMemory } from '../bench/memory.bench.mjs';
import { writeResults } from '../bench/results.mjs';
import { envInt, ROOT } from '../bench/sidecar-support.mjs';
import { fuzzRows, jestRows, jestStores, runJest } from '../bench/soak-parts.mjs';

const START = performance.now();
const BUDGET_S = envInt('SOAK_MINUTES', 40) * 60;
const SHARES = { load: 0.12, 'heartbeat-scale': 0.22, faults: 0.16, fuzz: 0.12, memory: 0.38 };
const clock = () => {
  const s = Math.round((performance.now() - START) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};
const progress = (line) => console.error(`[soak ${clock()}] ${line}`);
const leftS = () => BUDGET_S - (performance.now() - START) / 1000;

/** The load test, its seconds per store sized to the part's budget (about a minute per store goes to start-up and audit). */
async function load(budgetS) {
  const stores = process.env.SPARQL_ENDPOINT ? 2 : 1;
  const seconds = Math.max(10, Math.floor(budgetS / stores) - 60);
  const ops = envInt('SOAK_LOAD_OPS', 5000);
  const result = await runLoad(
    { ops, seconds, receivers: envInt('SOAK_LOAD_RECEIVERS', 4), callers: envInt('SOAK_LOAD_CALLERS', 8), progress },
    { write: false },
  );
  const figures = result.sections[0].rows.map((r) =>
    r.ops_s === undefined
      ? `${r.store}: ${r.audit}`
      : `${r.store}: ${r.ops_s} ops/s, p99 ${r.p99_ms} ms, errors ${r.errors}, audit ${r.audit}`,
  );
  return {
    ok: result.ok,
    figures: figures.join('; '),
    sections: result.sections.map((s) => ({ ...s, title: `load: ${s.title}`, meta: result.meta })),
  };
}

async function heartbeatScale(budgetS) {
  const steps = (process.env.SOAK_HB_STEPS ?? '100,1000,5000,10000,20000').split(',').map(Number);
  const result = await runHeartbeatScale(
    { steps, seconds: envInt('SOAK_HB_SECONDS', 30), deadline: performance.now() + budgetS * 1000, progress },
    { write: false },
  );
  const byStore = new Map();
  for (const r of result.sections[0].rows) {
    const seen = byStore.get(r.store) ?? [];
    seen.push(r.verdict === 'sustained' ? `N=${r.services} sustained` : r.services ? `N=${r.services} ${r.verdict}` : r.verdict);
    byStore.set(r.store, seen);
  }
  const figures = [...byStore].map(([store, v]) => `${store}: ${v.join(', ')}`).join('; ');
  return {
    ok: result.ok,
    figures: result.ok ? figures : `${figures}; checks FAILED: ${result.problems.join('; ')}`,
    sections: [{ title: 'heartbeat-scale', meta: result.meta, rows: result.sections[0].rows }],
  };
}

async function jestPart(name, dir, env, budgetS, logDir) {
  if (!existsSync(join(ROOT, dir))) return { ok: true, status: `skipped (${dir} not present)`, figures: '', sections: [] };
  const workers = envInt('SOAK_JEST_WORKERS', 1);
  const ran = await runJest(name, dir, { env, budgetMs: budgetS * 1000, logDir, progress, workers });
  if (ran.timedOut)
    return { ok: false, status: `timed out after ${Math.round(ran.seconds)} s (log: ${ran.log})`, figures: '', sections: [] };
  if (!ran.report) return { ok: false, status: `jest exited ${ran.code} without a report (log: ${ran.log})`, figures: '', sections: [] };
  const rows = jestRows(ran.report, jestStores());
  const ok = ran.report.success;
  return { ok, rows, figures: `${ran.report.numPassedTests} passed, ${ran.report.numFailedTests} failed; ${jestStores()}`, log: ran.log };
}

async function faults(budgetS, logDir) {
  const env = { SOAK: '1', ...(process.env.SOAK_FAULT_ROUNDS && { FAULT_ROUNDS: process.env.SOAK_FAULT_ROUNDS }) };
  const part = await jestPart('faults', 'test/faults', env, budgetS, logDir);
  return {
    ...part,
    sections: part.rows ? [{ title: 'faults', meta: { rounds: env.FAULT_ROUNDS ?? "the tests' SOAK=1 default" }, rows: part.rows }] : [],
  };
}

async function fuzz(budgetS, logDir) {
  const report = join(logDir, 'fuzz-report.jsonl');
  const runs = envInt('SOAK_FUZZ_RUNS', 2000);
  const part = await jestPart('fuzz', 'test/fuzz', { FUZZ_RUNS: String(runs), FUZZ_REPORT: report }, budgetS, logDir);
  if (!part.rows) return part;
  const cases = fuzzRows(report);
  const figures = `${cases.total.cases.toLocaleString('en')} cases in ${cases.total.properties} properties; ${part.figures}`;
  return {
    ...part,
    figures,
    sections: [
      { title: 'fuzz: cases run', meta: { FUZZ_RUNS: runs }, rows: cases.rows },
      { title: 'fuzz: tests', rows: part.rows },
    ],
  };
}

/** RSS of two sidecars through SOAK_MEM_OPS Operations and SOAK_MEM_CALLS proxied calls. */
async function memory() {
  const result = await runMemory(
    { ops: envInt('SOAK_MEM_OPS', 100_000), calls: envInt('SOAK_MEM_CALLS', 100_000), progress: (line) => progress(`memory: ${line}`) },
    { write: false },
  );
  const flat = result.sections[0].rows.filter((r) => r.aim !== undefined);
  return {
    ok: result.ok,
    figures: flat.map((r) => `${r.name} ${r.value}%`).join('; '),
    sections: result.sections.map((s) => ({ ...s, meta: result.meta })),
  };
}

const PARTS = { load, 'heartbeat-scale': heartbeatScale, faults, fuzz, memory };

/** Runs the parts in order, each with its share of the time left. */
async function main() {
  const chosen = (process.env.SOAK_PARTS ?? Object.keys(PARTS).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of chosen) if (!PARTS[p]) throw new Error(`SOAK_PARTS names "${p}"; known: ${Object.keys(PARTS).join(', ')}`);
  const logDir = await mkdtemp(join(tmpdir(), 'soak-'));
  progress(
    `budget ${BUDGET_S / 60} min; parts: ${chosen.join(', ')}; stores: embedded${process.env.SPARQL_ENDPOINT ? ` + ${process.env.SPARQL_ENDPOINT}` : ' (no SPARQL_ENDPOINT: Virtuoso parts skipped)'}`,
  );
  const summary = [];
  const sections = [];
  for (const [i, name] of chosen.entries()) {
    const shareLeft = chosen.slice(i).reduce((t, p) => t + SHARES[p], 0);
    const budgetS = Math.max(30, Math.floor((leftS() * SHARES[name]) / shareLeft));
    progress(`part ${i + 1}/${chosen.length} ${name}: budget ${budgetS} s`);
    const started = performance.now();
    let part;
    try {
      part = await PARTS[name](budgetS, logDir);
    } catch (error) {
      part = { ok: false, status: `ERROR: ${error.message}`, figures: '', sections: [] };
    }
    const seconds = Math.round((performance.now() - started) / 1000);
    summary.push({ part: name, status: part.status ?? (part.ok ? 'passed' : 'FAILED'), seconds, figures: part.figures });
    sections.push(...part.sections);
    progress(`part ${i + 1}/${chosen.length} ${name}: ${summary.at(-1).status} in ${seconds} s`);
  }
  const ok = summary.every((s) => !/^(FAILED|ERROR|timed out|jest exited)/.test(s.status));
  const total = Math.round((performance.now() - START) / 1000);
  const meta = {
    budget: `${BUDGET_S / 60} min (SOAK_MINUTES)`,
    took: `${Math.floor(total / 60)} min ${total % 60} s`,
    store: process.env.SPARQL_ENDPOINT ?? 'no SPARQL_ENDPOINT: Virtuoso parts skipped',
    logs: ok ? 'removed (every part passed)' : logDir,
  };
  writeResults('soak', { meta, sections: [{ title: 'summary', rows: summary }, ...sections], ok });
  progress(`soak ${ok ? 'passed' : 'FAILED'} in ${meta.took}`);
  if (ok) await rm(logDir, { recursive: true, force: true });
  return ok;
}

process.exitCode = (await main()) ? 0 : 1;
