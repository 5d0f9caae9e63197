/**
 * Run counts, seeds and the run report of the fuzz suite. `FUZZ_RUNS` sets the number of cases of
 * an in-process property (default {@link DEFAULT_RUNS}); properties that cost more per case (HTTP,
 * a remote store) take a fraction of it. `FUZZ_SEED` replays a failing run (fast-check prints the
 * seed and path of every failure). With `FUZZ_REPORT` set, each file appends one JSON line per
 * property at its end: `{"file","property","runs","store"}`, for the soak script to add up.
 */
import { afterAll } from '@jest/globals';
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/** Cases per in-process property when FUZZ_RUNS is not set: keeps the suite well under a minute. */
export const DEFAULT_RUNS = 100;

function envInteger(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(text)}`);
  return n;
}

/**
 * Cases for a property of relative cost `weight` (1: in-process; 0.5: a request per case; 0.1: a
 * process per case); at least 1.
 */
export function fuzzRuns(weight = 1): number {
  const base = envInteger('FUZZ_RUNS') ?? DEFAULT_RUNS;
  return Math.max(1, Math.round(base * weight));
}

/** fast-check parameters for `runs` cases, with `FUZZ_SEED` when set. */
export function fuzzParameters(runs: number): fc.Parameters<unknown> {
  const seed = envInteger('FUZZ_SEED');
  return { numRuns: runs, includeErrorInReport: true, ...(seed !== undefined && { seed }) };
}

/** One line of the run report. */
export interface FuzzReportLine {
  file: string;
  property: string;
  runs: number;
  store: string;
}

/** The run counts of one test file (or of one store's half of it). */
export class FuzzReport {
  readonly #counts = new Map<string, number>();

  constructor(
    readonly file: string,
    readonly store: string,
  ) {}

  /** Adds `runs` cases to `property` (for hand-written case lists). */
  count(property: string, runs: number): void {
    this.#counts.set(property, (this.#counts.get(property) ?? 0) + runs);
  }

  /**
   * Checks `property` on `fuzzRuns(weight)` cases, counts the cases that ran and, on failure,
   * throws fast-check's report (counter-example, seed and path to replay it). `shrink: false`
   * reports the first failing case as it was.
   */
  async check<Ts>(
    name: string,
    property: fc.IAsyncProperty<Ts> | fc.IProperty<Ts>,
    weight = 1,
    options: { shrink?: boolean } = {},
  ): Promise<void> {
    // A property over a store stops at its first failure: once a case has changed the graph,
    // every shrunk case would fail too and hide the one that did it.
    const params = { ...fuzzParameters(fuzzRuns(weight)), ...(options.shrink === false && { endOnFailure: true }) };
    const details = await fc.check(property as fc.IAsyncProperty<Ts>, params as fc.Parameters<Ts>);
    this.count(name, details.numRuns);
    if (details.failed)
      throw new Error((await fc.asyncDefaultReportMessage(details)) ?? `property ${name} failed`, { cause: details.errorInstance });
  }

  /** The report lines so far. */
  lines(): FuzzReportLine[] {
    return [...this.#counts].map(([property, runs]) => ({ file: this.file, property, runs, store: this.store }));
  }

  /** Appends the lines to `path` (JSON lines). */
  write(path: string): void {
    const lines = this.lines();
    if (lines.length > 0) appendFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  }
}

/**
 * A report for `file` on `store` (`embedded`, `remote`, or `none` for store-free files), written
 * to `FUZZ_REPORT` after the enclosing describe block (or file).
 * @example const report = fuzzReport('test/fuzz/iri.test.ts', 'none');
 */
export function fuzzReport(file: string, store: string): FuzzReport {
  const report = new FuzzReport(file, store);
  afterAll(() => {
    const path = process.env.FUZZ_REPORT;
    if (path) report.write(path);
  });
  return report;
}
