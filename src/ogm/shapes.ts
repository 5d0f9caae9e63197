import { DataFactory, Store as N3Store } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import { ValidationError } from '../errors.js';
import type { Term } from '../store/terms.js';
import type { Bindings, TripleStore } from '../store/triple-store.js';
import { sparqlIri } from '../store/terms.js';
import { RDF, SH } from '../vocab/namespaces.js';
import type { Tbox } from './tbox.js';
import type { WriteIntent } from './validate.js';

const { namedNode, literal, blankNode, quad } = DataFactory;
type RdfjsTerm = ReturnType<typeof namedNode> | ReturnType<typeof literal> | ReturnType<typeof blankNode>;

function toRdfjs(t: Term): RdfjsTerm {
  if (t.termType === 'NamedNode') return namedNode(t.value);
  if (t.termType === 'BlankNode') return blankNode(t.value);
  return literal(t.value, t.language ? t.language : namedNode(t.datatype));
}

/**
 * SHACL shapes checked at write time. One validator is built when the shapes are read and
 * reused; each check gets a fresh validation engine, because the library's engine keeps the
 * results of earlier checks (a conforming write after a failing one would be reported failing).
 * Only the shapes whose `sh:targetClass` is among the focus node's classes are evaluated.
 */
export class WriteShapes {
  private constructor(
    private readonly validator: SHACLValidator | undefined,
    private readonly byClass: ReadonlyMap<string, readonly RdfjsTerm[]>,
  ) {}

  /** Reads every shape from the named graph `graph` (one query). */
  static async load(store: TripleStore, graph: string): Promise<WriteShapes> {
    const rows = await store.select(`SELECT ?s ?p ?o WHERE { GRAPH ${sparqlIri(graph)} { ?s ?p ?o } }`);
    return WriteShapes.fromRows(rows);
  }

  static fromRows(rows: Bindings[]): WriteShapes {
    const dataset = new N3Store();
    const byClass = new Map<string, RdfjsTerm[]>();
    for (const { s, p, o } of rows) {
      if (!s || !p || !o || p.termType !== 'NamedNode' || s.termType === 'Literal') continue;
      const subject = toRdfjs(s) as ReturnType<typeof namedNode>;
      dataset.addQuad(quad(subject, namedNode(p.value), toRdfjs(o)));
      if (p.value === SH('targetClass')) byClass.set(o.value, [...(byClass.get(o.value) ?? []), subject]);
    }
    const validator = dataset.size > 0 ? new SHACLValidator(dataset) : undefined;
    return new WriteShapes(validator, byClass);
  }

  /**
   * Checks the focus node of a write. `paths`, when given, limits the check to those
   * properties (a commit only changes the properties it names; the rest were valid before).
   */
  async check(tbox: Tbox, intent: WriteIntent, paths?: ReadonlySet<string>): Promise<void> {
    if (!this.validator) return;
    const closure = tbox.closure(intent.classes);
    const shapes = [...closure].flatMap((c) => this.byClass.get(c) ?? []);
    if (shapes.length === 0) return;
    const data = this.dataGraph(intent, closure);
    const focus = namedNode(intent.focus);
    for (const shape of shapes) {
      this.validator.validationEngine = this.validator.validationEngine.clone();
      const report = await this.validator.validateNode(data, focus, shape);
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

  private dataGraph(intent: WriteIntent, closure: Set<string>): N3Store {
    const data = new N3Store();
    const focus = namedNode(intent.focus);
    for (const c of closure) data.addQuad(quad(focus, namedNode(RDF('type')), namedNode(c)));
    for (const [p, terms] of intent.values) for (const t of terms) data.addQuad(quad(focus, namedNode(p), toRdfjs(t)));
    return data;
  }
}
