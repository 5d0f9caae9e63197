import { DataFactory } from 'n3';
import type { DatasetCore, Quad } from '@rdfjs/types';
import { ValidationError } from '../errors.js';
import type { Term } from '../store/terms.js';
import type { Bindings, TripleStore } from '../store/triple-store.js';
import { graphTriplesQuery } from '../queries/schema.js';
import { RDF, RDFS, SH } from '../vocab/namespaces.js';
import { compileShapes, type CompiledShape, type ShapeData } from './compiled-shapes.js';
import type { Tbox } from './tbox.js';
import type { ShaclLibrary } from './shacl-validator.js';
import type { WriteIntent } from './validate.js';

// N3's DataFactory functions do not use `this`.
// eslint-disable-next-line @typescript-eslint/unbound-method
const { namedNode, literal, blankNode, quad } = DataFactory;

type RdfjsTerm = ReturnType<typeof namedNode> | ReturnType<typeof literal> | ReturnType<typeof blankNode>;

function toRdfjs(t: Term): RdfjsTerm {
  if (t.termType === 'NamedNode') return namedNode(t.value);
  if (t.termType === 'BlankNode') return blankNode(t.value);
  return literal(t.value, t.language ? t.language : namedNode(t.datatype));
}

/**
 * SHACL shapes checked at write time. Only the shapes whose `sh:targetClass` is among the focus
 * node's classes are evaluated; a compiled shape passes a conforming write by itself. The
 * library (rdf-validate-shacl, see shacl-validator.ts) is loaded when a write first needs it.
 */
export class WriteShapes {
  /** The library, once a write has needed it. */
  private library: Promise<ShaclLibrary> | undefined;

  private constructor(
    /** The shapes graph; undefined when it holds no shape, and then nothing is checked. */
    private readonly shapes: readonly Quad[] | undefined,
    private readonly byClass: ReadonlyMap<string, readonly RdfjsTerm[]>,
    /** Paths constrained by `sh:class`: their values' types must be in the data graph. */
    readonly classPaths: ReadonlySet<string>,
    /** Per target shape, every property IRI a `sh:path` reachable from it names (its results can only name these). */
    private readonly pathsOf: ReadonlyMap<string, ReadonlySet<string>>,
    /** The target shapes that compile (see `compiled-shapes.ts`): conforming writes pass them without the library. */
    private readonly compiled: ReadonlyMap<string, CompiledShape>,
  ) {}

  /** Reads every shape from the named graph `graph` (one query). */
  static async load(store: TripleStore, graph: string): Promise<WriteShapes> {
    const rows = await store.select(graphTriplesQuery(graph));
    return WriteShapes.fromRows(rows);
  }

  /** `compile: false` judges every write by the library alone (for comparing the two). */
  static fromRows(rows: Bindings[], { compile = true }: { compile?: boolean } = {}): WriteShapes {
    const shapes: Quad[] = [];
    const byClass = new Map<string, RdfjsTerm[]>();
    const shapesWithClass = new Set<string>();
    const paths = new Map<string, string>();
    for (const { s, p, o } of rows) {
      if (!s || !p || !o || p.termType !== 'NamedNode' || s.termType === 'Literal') continue;
      const subject = toRdfjs(s) as ReturnType<typeof namedNode>;
      shapes.push(quad(subject, namedNode(p.value), toRdfjs(o)));
      if (p.value === SH('targetClass')) byClass.set(o.value, [...(byClass.get(o.value) ?? []), subject]);
      if (p.value === SH('class')) shapesWithClass.add(s.value);
      if (p.value === SH('path')) paths.set(s.value, o.value);
    }
    const classPaths = new Set([...shapesWithClass].map((shape) => paths.get(shape)).filter((p): p is string => !!p));
    const targets = new Set([...byClass.values()].flat().map((shape) => shape.value));
    const compiled = compile ? compileShapes(rows, targets) : new Map<string, CompiledShape>();
    return new WriteShapes(shapes.length > 0 ? shapes : undefined, byClass, classPaths, reachablePaths(rows, targets), compiled);
  }

