import { assertIri } from '../iri/validate.js';
import { concat, graphFragment, sequencePath, sparql, variable, type SparqlFragment, type Variable } from '../store/sparql.js';
import { namedNode, type NamedNodeTerm, type Term } from '../store/terms.js';
import { w3 } from '../vocab/terms.js';

/**
 * SPARQL text of the OGM's writes and of its reads of one individual. Each write builder returns
 * ONE operation: remote stores do not make `;`-chained operations atomic, so a write that must be
 * atomic is one DELETE/INSERT.
 */

/** Property IRI -> the terms it holds (or must hold). */
export type PropertyValues = ReadonlyMap<string, readonly Term[]>;

/** One ground triple: subject IRI, predicate IRI, object term. */
export type TripleRow = readonly [string, string, Term];

const TYPE = namedNode(w3.type);

/** `GRAPH <g> { part part ... }` */
function inGraph(graph: string, parts: readonly SparqlFragment[]): SparqlFragment {
  return graphFragment(graph, concat(parts));
}

/** `s p o .` for every value of every property. */
function valueTriples(s: NamedNodeTerm | Variable, values: PropertyValues): SparqlFragment[] {
  const out: SparqlFragment[] = [];
  for (const [p, terms] of values) for (const t of terms) out.push(sparql`${s} ${namedNode(p)} ${t} .`);
  return out;
}

/** `s rdf:type ?anchorType .`: anchors a WHERE on the individual (see {@link commitUpdate}). */
function anchor(s: NamedNodeTerm): SparqlFragment {
  return sparql`${s} ${TYPE} ?anchorType .`;
}

/** `INSERT DATA` of a typed individual with its properties. */
export function createUpdate(graph: string, iri: string, types: readonly string[], values: PropertyValues): string {
  const typeTriples = [...types, w3.NamedIndividual].map((t) => sparql`${namedNode(iri)} ${TYPE} ${namedNode(t)} .`);
  return sparql`INSERT DATA { ${inGraph(graph, [...typeTriples, ...valueTriples(namedNode(iri), values)])} }`.text;
}

/** What a compare-and-set write requires of the individual (see {@link guardPatterns}). */
export interface WriteGuard {
  /** Classes the individual must have. */
  classes: readonly string[];
  /** Properties that must hold exactly these values (`[]`: none). */
  exact: PropertyValues;
  /** Properties that must hold exactly one value, one of these. */
  oneOf?: PropertyValues;
}

const NO_VALUES: PropertyValues = new Map();

/**
 * Patterns that hold exactly when the guard does: the individual has each class, each `exact`
 * property holds exactly its values, each `oneOf` property one value among its own. With no
 * class to require, the patterns are anchored on the individual's type instead (a WHERE made
 * only of `FILTER NOT EXISTS` is ignored by Virtuoso). Every "and no other value" goes into ONE
 * `FILTER NOT EXISTS` over the individual's triples: Oxigraph plans and runs each such filter
 * on its own (a claim with seven of them took 170 µs, with one 120 µs), and Virtuoso makes a
 * subquery of each.
 */
export function guardPatterns(iri: string, guard: WriteGuard): SparqlFragment[] {
  const s = namedNode(iri);
  const out = guard.classes.length > 0 ? guard.classes.map((c) => sparql`${s} ${TYPE} ${namedNode(c)} .`) : [anchor(s)];
  const p = variable('gp');
  const v = variable('gv');
  const otherValue: SparqlFragment[] = [];
  const absent: NamedNodeTerm[] = [];
  for (const [property, expected] of guard.exact) {
    const pi = namedNode(property);
    for (const t of expected) out.push(sparql`${s} ${pi} ${t} .`);
    if (expected.length === 0) absent.push(pi);
    else otherValue.push(sparql`(${p} = ${pi} && ${v} NOT IN ${expected})`);
  }
  let i = 0;
  for (const [property, allowed] of guard.oneOf ?? NO_VALUES) {
    const h = variable(`h${i++}`);
    const pi = namedNode(property);
    out.push(sparql`${s} ${pi} ${h} . FILTER(${h} IN ${allowed})`);
    otherValue.push(sparql`(${p} = ${pi} && !sameTerm(${v}, ${h}))`);
  }
  if (absent.length > 0) otherValue.push(sparql`${p} IN ${absent}`);
  if (otherValue.length > 0) out.push(sparql`FILTER NOT EXISTS { ${s} ${p} ${v} . FILTER(${concat(otherValue, ' || ')}) }`);
  return out;
}

/**
 * One DELETE/INSERT that replaces every value of each property in `set`; with a `guard` it
 * applies only when the guard holds ({@link guardPatterns}), without one the WHERE is anchored
 * on the individual's type. Each old value is matched by a UNION whose second branch binds the
 * variable to one of the individual's types when the property has no value: Virtuoso drops a
 * whole solution (the INSERT too) when a DELETE template variable is unbound, so the usual
 * `OPTIONAL` would make a first write of a property silently do nothing there. The stand-in
 * triple `<s> <p> <type>` does not exist, so deleting it is harmless. A property whose values
 * the guard fixes (`exact`, `[]`: none) needs no match: its old values are deleted as ground
 * triples.
 */
export function commitUpdate(graph: string, iri: string, set: PropertyValues, guard?: WriteGuard): string {
  const s = namedNode(iri);
  return replaceUpdate(graph, s, set, guard ? guardPatterns(iri, guard) : [anchor(s)], false, guard?.exact);
}

/**
 * The same replacement on every individual bound to `?s` by `match` (a WHERE fragment built
 * by the `sparql` template), in one request.
 */
