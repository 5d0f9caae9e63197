import { DataFactory } from 'n3';
import { fromRdf } from 'rdf-literal';
import { validateTerm } from 'rdf-validate-datatype';
import type { Term } from '../store/terms.js';
import type { Bindings } from '../store/triple-store.js';
import { RDF, RDFS, SH, XSD } from '../vocab/namespaces.js';

/**
 * Node shapes compiled into plain checks of the focus node's values, for the shapes a write is
 * judged by: property shapes with a single IRI path and only `sh:minCount`, `sh:maxCount`,
 * `sh:datatype`, `sh:nodeKind`, `sh:in`, `sh:class` and the value ranges (`sh:minInclusive` and the
 * like), which is every shape the project ships but one with an inverse path. A compiled
 * shape says whether the write conforms in microseconds, where rdf-validate-shacl takes 0.2 ms;
 * a write it finds wanting is judged again by the library, whose report names the fault, so the
 * library stays the judge of every refusal. A shape using anything else is not compiled.
 * [SHACL core constraint components](https://www.w3.org/TR/shacl/#core-components)
 */

/** What a compiled shape looks at: the focus node's values and the types of every node. */
export interface ShapeData {
  /** The values of the focus node, by property. */
  values: ReadonlyMap<string, readonly Term[]>;
  /** Every class a node is an instance of (the closure), for `sh:class`. */
  typesOf: (node: string) => ReadonlySet<string>;
}

/** A compiled node shape: true when the focus node conforms on the properties in `paths` (all when absent). */
export type CompiledShape = (data: ShapeData, paths?: ReadonlySet<string>) => boolean;

/** A value check of one property shape, on one value. */
type ValueCheck = (value: Term, data: ShapeData) => boolean;

// N3's DataFactory functions do not use `this`.
// eslint-disable-next-line @typescript-eslint/unbound-method
const { namedNode } = DataFactory;
// Annotations: they change no verdict.
const ANNOTATIONS = new Set([RDF('type'), RDFS('label'), RDFS('comment'), SH('message'), SH('name'), SH('description')]);
const NODE_SHAPE_KEYS = new Set([...ANNOTATIONS, SH('targetClass'), SH('property')]);
const PROPERTY_KEYS = new Set([
  ...ANNOTATIONS,
  SH('path'),
  SH('order'),
  SH('group'),
  SH('minCount'),
  SH('maxCount'),
  SH('datatype'),
  SH('nodeKind'),
  SH('in'),
  SH('class'),
  SH('minInclusive'),
  SH('maxInclusive'),
  SH('minExclusive'),
  SH('maxExclusive'),
]);
// The value ranges: which comparisons of value against bound pass.
const RANGES: Readonly<Record<string, (comparison: number) => boolean>> = {
  [SH('minInclusive')]: (c) => c >= 0,
  [SH('maxInclusive')]: (c) => c <= 0,
  [SH('minExclusive')]: (c) => c > 0,
  [SH('maxExclusive')]: (c) => c < 0,
};
const NODE_KINDS: Readonly<Record<string, readonly Term['termType'][]>> = {
  [SH('IRI')]: ['NamedNode'],
  [SH('Literal')]: ['Literal'],
  [SH('BlankNode')]: ['BlankNode'],
  [SH('BlankNodeOrIRI')]: ['BlankNode', 'NamedNode'],
  [SH('IRIOrLiteral')]: ['NamedNode', 'Literal'],
  [SH('BlankNodeOrLiteral')]: ['BlankNode', 'Literal'],
};
const INTEGER = /^\d+$/u;

/** A term's identity as text: two terms get one key exactly when they are the same RDF term. */
function keyOf(t: Term): string {
  return t.termType === 'Literal' ? `L:${t.language ?? ''}|${t.datatype}|${t.value}` : `${t.termType}:${t.value}`;
}

/** The shapes graph's triples by subject, then predicate. */
type Graph = ReadonlyMap<string, ReadonlyMap<string, readonly Term[]>>;

function graphOf(rows: readonly Bindings[]): Graph {
  const graph = new Map<string, Map<string, Term[]>>();
  for (const { s, p, o } of rows) {
    if (!s || !p || !o || s.termType === 'Literal') continue;
    const bySubject = graph.get(s.value) ?? new Map<string, Term[]>();
    graph.set(s.value, bySubject);
    bySubject.set(p.value, [...(bySubject.get(p.value) ?? []), o]);
  }
  return graph;
}

/** Compiles every target shape that can be; the others are absent from the map. */
export function compileShapes(rows: readonly Bindings[], targets: Iterable<string>): Map<string, CompiledShape> {
  const graph = graphOf(rows);
  const out = new Map<string, CompiledShape>();
  for (const target of targets) {
    const shape = compileNodeShape(graph, target);
    if (shape) out.set(target, shape);
  }
  return out;
}

