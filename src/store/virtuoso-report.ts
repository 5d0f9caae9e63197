import { LIMITS } from '../limits.js';

/**
 * Reads Virtuoso's answer to a SPARQL update. Virtuoso answers every update with a one-row
 * result whose `callret-0` text counts the template instantiations, one line per graph:
 * `Modify <g>, delete 1 (or less) and insert 1 (or less) triples -- done`,
 * `Insert into <g>, 0 triples -- nothing to do`, `Delete 2 (or less) quads -- done`.
 * The counts are solutions times template triples, not triples actually changed (see
 * `conditionalUpdate` in `remote-store.ts` for what that allows).
 */

// "Modify <g>, delete 1 (or less) and insert 1 (or less) triples -- done": each count is
// followed by "and insert", "triples" or "quads". Digits inside <...> cannot be, as IRIs hold no spaces.
const REPORT_LINE = / -- (?:done|nothing to do)$/u;
const REPORT_COUNT = /\b(\d+)(?: \(or less\))?(?= (?:and insert|triples|quads)\b)/gu;

/**
 * Whether an update applied, from Virtuoso's report text (see `conditionalUpdate`);
 * undefined when the answer is not such a report.
 *
 * @example
 * updateReport('{"results":{"bindings":[{"callret-0":{"value":"Insert into <urn:g>, 0 triples -- nothing to do"}}]}}'); // false
 */
export function updateReport(body: string): boolean | undefined {
  // A store answers with a few short report texts over and over (one per graph and outcome):
  // each is read once. Bounded in entries and in length: a store's answer is not trusted to be either.
  if (READ.has(body)) return READ.get(body);
  const report = readReport(body);
  if (body.length > LIMITS.updateReportCacheChars) return report;
  if (READ.size >= LIMITS.updateReportCacheEntries) READ.clear();
  READ.set(body, report);
  return report;
}

const READ = new Map<string, boolean | undefined>();

function readReport(body: string): boolean | undefined {
  let text: unknown;
  try {
    const doc = JSON.parse(body) as { results?: { bindings?: Record<string, { value?: unknown }>[] } };
    text = doc.results?.bindings?.[0]?.['callret-0']?.value;
  } catch {
    return undefined;
  }
  if (typeof text !== 'string') return undefined;
  const counts: number[] = [];
  for (const line of text.split('\n')) {
    if (!REPORT_LINE.test(line)) return undefined;
    for (const m of line.matchAll(REPORT_COUNT)) counts.push(Number(m[1]));
  }
  return counts.length === 0 ? undefined : counts.some((n) => n > 0);
}