export function commitMatchingUpdate(graph: string, match: SparqlFragment, set: PropertyValues, optionalOld: boolean): string {
  return replaceUpdate(graph, variable('s'), set, [match], optionalOld);
}

// `optionalOld` matches old values with a plain OPTIONAL, for stores that apply a solution with
// unbound DELETE variables: with a variable subject the UNION form makes the store join every
// typed individual of the graph, which costs tens of milliseconds at plant scale.
function replaceUpdate(
  graph: string,
  s: NamedNodeTerm | Variable,
  set: PropertyValues,
  where: readonly SparqlFragment[],
  optionalOld = false,
  guarded: PropertyValues = NO_VALUES,
): string {
  // A property whose values the guard fixes has nothing to match: each old-value UNION doubles
  // the SQL Virtuoso generates, which refuses an update past 10 000 lines.
  const props = [...set.keys()].filter((p) => !guarded.has(p)).map((p) => namedNode(p));
  const known = new Map([...set.keys()].filter((p) => guarded.has(p)).map((p) => [p, guarded.get(p)!]));
  const del = [...props.map((p, i) => sparql`${s} ${p} ${variable(`o${i}`)} .`), ...valueTriples(s, known)];
  const old = props.map((p, i) => {
    const o = variable(`o${i}`);
    if (optionalOld) return sparql`OPTIONAL { ${s} ${p} ${o} . }`;
    return sparql`{ ${s} ${p} ${o} . } UNION { ${s} ${TYPE} ${o} . FILTER NOT EXISTS { ${s} ${p} ${variable(`x${i}`)} . } }`;
  });
  const inserts = valueTriples(s, set);
  // Virtuoso rejects an empty `INSERT { GRAPH <g> { } }`, so a pure removal has no INSERT clause.
  const insert = inserts.length > 0 ? sparql` INSERT { ${inGraph(graph, inserts)} }` : sparql``;
  // Nor an empty `DELETE { GRAPH <g> { } }`: an insert-only commit has no DELETE clause.
  const remove = del.length > 0 ? sparql`DELETE { ${inGraph(graph, del)} }` : sparql``;
  return sparql`${remove}${insert} WHERE { ${inGraph(graph, [...where, ...old])} }`.text;
}

/** ASK that holds when the commit's guard holds (checked atomically by stores that can). */
export function guardAsk(graph: string, iri: string, guard: WriteGuard): string {
  return sparql`ASK { ${inGraph(graph, guardPatterns(iri, guard))} }`.text;
}

/** ASK that holds once the commit applied: each set property holds exactly its new values. */
export function appliedAsk(graph: string, iri: string, set: PropertyValues): string {
  return sparql`ASK { ${inGraph(graph, guardPatterns(iri, { classes: [], exact: set }))} }`.text;
}

function tripleLines(rows: readonly TripleRow[]): SparqlFragment[] {
  return rows.map(([s, p, o]) => sparql`${namedNode(s)} ${namedNode(p)} ${o} .`);
}

/** `INSERT DATA` of single triples (the spec's low-level atomic append). */
export function appendUpdate(graph: string, rows: readonly TripleRow[]): string {
  return sparql`INSERT DATA { ${inGraph(graph, tripleLines(rows))} }`.text;
}

/** `DELETE DATA` of single triples (the spec's low-level triple deletion). */
export function deleteUpdate(graph: string, rows: readonly TripleRow[]): string {
  return sparql`DELETE DATA { ${inGraph(graph, tripleLines(rows))} }`.text;
}

/** `{ GRAPH <g> { s p o . } }`: one triple of one graph as a group pattern. */
function triplePattern(graph: string, row: TripleRow): SparqlFragment {
  return sparql`{ ${inGraph(graph, tripleLines([row]))} }`;
}

/**
 * `DELETE { triples } WHERE { guard }` in one graph: the triples are removed only while the
 * guard triple holds, in one atomic update (a revert that must not undo a claim made meanwhile),
 * with the checks a store that cannot report what an update did is asked instead: whether the
 * guard holds before, and whether it is gone after.
 */
export function guardedDeleteUpdate(
  graph: string,
  rows: readonly TripleRow[],
  guard: TripleRow,
): { update: string; before: string; after: string } {
  const pattern = triplePattern(graph, guard);
  return {
    update: sparql`DELETE { ${inGraph(graph, tripleLines(rows))} } WHERE ${pattern}`.text,
    before: sparql`ASK ${pattern}`.text,
    after: sparql`ASK { FILTER NOT EXISTS ${pattern} }`.text,
  };
}

/** `SELECT ?t` of the individual's asserted types in the graph. */
export function typesQuery(graph: string, iri: string): string {
  return sparql`SELECT ?t WHERE { ${inGraph(graph, [sparql`${namedNode(iri)} ${TYPE} ?t .`])} }`.text;
}

/** `SELECT ?p ?o` of every property of the individual in the graph. */
export function describeQuery(graph: string, iri: string): string {
  return sparql`SELECT ?p ?o WHERE { ${inGraph(graph, [sparql`${namedNode(iri)} ?p ?o .`])} }`.text;
}

/** Properties of every node reached from `iri` by following `chain`, keyed by `?n`. */
export function followQuery(graph: string, iri: string, chain: readonly string[]): string {
  const path = sequencePath(chain.map((p) => namedNode(assertIri(p, 'follow property'))));
  return sparql`SELECT ?n ?p ?o WHERE { ${inGraph(graph, [sparql`${namedNode(iri)} ${path} ?n .`, sparql`?n ?p ?o .`])} }`.text;
}