function compileNodeShape(graph: Graph, node: string): CompiledShape | undefined {
  const triples = graph.get(node);
  if (!triples || [...triples.keys()].some((p) => !NODE_SHAPE_KEYS.has(p))) return undefined;
  const properties: { path: string; conforms: (values: readonly Term[], data: ShapeData) => boolean }[] = [];
  for (const property of triples.get(SH('property')) ?? []) {
    if (property.termType === 'Literal') return undefined;
    const compiled = compilePropertyShape(graph, property.value);
    if (!compiled) return undefined;
    properties.push(compiled);
  }
  return (data, paths) =>
    properties.every(({ path, conforms }) => (paths !== undefined && !paths.has(path)) || conforms(data.values.get(path) ?? [], data));
}

/** The one value of `key`, or undefined when there is none; false when there are several. */
function single(triples: ReadonlyMap<string, readonly Term[]>, key: string): Term | undefined | false {
  const values = triples.get(key) ?? [];
  return values.length > 1 ? false : values[0];
}

function compilePropertyShape(graph: Graph, node: string) {
  const triples = graph.get(node);
  if (!triples || [...triples.keys()].some((p) => !PROPERTY_KEYS.has(p))) return undefined;
  const path = single(triples, SH('path'));
  if (!path || path.termType !== 'NamedNode') return undefined;
  const counts = [single(triples, SH('minCount')), single(triples, SH('maxCount'))];
  if (counts.some((c) => c === false || (c !== undefined && !INTEGER.test(c.value)))) return undefined;
  const [min, max] = counts.map((c) => (c ? Number(c.value) : undefined));
  const checks: ValueCheck[] = [];
  for (const key of [SH('datatype'), SH('nodeKind'), SH('in'), ...Object.keys(RANGES)]) {
    const parameter = single(triples, key);
    if (parameter === false) return undefined;
    if (parameter === undefined) continue;
    const check = valueCheck(graph, key, parameter);
    if (!check) return undefined;
    checks.push(check);
  }
  for (const cls of triples.get(SH('class')) ?? []) {
    if (cls.termType === 'Literal') return undefined;
    checks.push((value, data) => value.termType !== 'Literal' && data.typesOf(value.value).has(cls.value));
  }
  return {
    path: path.value,
    conforms(values: readonly Term[], data: ShapeData): boolean {
      // The data graph is a set: the same term twice is one value.
      const count = new Set(values.map(keyOf)).size;
      if ((min !== undefined && count < min) || (max !== undefined && count > max)) return false;
      return values.every((value) => checks.every((check) => check(value, data)));
    },
  };
}

function valueCheck(graph: Graph, key: string, parameter: Term): ValueCheck | undefined {
  if (key === SH('datatype')) {
    if (parameter.termType !== 'NamedNode') return undefined;
    const datatype = namedNode(parameter.value);
    // As the library judges it: the datatype, and a lexical form that datatype allows.
    return (value) =>
      value.termType === 'Literal' &&
      value.datatype === parameter.value &&
      validateTerm(DataFactory.literal(value.value, value.language ? value.language : datatype));
  }
  const range = RANGES[key];
  if (range) return parameter.termType === 'Literal' ? (value) => range(compare(value, parameter) ?? NaN) : undefined;
  if (key === SH('nodeKind')) {
    const kinds = NODE_KINDS[parameter.value];
    return kinds ? (value) => kinds.includes(value.termType) : undefined;
  }
  const members = listOf(graph, parameter);
  // Plain strings and IRIs only: other literals' equality is the library's to judge.
  if (!members || members.some((m) => m.termType === 'BlankNode' || (m.termType === 'Literal' && m.language))) return undefined;
  const allowed = new Set(members.map(keyOf));
  return (value) => allowed.has(keyOf(value));
}

const rdfjs = (t: Term & { termType: 'Literal' }) => DataFactory.literal(t.value, t.language ? t.language : namedNode(t.datatype));
const TIMEZONE = /^.*(((\+|-)\d{2}:\d{2})|Z)$/u;
const hasTimezone = (t: Term & { termType: 'Literal' }): boolean => t.datatype === XSD('dateTime') && TIMEZONE.test(t.value);

/**
 * Value against bound as rdf-validate-shacl compares them (its `compareTerms`): literals whose
 * rdf-literal values have one JavaScript type; null when they are not comparable (a failed check).
 */
function compare(value: Term, bound: Term & { termType: 'Literal' }): number | null {
  if (value.termType !== 'Literal' || hasTimezone(value) !== hasTimezone(bound)) return null;
  const a: unknown = fromRdf(rdfjs(value));
  const b: unknown = fromRdf(rdfjs(bound));
  if (typeof a !== typeof b) return null;
  return typeof a === 'string' ? a.localeCompare(b as string) : (a as number) - (b as number);
}

/** The members of an RDF list in the shapes graph; undefined for a malformed list. */
function listOf(graph: Graph, head: Term): Term[] | undefined {
  const members: Term[] = [];
  const seen = new Set<string>();
  for (let node = head; node.value !== RDF('nil');) {
    if (node.termType === 'Literal' || seen.has(node.value)) return undefined;
    seen.add(node.value);
    const cell = graph.get(node.value);
    const first = cell && single(cell, RDF('first'));
    const rest = cell && single(cell, RDF('rest'));
    if (!first || !rest) return undefined;
    members.push(first);
    node = rest;
  }
  return members;
}
