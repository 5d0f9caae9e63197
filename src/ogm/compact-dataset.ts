import type { DatasetCore, Quad, Term } from '@rdfjs/types';

type Index = Map<string, Map<string, Map<string, Quad[]>>>;

/** A term's identity as text: two terms get one key exactly when `equals` holds. */
function keyOf(term: Term): string {
  if (term.termType !== 'Literal') return `${term.termType}:${term.value}`;
  return `L:${term.language}|${term.datatype.value}|${term.value}`;
}

function leaf(index: Index, a: string, b: string, c: string): Quad[] {
  let level2 = index.get(a);
  if (!level2) index.set(a, (level2 = new Map<string, Map<string, Quad[]>>()));
  let level3 = level2.get(b);
  if (!level3) level2.set(b, (level3 = new Map<string, Quad[]>()));
  let quads = level3.get(c);
  if (!quads) level3.set(c, (quads = []));
  return quads;
}

function* walk(index: Index, a: string, b?: string, c?: string): Generator<Quad> {
  const level2 = index.get(a);
  if (!level2) return;
  for (const [kb, level3] of b === undefined ? level2 : [[b, level2.get(b)] as const]) {
    if (!level3 || kb === undefined) continue;
    for (const [, quads] of c === undefined ? level3 : [[c, level3.get(c)] as const]) yield* quads ?? [];
  }
}

/**
 * An RDF/JS `DatasetCore` indexed by nested `Map`s, given to the SHACL validator as its dataset
 * factory. The library's default dataset (and N3's store) index by objects keyed with integer
 * ids, which V8 backs with holey element arrays sized by the largest id: the SHACL vocabulary
 * the validator loads alone took about 13 MB of heap that way, most of a sidecar's idle memory.
 * Here it takes well under 1 MB. Quads are kept in three orders (SPO, POS, OSP) so every
 * pattern with a bound term is a direct lookup.
 */
export class CompactDataset implements DatasetCore {
  private readonly spo: Index = new Map();
  private readonly pos: Index = new Map();
  private readonly osp: Index = new Map();
  private count = 0;

  constructor(quads?: Iterable<Quad>) {
    for (const q of quads ?? []) this.add(q);
  }

  get size(): number {
    return this.count;
  }

  add(quad: Quad): this {
    if (this.has(quad)) return this;
    const [s, p, o] = [keyOf(quad.subject), keyOf(quad.predicate), keyOf(quad.object)];
    leaf(this.spo, s, p, o).push(quad);
    leaf(this.pos, p, o, s).push(quad);
    leaf(this.osp, o, s, p).push(quad);
    this.count += 1;
    return this;
  }

  delete(quad: Quad): this {
    const [s, p, o] = [keyOf(quad.subject), keyOf(quad.predicate), keyOf(quad.object)];
    const keep = (q: Quad) => !q.graph.equals(quad.graph);
    const before = this.spo.get(s)?.get(p)?.get(o);
    if (!before || before.every(keep)) return this;
    for (const [index, a, b, c] of [
      [this.spo, s, p, o],
      [this.pos, p, o, s],
      [this.osp, o, s, p],
    ] as const) {
      const level3 = index.get(a)?.get(b);
      level3?.set(c, (level3.get(c) ?? []).filter(keep));
    }
    this.count -= 1;
    return this;
  }

  has(quad: Quad): boolean {
    const quads = this.spo.get(keyOf(quad.subject))?.get(keyOf(quad.predicate))?.get(keyOf(quad.object));
    return quads?.some((q) => q.graph.equals(quad.graph)) ?? false;
  }

  match(subject?: Term | null, predicate?: Term | null, object?: Term | null, graph?: Term | null): CompactDataset {
    const out = new CompactDataset();
    for (const q of this.candidates(subject, predicate, object)) if (!graph || q.graph.equals(graph)) out.add(q);
    return out;
  }

  [Symbol.iterator](): Iterator<Quad> {
    return this.candidates()[Symbol.iterator]();
  }

  private *candidates(subject?: Term | null, predicate?: Term | null, object?: Term | null): Generator<Quad> {
    const [s, p, o] = [subject, predicate, object].map((t) => (t ? keyOf(t) : undefined));
    if (s !== undefined) yield* walk(this.spo, s, p, o);
    else if (p !== undefined) yield* walk(this.pos, p, o);
    else if (o !== undefined) yield* walk(this.osp, o);
    else for (const subjectKey of this.spo.keys()) yield* walk(this.spo, subjectKey);
  }
}
