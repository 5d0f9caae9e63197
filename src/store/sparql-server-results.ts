import { w3, xsd } from '../vocab/terms.js';
import type { Term } from './terms.js';
import type { Bindings } from './triple-store.js';

/** Media type of SPARQL 1.1 Query Results JSON. */
export const SPARQL_RESULTS_JSON = 'application/sparql-results+json';

interface JsonTerm {
  type: 'uri' | 'literal' | 'bnode';
  value: string;
  datatype?: string;
  'xml:lang'?: string;
}

function jsonTerm(term: Term): JsonTerm {
  switch (term.termType) {
    case 'NamedNode':
      return { type: 'uri', value: term.value };
    case 'BlankNode':
      return { type: 'bnode', value: term.value };
    default:
      if (term.language) return { type: 'literal', value: term.value, 'xml:lang': term.language };
      if (!term.datatype || term.datatype === xsd.string || term.datatype === w3.langString) return { type: 'literal', value: term.value };
      return { type: 'literal', value: term.value, datatype: term.datatype };
  }
}

/**
 * A SELECT result as SPARQL 1.1 Query Results JSON. The store seam returns bindings only, so
 * `head.vars` lists the variables bound in some row, in order of first appearance; a variable
 * never bound is missing from it (clients that read `results.bindings`, as this project's
 * remote store does, see no difference).
 */
export function selectResultsJson(rows: readonly Bindings[]): string {
  const vars = new Set<string>();
  const bindings = rows.map((row) => {
    const out: Record<string, JsonTerm> = {};
    for (const [name, term] of Object.entries(row)) {
      vars.add(name);
      out[name] = jsonTerm(term);
    }
    return out;
  });
  return JSON.stringify({ head: { vars: [...vars] }, results: { bindings } });
}

/** An ASK result as SPARQL 1.1 Query Results JSON. */
export function askResultJson(value: boolean): string {
  return JSON.stringify({ head: {}, boolean: value });
}

/**
 * The answer to an update whose WHERE was checked: a one-row result in the shape Virtuoso
 * answers every update with (`callret-0`, a line ending in `-- done` or `-- nothing to do`,
 * with a count before `triples`), so that this project's remote store (`updateReport` in
 * `virtuoso-report.ts`) learns from the same request whether a compare-and-set applied. The
 * count is 1 when the WHERE had a solution and 0 when it had none; like Virtuoso's, it is not
 * the number of triples changed.
 * @example updateReportJson(false) // ...'Update of the served store: WHERE matched nothing, 0 triples -- nothing to do'...
 */
export function updateReportJson(applied: boolean): string {
  return applied ? APPLIED_REPORT : NOT_APPLIED_REPORT;
}

const reportJson = (text: string): string =>
  JSON.stringify({ head: { vars: ['callret-0'] }, results: { bindings: [{ 'callret-0': { type: 'literal', value: text } }] } });
const APPLIED_REPORT = reportJson('Update of the served store: WHERE matched, 1 triples -- done');
const NOT_APPLIED_REPORT = reportJson('Update of the served store: WHERE matched nothing, 0 triples -- nothing to do');
