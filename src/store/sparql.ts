import { ValueError } from '../errors.js';
import { sparqlIri, sparqlTerm, sparqlVar, type NamedNodeTerm, type Term } from './terms.js';

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

/** A piece of SPARQL text built only from code constants and serialized terms. */
export class SparqlFragment {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** A SPARQL variable, its name checked when made. */
export class Variable {
  readonly text: `?${string}`;
  constructor(name: string) {
    this.text = sparqlVar(name) as `?${string}`;
  }
}

/** `variable('s')` is `?s`. */
export function variable(name: string): Variable {
  return new Variable(name);
}

export type SparqlValue = Term | SparqlFragment | Variable | number | readonly Term[];

/**
 * Tagged template for SPARQL text: the literal parts are the code's own text; every
 * interpolated value must be a term (serialized and escaped), a variable, another fragment, a
 * safe integer, or an array of terms (written as `(t1, t2)` for `IN`). A plain string is
 * refused, so input can never be pasted into a query.
 * @example sparql`SELECT ?s WHERE { ${inGraphFragment(g, sparql`?s ${namedNode(svc.address)} ?a`)} }`
 */
export function sparql(strings: TemplateStringsArray, ...values: SparqlValue[]): SparqlFragment {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '');
  });
  return new SparqlFragment(text);
}

function render(value: SparqlValue): string {
  if (value instanceof SparqlFragment || value instanceof Variable) return value.text;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new ValueError(`only safe integers may be written into SPARQL text, got ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return termList(value);
  if (typeof value === 'object' && value !== null && 'termType' in value) return sparqlTerm(value);
  throw new ValueError(`refusing to write a ${typeof value} into SPARQL text: wrap it as a term (namedNode or literal)`);
}

/** `GRAPH <g> { fragment }` as a fragment. */
export function graphFragment(graph: string, body: SparqlFragment): SparqlFragment {
  return new SparqlFragment(inGraph(graph, body.text));
}

/** Joins fragments (with spaces, or `||` / `&&` between expressions); the result holds only the fragments' own (safe) text. */
export function concat(parts: readonly SparqlFragment[], separator: ' ' | ' || ' | ' && ' = ' '): SparqlFragment {
  return new SparqlFragment(parts.map((p) => p.text).join(separator));
}

/** `<p1>/<p2>/...`: a sequence property path of the given predicates. */
export function sequencePath(predicates: readonly NamedNodeTerm[]): SparqlFragment {
  return new SparqlFragment(predicates.map(sparqlTerm).join('/'));
}