  /**
   * Checks the focus node of a write. `paths`, when given, limits the check to those
   * properties (a commit only changes the properties it names; the rest were valid before).
   */
  async check(
    tbox: Tbox,
    intent: WriteIntent,
    paths?: ReadonlySet<string>,
    objectTypes?: ReadonlyMap<string, readonly string[]>,
  ): Promise<void> {
    if (!this.shapes) return;
    const closure = tbox.closure(intent.classes);
    // A commit is judged only on the paths it writes: a shape that constrains none of them could
    // not report anything that counts, so it is not evaluated (the answer is the same).
    const relevant = (shape: RdfjsTerm): boolean => !paths || [...(this.pathsOf.get(shape.value) ?? [])].some((p) => paths.has(p));
    const shapes = [...closure].flatMap((c) => this.byClass.get(c) ?? []).filter(relevant);
    if (shapes.length === 0) return;
    const values = shapeData(tbox, intent, closure, objectTypes);
    let data: DatasetCore | undefined;
    const focus = namedNode(intent.focus);
    for (const shape of shapes) {
      if (values && this.compiled.get(shape.value)?.(values, paths)) continue;
      const library = await this.loadLibrary(this.shapes);
      data ??= library.dataGraph(this.dataQuads(tbox, intent, closure, objectTypes));
      const report = await library.validateNode(data, focus, shape);
      const result = report.results.find((r) => !paths || (r.path !== null && paths.has(r.path.value)));
      if (result) {
        const property = result.path?.value;
        const rule = result.sourceConstraintComponent?.value.replace(SH.iri, 'sh:') ?? 'shape';
        const message = result.message.map((m) => m.value).join('; ') || 'constraint violated';
        throw new ValidationError(`<${intent.focus}> violates a shape${property ? ` on <${property}>` : ''}: ${message} (rule: ${rule})`, {
          focus: intent.focus,
          ...(property ? { property } : {}),
          rule,
        });
      }
    }
  }

  private loadLibrary(shapes: readonly Quad[]): Promise<ShaclLibrary> {
    return (this.library ??= import('./shacl-validator.js').then(({ shaclLibrary }) => shaclLibrary(shapes)));
  }

  /** Object IRIs of the write whose types an `sh:class` constraint will look at. */
  classChecked(intent: Pick<WriteIntent, 'values'>): string[] {
    const out: string[] = [];
    for (const p of this.classPaths) for (const t of intent.values.get(p) ?? []) if (t.termType === 'NamedNode') out.push(t.value);
    return out;
  }

  private dataQuads(tbox: Tbox, intent: WriteIntent, closure: Set<string>, objectTypes?: ReadonlyMap<string, readonly string[]>): Quad[] {
    const data: Quad[] = [];
    const focus = namedNode(intent.focus);
    const type = namedNode(RDF('type'));
    for (const c of closure) data.push(quad(focus, type, namedNode(c)));
    for (const [o, classes] of objectTypes ?? []) for (const c of tbox.closure(classes)) data.push(quad(namedNode(o), type, namedNode(c)));
    for (const [p, terms] of intent.values) for (const t of terms) data.push(quad(focus, namedNode(p), toRdfjs(t)));
    return data;
  }
}

/**
 * The write as a compiled shape sees it: the same values and types as the data graph the library
 * is given. Undefined when the write asserts subclass links of its own (the library follows
 * those; the compiled shapes do not).
 */
function shapeData(
  tbox: Tbox,
  intent: WriteIntent,
  closure: ReadonlySet<string>,
  objectTypes?: ReadonlyMap<string, readonly string[]>,
): ShapeData | undefined {
  if (intent.values.has(RDFS('subClassOf'))) return undefined;
  return {
    values: intent.values,
    typesOf(node) {
      const types = new Set<string>();
      if (node === intent.focus) {
        for (const c of closure) types.add(c);
        for (const t of intent.values.get(RDF('type')) ?? []) types.add(t.value);
      }
      const classes = objectTypes?.get(node);
      if (classes) for (const c of tbox.closure(classes)) types.add(c);
      return types;
    },
  };
}

/** For each shape of `targets`, the IRIs named by `sh:path` anywhere below it in the shapes graph. */
function reachablePaths(rows: readonly Bindings[], targets: ReadonlySet<string>): Map<string, Set<string>> {
  const below = new Map<string, string[]>();
  const pathOf = new Map<string, string[]>();
  for (const { s, p, o } of rows) {
    if (!s || !p || !o || s.termType === 'Literal') continue;
    if (p.value === SH('path') && o.termType === 'NamedNode') pathOf.set(s.value, [...(pathOf.get(s.value) ?? []), o.value]);
    if (o.termType !== 'Literal') below.set(s.value, [...(below.get(s.value) ?? []), o.value]);
  }
  const out = new Map<string, Set<string>>();
  for (const target of targets) {
    const found = new Set<string>();
    const seen = new Set([target]);
    const todo = [target];
    for (let node = todo.pop(); node !== undefined; node = todo.pop()) {
      for (const path of pathOf.get(node) ?? []) found.add(path);
      for (const next of below.get(node) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        todo.push(next);
      }
    }
    out.set(target, found);
  }
  return out;
}
