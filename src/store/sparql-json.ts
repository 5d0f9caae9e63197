import { StoreError } from '../errors.js';
import { w3, xsd } from '../vocab/terms.js';
import type { Bindings } from './triple-store.js';
import type { Term } from './terms.js';

/** One term of a SPARQL 1.1 Query Results JSON document. */
interface JsonTerm {
  type: 'uri' | 'literal' | 'typed-literal' | 'bnode' | 'triple';
  value: string;
  datatype?: string;
  'xml:lang'?: string;
}

interface JsonResults {
  boolean?: boolean;
  results?: { bindings: Record<string, JsonTerm>[] };
}

function toTerm(t: JsonTerm): Term {
  switch (t.type) {
    case 'uri':
      return { termType: 'NamedNode', value: t.value };
    case 'bnode':
      return { termType: 'BlankNode', value: t.value };
    case 'literal':
    case 'typed-literal': // Virtuoso's name for a literal with a datatype
      if (t['xml:lang']) return { termType: 'Literal', value: t.value, datatype: w3.langString, language: t['xml:lang'] };
      return { termType: 'Literal', value: t.value, datatype: t.datatype ?? xsd.string };
    default:
      throw new StoreError(`unsupported term type ${JSON.stringify(t.type)} in SPARQL JSON results`);
  }
}

/** Parses a SELECT result document into bindings. */
export function parseSelectJson(text: string, source: string): Bindings[] {
  const doc = parseJson(text, source);
  if (!doc.results || !Array.isArray(doc.results.bindings)) {
    throw new StoreError(`${source} answered a SELECT without "results.bindings"`, source);
  }
  return doc.results.bindings.map((row) => {
    const out: Bindings = {};
    for (const [name, term] of Object.entries(row)) out[name] = toTerm(term);
    return out;
  });
}

/**
 * Parses an ASK result document: the standard `{"boolean": ...}`, or Virtuoso's one-column
 * result set (`__ASK_RETVAL`, one row holding `1` when true, no rows when false), which it
 * sends for an ASK asked for as `application/sparql-results+json`.
 */
export function parseAskJson(text: string, source: string): boolean {
  const doc = parseJson(text, source);
  const rows = doc.results?.bindings;
  if (typeof doc.boolean !== 'boolean' && Array.isArray(rows)) {
    const value = rows[0]?.['__ASK_RETVAL']?.value;
    return value !== undefined && value !== '0' && value !== 'false';
  }
  if (typeof doc.boolean !== 'boolean') throw new StoreError(`${source} answered an ASK without a boolean`, source);
  return doc.boolean;
}

function parseJson(text: string, source: string): JsonResults {
  try {
    return JSON.parse(text) as JsonResults;
  } catch (cause) {
    throw new StoreError(`${source} answered with a body that is not SPARQL JSON results`, source, undefined, { cause });
  }
}
