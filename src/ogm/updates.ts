import type { Term } from '../store/terms.js';
import { sparqlIri, sparqlTerm } from '../store/terms.js';
import { assertIri } from '../iri/validate.js';
import { inGraph, termList } from '../store/sparql.js';
import { w3 } from '../vocab/terms.js';

/**
 * SPARQL Update text for the OGM's writes. Each builder returns ONE operation: remote stores do
 * not make `;`-chained operations atomic, so a write that must be atomic is one DELETE/INSERT.
 */

type Values = ReadonlyMap<string, readonly Term[]>;

function triples(s: string, values: Values): string[] {
  const subject = sparqlIri(s);
  const out: string[] = [];
  for (const [p, terms] of values) for (const t of terms) out.push(`${subject} ${sparqlIri(p)} ${sparqlTerm(t)} .`);
  return out;
}

/** `INSERT DATA` of a typed individual with its properties. */
export function createUpdate(graph: string, iri: string, types: readonly string[], values: Values): string {
  const typeTriples = [...types, w3.NamedIndividual].map((t) => `${sparqlIri(iri)} ${sparqlIri(w3.type)} ${sparqlIri(t)} .`);
  return `INSERT DATA { ${inGraph(graph, [...typeTriples, ...triples(iri, values)])} }`;
}

/** Patterns that hold exactly when each guarded property holds exactly the expected values. */
export function guardPatterns(iri: string, guard: Values): string[] {
  const s = sparqlIri(iri);
  const out: string[] = [];
  let i = 0;
  for (const [p, expected] of guard) {
    const v = `?g${i++}`;
    for (const t of expected) out.push(`${s} ${sparqlIri(p)} ${sparqlTerm(t)} .`);
    const others = expected.length > 0 ? ` FILTER(${v} NOT IN ${termList(expected)})` : '';
    out.push(`FILTER NOT EXISTS { ${s} ${sparqlIri(p)} ${v} .${others} }`);
  }
  return out;
}

/**
 * One DELETE/INSERT that replaces every value of each property in `set` and applies only when
 * the guard holds. The WHERE is anchored on the individual's type: a WHERE made only of
 * `FILTER NOT EXISTS` is ignored by Virtuoso. Each old value is matched by a UNION whose second
 * branch binds the variable to one of the individual's types when the property has no value:
 * Virtuoso drops a whole solution (the INSERT too) when a DELETE template variable is unbound,
 * so the usual `OPTIONAL` would make a first write of a property silently do nothing there. The
 * stand-in triple `<s> <p> <type>` does not exist, so deleting it is harmless.
 */
export function commitUpdate(graph: string, iri: string, set: Values, guards: readonly string[]): string {
  return replaceUpdate(graph, sparqlIri(iri), set, [`${sparqlIri(iri)} ${sparqlIri(w3.type)} ?anchorType .`, ...guards]);
}

/**
 * The same replacement on every individual bound to `?s` by `match` (a WHERE fragment built
 * by the `sparql` template), in one request.
 */
export function commitMatchingUpdate(graph: string, match: string, set: Values, optionalOld: boolean): string {
  return replaceUpdate(graph, '?s', set, [match], optionalOld);
}

// `optionalOld` matches old values with a plain OPTIONAL, for stores that apply a solution with
// unbound DELETE variables: with a variable subject the UNION form makes the store join every
// typed individual of the graph, which costs tens of milliseconds at plant scale.
function replaceUpdate(graph: string, s: string, set: Values, where: readonly string[], optionalOld = false): string {
  const props = [...set.keys()];
  const del = props.map((p, i) => `${s} ${sparqlIri(p)} ?o${i} .`);
  const old = props.map((p, i) => {
    const pi = sparqlIri(p);
    if (optionalOld) return `OPTIONAL { ${s} ${pi} ?o${i} . }`;
    return `{ ${s} ${pi} ?o${i} . } UNION { ${s} ${sparqlIri(w3.type)} ?o${i} . FILTER NOT EXISTS { ${s} ${pi} ?x${i} . } }`;
  });
  const inserts = templateTriples(s, set);
  // Virtuoso rejects an empty `INSERT { GRAPH <g> { } }`, so a pure removal has no INSERT clause.
  const insert = inserts.length > 0 ? ` INSERT { ${inGraph(graph, inserts)} }` : '';
  return `DELETE { ${inGraph(graph, del)} }${insert} WHERE { ${inGraph(graph, [...where, ...old])} }`;
}

