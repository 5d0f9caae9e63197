import { ValidationError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { Term } from '../store/terms.js';
import type { Bindings, TripleStore } from '../store/triple-store.js';
import { cfc } from '../vocab/terms.js';
import type { Tbox } from './tbox.js';
import { appendUpdate, deleteUpdate, guardedDeleteUpdate, type TripleRow } from '../queries/ogm-writes.js';
import { toTerm, type ValueInput } from './values.js';

/** Properties the spec lets bypass the OGM's replace semantics as atomic multi-valued appends. */
export const APPENDABLE_PROPERTIES: ReadonlySet<string> = new Set([cfc.hasPossessor, cfc.hasCapability]);

/** One triple for the low-level paths. */
export interface TripleInput {
  subject: string;
  predicate: string;
  object: ValueInput;
}

/**
 * The store access module (`ogm.db`): reads, and the spec's low-level writes (the atomic
 * single-triple append of `cfc:hasPossessor` / `cfc:hasCapability`, and the triple deletion used
 * to revert an Operation). Each call is one request.
 */
export class OgmDb {
  constructor(
    readonly store: TripleStore,
    private readonly tbox: () => Promise<Tbox>,
    private readonly defaultGraph: string,
  ) {}

  select(query: string): Promise<Bindings[]> {
    return this.store.select(query);
  }

  ask(query: string): Promise<boolean> {
    return this.store.ask(query);
  }

  /**
   * Appends one triple of an appendable property (never replaces). The property must be one the
   * spec allows on this path, declared in the ontology, with a value of the right kind.
   */
  async append(triple: TripleInput, graph = this.defaultGraph): Promise<void> {
    assertIri(triple.subject, 'subject');
    if (!APPENDABLE_PROPERTIES.has(triple.predicate)) {
      throw new ValidationError(
        `property ${preview(triple.predicate)} may not be appended on the low-level path; write it with ogm.commit (rule: low-level-append)`,
        { focus: triple.subject, property: triple.predicate, rule: 'low-level-append' },
      );
    }
    const info = (await this.tbox()).properties.get(triple.predicate);
    if (!info) {
      throw new ValidationError(`property <${triple.predicate}> is not declared in the ontology (rule: property-declared)`, {
        property: triple.predicate,
        rule: 'property-declared',
      });
    }
    await this.store.update(appendUpdate(assertIri(graph, 'graph'), [[triple.subject, triple.predicate, toTerm(info, triple.object)]]));
  }

  /**
   * Deletes the given triples in one request, only while the `guard` triple is present, and
   * tells whether it applied. A store that cannot report what an update did (any but Virtuoso,
   * `store serve` and the embedded store) is asked afterwards whether the guard is gone, which
   * also holds when it was gone before: then this says true, although nothing was deleted.
   */
  async tripleDeleteIf(
    triples: readonly { subject: string; predicate: string; object: Term }[],
    guard: { subject: string; predicate: string; object: Term },
    graph = this.defaultGraph,
  ): Promise<boolean> {
    const g = assertIri(graph, 'graph');
    const rows = triples.map((t): TripleRow => [assertIri(t.subject, 'subject'), assertIri(t.predicate, 'predicate'), t.object]);
    const held: TripleRow = [assertIri(guard.subject, 'subject'), assertIri(guard.predicate, 'predicate'), guard.object];
    const { update, before, after } = guardedDeleteUpdate(g, rows, held);
    return this.store.conditionalUpdate(update, { before, after });
  }

  /** Deletes the given triples in one `DELETE DATA`; triples that are absent are ignored. */
  async tripleDelete(triples: readonly { subject: string; predicate: string; object: Term }[], graph = this.defaultGraph): Promise<void> {
    if (triples.length === 0) return;
    const rows = triples.map((t): TripleRow => [assertIri(t.subject, 'subject'), assertIri(t.predicate, 'predicate'), t.object]);
    await this.store.update(deleteUpdate(assertIri(graph, 'graph'), rows));
  }
}
