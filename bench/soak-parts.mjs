// The soak's jest parts: the fault tests (test/faults, SOAK=1 and FAULT_ROUNDS) and the fuzz
// tests (test/fuzz, FUZZ_RUNS, run counts collected through FUZZ_REPORT), each run as its own
// jest process under a time budget, with its results read from jest's JSON report.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './sidecar-support.mjs';

const JEST = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');

/** Which stores a jest part runs on, as the tests decide it from SPARQL_ENDPOINT. */
export function jestStores() {
  return process.env.SPARQL_ENDPOINT ? 'embedded + Virtuoso (SPARQL_ENDPOINT)' : 'embedded only; Virtuoso skipped (no SPARQL_ENDPOINT)';
}

const GROUP_GRACE_MS = 15_000;

/** Resolves once no process of group `pgid` is left, or after `ms`. */
async function groupGone(pgid, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Runs jest on `dir` with `env` added, for at most `budgetMs`; its output goes to `<logDir>/<name>.log`
 * and each PASS/FAIL line to `progress`. At the deadline the whole process group (jest, its
 * workers and what the tests started) gets SIGTERM, and what is left of it 15 s after jest
 * exited gets SIGKILL (so does anything left after a normal end). Resolves with `{ report,
 * timedOut, code, seconds, log }`, `report` being jest's JSON report (undefined if none).
 */
export async function runJest(name, dir, { env, budgetMs, logDir, progress, workers = 1 }) {
  const reportFile = join(logDir, `${name}-jest.json`);
  const log = join(logDir, `${name}.log`);
  const args = [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    JEST,
    dir,
    '--json',
    `--outputFile=${reportFile}`,
    `--maxWorkers=${workers}`,
  ];
  const started = Date.now();
  // Its own process group, so the deadline ends jest's workers and the processes tests spawned.
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(log);
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (/^(PASS|FAIL) /.test(line)) progress(`${name}: ${line.trim()}`);
  });
  let timedOut = false;
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    progress(`${name}: time budget of ${Math.round(budgetMs / 1000)} s spent, stopping jest`);
    signal('SIGTERM');
  }, budgetMs);
  const onExit = () => signal('SIGKILL');
  process.once('exit', onExit);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  // Processes the tests started may outlive jest (a sidecar draining): give them the product's
  // shutdown grace, then end what is left of the group.
  if (timedOut) await groupGone(child.pid, GROUP_GRACE_MS);
  signal('SIGKILL');
  process.off('exit', onExit);
  out.end();
  const report = existsSync(reportFile) && !timedOut ? JSON.parse(readFileSync(reportFile, 'utf8')) : undefined;
  return { report, timedOut, code, seconds: (Date.now() - started) / 1000, log };
}

/** Per test file: tests passed, failed, skipped and seconds; then a total row. */
export function jestRows(report, stores) {
  const rows = report.testResults.map((file) => {
    const by = (status) => file.assertionResults.filter((a) => a.status === status).length;
    return {
      file: relative(ROOT, file.name),
      stores,
      passed: by('passed'),
      failed: by('failed'),
      skipped: by('pending') + by('skipped') + by('todo'),
      seconds: Math.round((file.endTime - file.startTime) / 100) / 10,
      status:
        file.status === 'passed' ? 'passed' : `FAILED${file.message ? `: ${file.message.split('\n').find((l) => l.trim()) ?? ''}` : ''}`,
    };
  });
  rows.push({
    file: 'total',
    stores,
    passed: report.numPassedTests,
    failed: report.numFailedTests,
    skipped: report.numPendingTests + (report.numTodoTests ?? 0),
    status: report.success ? 'passed' : 'FAILED',
  });
  return rows;
}

/** Sums FUZZ_REPORT's JSON lines `{file, property, runs, store}` per file and store, then in total. */
export function fuzzRows(reportPath) {
  const lines = existsSync(reportPath)
    ? readFileSync(reportPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
  const groups = new Map();
  for (const l of lines) {
    const key = `${l.file}\u0000${l.store}`;
    const g = groups.get(key) ?? { file: l.file, store: l.store, properties: 0, cases: 0 };
    g.properties += 1;
    g.cases += l.runs;
    groups.set(key, g);
  }
  const rows = [...groups.values()].sort((a, b) => a.file.localeCompare(b.file) || a.store.localeCompare(b.store));
  const total = rows.reduce((t, r) => ({ properties: t.properties + r.properties, cases: t.cases + r.cases }), { properties: 0, cases: 0 });
  return { rows: [...rows, { file: 'total', store: [...new Set(rows.map((r) => r.store))].join(', '), ...total }], total };
}
