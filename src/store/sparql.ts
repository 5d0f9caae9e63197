import { sparqlIri, sparqlTerm, type Term } from './terms.js';

/**
 * Small builders for SPARQL text. Every IRI and literal goes through the term serializer, so
 * composing text here never pastes input.
 */

/** A triple pattern or ground triple; strings are variables (`?x`) already checked by sparqlVar. */
export type Slot = Term | `?${string}`;

function slot(s: Slot): string {
  return typeof s === 'string' ? s : sparqlTerm(s);
}

/** `s p o .` */
export function triple(s: Slot, p: Slot, o: Slot): string {
  return `${slot(s)} ${slot(p)} ${slot(o)} .`;
}

/** `GRAPH <g> { ... }` */
export function inGraph(graph: string, body: string | string[]): string {
  return `GRAPH ${sparqlIri(graph)} { ${Array.isArray(body) ? body.join(' ') : body} }`;
}

/** `(t1, t2, ...)` for IN / NOT IN. */
export function termList(terms: readonly Term[]): string {
  return `(${terms.map(sparqlTerm).join(', ')})`;
}

/** `VALUES ?v { t1 t2 }` */
export function values(variable: `?${string}`, terms: readonly Term[]): string {
  return `VALUES ${variable} { ${terms.map(sparqlTerm).join(' ')} }`;
}
