import type { QueryForm } from './sparql-server-parse.js';
import { ProtocolError } from './sparql-server-request.js';

/**
 * Content negotiation of the SPARQL server: the answer formats of each query form, and the one
 * an `Accept` header asks for (RFC 9110 section 12.5.1: the highest quality value wins, the
 * server's order breaks ties, `q=0` refuses).
 */

/** One answer format: the media type sent, the names it is asked for by, and what the store writes. */
export interface AnswerFormat {
  /** The `content-type` of the answer. */
  contentType: string;
  /** Media types that ask for it, the canonical one first. */
  mediaTypes: readonly string[];
  /** The format name the store serializes to (a media type Oxigraph knows). */
  storeFormat: string;
}

const format = (mediaTypes: readonly string[], charset = false): AnswerFormat => ({
  contentType: charset ? `${mediaTypes[0]!}; charset=utf-8` : mediaTypes[0]!,
  mediaTypes,
  storeFormat: mediaTypes[0]!,
});

/** SPARQL 1.1 Query Results JSON, the default answer of SELECT and ASK. */
export const RESULTS_JSON = format(['application/sparql-results+json', 'application/json']);

/** Answers to SELECT and ASK, the default first. */
export const RESULT_FORMATS: readonly AnswerFormat[] = [
  RESULTS_JSON,
  format(['application/sparql-results+xml', 'application/xml']),
  format(['text/csv'], true),
  format(['text/tab-separated-values'], true),
];

/** Answers to CONSTRUCT and DESCRIBE (RDF graphs), the default first. */
export const GRAPH_FORMATS: readonly AnswerFormat[] = [
  format(['text/turtle', 'application/x-turtle'], true),
  format(['application/n-triples', 'text/plain'], true),
  format(['application/n-quads'], true),
  format(['application/ld+json']),
  format(['application/rdf+xml']),
];

/** The formats a query of `form` can be answered in, the default first. */
export function formatsOf(form: QueryForm): readonly AnswerFormat[] {
  return form === 'SELECT' || form === 'ASK' ? RESULT_FORMATS : GRAPH_FORMATS;
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').flatMap((part) => {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const [type, subtype] = range.split('/');
    if (!type || !subtype) return [];
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    return [{ type, subtype, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 }];
  });
}

// The quality the ranges give a media type: that of the most specific matching range.
function quality(ranges: readonly MediaRange[], mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const r of ranges) {
    const specificity = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' ? 0 : -1;
    if (specificity >= 0 && (best === undefined || specificity > best.specificity)) best = { specificity, q: r.q };
  }
  return best?.q ?? 0;
}

/**
 * The format of `formats` that `accept` prefers; the first (the default) when `accept` is absent
 * or empty.
 * @throws ProtocolError 406 naming the formats on offer, when `accept` accepts none of them.
 * @example negotiate('text/csv;q=0.5, application/sparql-results+xml', RESULT_FORMATS).contentType; // 'application/sparql-results+xml'
 */
export function negotiate(accept: string | undefined, formats: readonly AnswerFormat[]): AnswerFormat {
  if (accept === undefined || accept.trim() === '') return formats[0]!;
  const ranges = mediaRanges(accept);
  let chosen: { format: AnswerFormat; q: number } | undefined;
  for (const candidate of formats) {
    const q = Math.max(...candidate.mediaTypes.map((t) => quality(ranges, t)));
    if (q > 0 && (chosen === undefined || q > chosen.q)) chosen = { format: candidate, q };
  }
  if (chosen !== undefined) return chosen.format;
  throw new ProtocolError(
    406,
    `none of the accepted media types (${accept}) can be served for this query; available: ${formats.map((f) => f.mediaTypes[0]).join(', ')}`,
  );
}
