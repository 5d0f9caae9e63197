import type { Bindings, TripleStore } from '../store/triple-store.js';
import { TBOX_QUERY } from '../queries/schema.js';
import { OWL, RDF, RDFS, XSD } from '../vocab/namespaces.js';
import { w3 } from '../vocab/terms.js';

/** What the OGM knows of one declared property. */
export interface PropertyInfo {
  readonly iri: string;
  readonly kind: 'object' | 'datatype' | 'annotation';
  /** Each entry is one `rdfs:domain` statement: a list of alternatives (an `owl:unionOf`) or one class. */
  readonly domains: readonly (readonly string[])[];
  readonly ranges: readonly string[];
}

/** The parts of the ontology (TBox) the OGM validates writes against, read once and cached. */
export class Tbox {
  constructor(
    readonly classes: ReadonlySet<string>,
    private readonly supers: ReadonlyMap<string, ReadonlySet<string>>,
    readonly properties: ReadonlyMap<string, PropertyInfo>,
    /** Maximum cardinalities from OWL restrictions: class -> property -> max. */
    readonly maxCounts: ReadonlyMap<string, ReadonlyMap<string, number>>,
  ) {}

  hasClass(iri: string): boolean {
    return this.classes.has(iri) || iri === w3.Class || iri === OWL('Thing');
  }

  /** True iff `cls` equals `base` or is a (transitive) subclass of it. */
  isSubClassOf(cls: string, base: string): boolean {
    return cls === base || base === OWL('Thing') || (this.supers.get(cls)?.has(base) ?? false);
  }

  /** The given classes and all their superclasses. */
  closure(classes: Iterable<string>): Set<string> {
    const out = new Set<string>();
    for (const c of classes) {
      out.add(c);
      for (const s of this.supers.get(c) ?? []) out.add(s);
    }
    return out;
  }
}

type Edges = Map<string, string[]>;

function add(map: Edges, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Reads the TBox from every named graph of the store in one query. */
export async function loadTbox(store: TripleStore): Promise<Tbox> {
  const rows = await store.select(TBOX_QUERY);
  return buildTbox(rows);
}

/** Builds a {@link Tbox} from the rows of the TBox query. Exported for tests. */
export function buildTbox(rows: Bindings[]): Tbox {
  const edges = new Map<string, Edges>();
  for (const row of rows) {
    const k = row.k?.value;
    const s = row.s;
    const o = row.o;
    if (!k || !s || !o) continue;
    let byKind = edges.get(k);
    if (!byKind) edges.set(k, (byKind = new Map<string, string[]>()));
    add(byKind, termKey(s), termKey(o));
  }
  const get = (k: string): Edges => edges.get(k) ?? new Map<string, string[]>();
  const types = get('type');
  const classes = new Set<string>();
  for (const [s, os] of types) if (os.includes(OWL('Class')) || os.includes(RDFS('Class'))) classes.add(s);
  const sub = get('sub');
  for (const [s, os] of sub) {
    if (isIriKey(s)) classes.add(s);
    for (const o of os) if (isIriKey(o)) classes.add(o);
  }
  const supers = superClosure(sub);
  const lists = { first: get('first'), rest: get('rest') };
  const properties = readProperties(types, get('domain'), get('range'), get('union'), lists);
  const maxCounts = readMaxCounts(sub, get('onProperty'), get('max'));
  return new Tbox(classes, supers, properties, maxCounts);
}

// Blank nodes are keyed with a prefix that no IRI can start with.
function termKey(t: { termType: string; value: string }): string {
  return t.termType === 'BlankNode' ? `_:${t.value}` : t.value;
}
function isIriKey(k: string): boolean {
  return !k.startsWith('_:');
}

function superClosure(sub: Edges): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const visit = (c: string, seen: Set<string>): void => {
    for (const s of sub.get(c) ?? []) {
      if (!isIriKey(s) || seen.has(s)) continue;
      seen.add(s);
      visit(s, seen);
    }
  };
  for (const c of sub.keys()) {
    if (!isIriKey(c)) continue;
    const seen = new Set<string>();
    visit(c, seen);
    out.set(c, seen);
  }
  return out;
}

function readList(head: string, lists: { first: Edges; rest: Edges }): string[] {
  const out: string[] = [];
  let node: string | undefined = head;
  for (let i = 0; node && node !== RDF('nil') && i < 1000; i++) {
    const first = lists.first.get(node)?.[0];
    if (first) out.push(first);
    node = lists.rest.get(node)?.[0];
  }
  return out;
}

const PROPERTY_TYPES: Record<string, PropertyInfo['kind'] | 'unknown'> = {
  [OWL('ObjectProperty')]: 'object',
  [OWL('DatatypeProperty')]: 'datatype',
  [OWL('AnnotationProperty')]: 'annotation',
  [RDF('Property')]: 'unknown',
  [OWL('SymmetricProperty')]: 'object',
  [OWL('TransitiveProperty')]: 'object',
  [OWL('FunctionalProperty')]: 'unknown',
};

function readProperties(
  types: Edges,
  domain: Edges,
  range: Edges,
  union: Edges,
  lists: { first: Edges; rest: Edges },
): Map<string, PropertyInfo> {
  const out = new Map<string, PropertyInfo>();
  for (const [s, os] of types) {
    const kinds = os.map((o) => PROPERTY_TYPES[o]).filter((k) => k !== undefined);
    if (kinds.length === 0 || !isIriKey(s)) continue;
    const ranges = range.get(s) ?? [];
    const known = kinds.find((k) => k !== 'unknown');
    const kind = known ?? (ranges.some((r) => r.startsWith(XSD.iri) || r === RDFS('Literal')) ? 'datatype' : 'object');
    const domains = (domain.get(s) ?? []).map((d) => {
      const u = union.get(d)?.[0];
      return u ? readList(u, lists) : [d];
    });
    out.set(s, { iri: s, kind, domains, ranges: ranges.filter(isIriKey) });
  }
  for (const p of [RDFS('label'), RDFS('comment')]) {
    if (!out.has(p)) out.set(p, { iri: p, kind: 'annotation', domains: [], ranges: [] });
  }
  return out;
}

function readMaxCounts(sub: Edges, onProperty: Edges, max: Edges): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const [cls, supers] of sub) {
    if (!isIriKey(cls)) continue;
    for (const r of supers) {
      const prop = onProperty.get(r)?.[0];
      const n = max.get(r)?.map(Number).filter(Number.isFinite);
      if (!prop || !n || n.length === 0) continue;
      let byProp = out.get(cls);
      if (!byProp) out.set(cls, (byProp = new Map<string, number>()));
      byProp.set(prop, Math.min(...n, byProp.get(prop) ?? Infinity));
    }
  }
  return out;
}