function templateTriples(s: string, values: Values): string[] {
  const out: string[] = [];
  for (const [p, terms] of values) for (const t of terms) out.push(`${s} ${sparqlIri(p)} ${sparqlTerm(t)} .`);
  return out;
}

/** Patterns that hold when each property holds exactly one value, and it is one of the given ones. */
export function oneOfPatterns(iri: string, oneOf: Values): string[] {
  const s = sparqlIri(iri);
  let i = 0;
  return [...oneOf].map(([p, allowed]) => {
    const h = `?h${i}`;
    const k = `?k${i++}`;
    const pi = sparqlIri(p);
    return `${s} ${pi} ${h} . FILTER(${h} IN ${termList(allowed)}) FILTER NOT EXISTS { ${s} ${pi} ${k} . FILTER(!sameTerm(${k}, ${h})) }`;
  });
}

/** ASK that holds when the commit's guard holds (checked atomically by stores that can). */
export function guardAsk(graph: string, iri: string, guards: readonly string[]): string {
  return `ASK { ${inGraph(graph, [`${sparqlIri(iri)} ${sparqlIri(w3.type)} ?anchorType .`, ...guards])} }`;
}

/** ASK that holds once the commit applied: each set property holds exactly its new values. */
export function appliedAsk(graph: string, iri: string, set: Values): string {
  return `ASK { ${inGraph(graph, [`${sparqlIri(iri)} ${sparqlIri(w3.type)} ?anchorType .`, ...guardPatterns(iri, set)])} }`;
}

/** `INSERT DATA` of single triples (the spec's low-level atomic append). */
export function appendUpdate(graph: string, rows: readonly [string, string, Term][]): string {
  return `INSERT DATA { ${inGraph(graph, tripleLines(rows))} }`;
}

/** `DELETE DATA` of single triples (the spec's low-level triple deletion). */
export function deleteUpdate(graph: string, rows: readonly [string, string, Term][]): string {
  return `DELETE DATA { ${inGraph(graph, tripleLines(rows))} }`;
}

/**
 * `DELETE { triples } WHERE { guard }` in one graph: the triples are removed only while the
 * guard triple holds, in one atomic update (a revert that must not undo a claim made meanwhile).
 */
export function guardedDeleteUpdate(graph: string, rows: readonly [string, string, Term][], guard: [string, string, Term]): string {
  return `DELETE { ${inGraph(graph, tripleLines(rows))} } WHERE ${triplePattern(graph, guard)}`;
}

/** `{ GRAPH <g> { s p o . } }`: one triple of one graph as a group pattern. */
export function triplePattern(graph: string, row: [string, string, Term]): string {
  return `{ ${inGraph(graph, tripleLines([row]))} }`;
}

function tripleLines(rows: readonly [string, string, Term][]): string[] {
  return rows.map(([s, p, o]) => `${sparqlIri(s)} ${sparqlIri(p)} ${sparqlTerm(o)} .`);
}

/** `SELECT ?t` of the individual's asserted types in the graph. */
export function typesQuery(graph: string, iri: string): string {
  return `SELECT ?t WHERE { ${inGraph(graph, `${sparqlIri(iri)} ${sparqlIri(w3.type)} ?t .`)} }`;
}

/** `SELECT ?p ?o` of every property of the individual in the graph. */
export function describeQuery(graph: string, iri: string): string {
  return `SELECT ?p ?o WHERE { ${inGraph(graph, `${sparqlIri(iri)} ?p ?o .`)} }`;
}

/** Properties of every node reached from `iri` by following `chain`, keyed by `?n`. */
export function followQuery(graph: string, iri: string, chain: readonly string[]): string {
  const path = chain.map((p) => sparqlIri(assertIri(p, 'follow property'))).join('/');
  return `SELECT ?n ?p ?o WHERE { ${inGraph(graph, [`${sparqlIri(iri)} ${path} ?n .`, '?n ?p ?o .'])} }`;
}
