import { ValidationError } from '../errors.js';
import { assertIri } from '../iri/validate.js';
import type { Term } from '../store/terms.js';
import type { TripleStore } from '../store/triple-store.js';
import { DEFAULT_DATA_GRAPH, MATCHED_INDIVIDUAL as MATCHED } from '../vocab/defaults.js';
import { w3 } from '../vocab/terms.js';
import { OgmDb } from './db.js';
import { WriteShapes } from './shapes.js';
import { loadTbox, type Tbox } from './tbox.js';
import { TypeCache } from './type-cache.js';
import {
  appliedAsk,
  commitMatchingUpdate,
  commitUpdate,
  createUpdate,
  describeQuery,
  followQuery,
  guardAsk,
  typesQuery,
  type WriteGuard,
} from '../queries/ogm-writes.js';
import type { SparqlFragment } from '../store/sparql.js';
import { checkClasses, checkInputShape, checkMaxCounts, classesOf, resolveRemovals, resolveValues, type WriteIntent } from './validate.js';
import type { ValueInput } from './values.js';

export type PropertyInputs = Readonly<Record<string, ValueInput | readonly ValueInput[]>>;

export interface OgmOptions {
  store: TripleStore;
  /** Graph for reads and writes that name none. */
  graph?: string;
  /** Named graph holding the SHACL shapes checked at write time; none when omitted. */
  shapesGraph?: string;
}

export interface CreateInput {
  iri: string;
  /** The individual's class or classes; each must be declared in the ontology. */
  type: string | readonly string[];
  properties?: PropertyInputs;
  graph?: string;
}

export interface CommitInput {
  iri: string;
  /** Property -> its new values; `[]` removes every value. Other properties are untouched. */
  set: PropertyInputs;
  /** Property -> the values it must hold right now (`[]`: none) for the commit to apply. */
  guard?: PropertyInputs;
  /** Property -> the values of which it must hold exactly one right now for the commit to apply. */
  guardOneOf?: PropertyInputs;
  graph?: string;
}

export interface CommitMatchingInput {
  /**
   * WHERE fragment (built with the `sparql` template, evaluated inside the graph) binding `?s`
   * to every individual to change.
   */
  match: SparqlFragment;
  /**
   * Class every matched individual belongs to; the written values are validated against it.
   * Pure removals (`[]`) are only checked to be declared, so they may clear properties of
   * matched individuals of other classes.
   */
  subjectClass: string;
  /** Property -> the new values of every matched individual; `[]` removes them. */
  set: PropertyInputs;
  graph?: string;
}

/** What a create wrote: the individual, its graph, its classes and its property values as terms. */
export interface WrittenIndividual {
  iri: string;
  graph: string;
  classes: readonly string[];
  values: ReadonlyMap<string, readonly Term[]>;
}

/** Whether a commit applied; false only when its guard did not hold. */
export interface CommitResult {
  applied: boolean;
}

/** An individual as `fetch` returns it. */
export interface Individual {
  iri: string;
  types: string[];
  properties: Record<string, Term[]>;
  /** Nodes reached by each followed chain, keyed by the chain's properties joined with ` / `. */
  linked: Record<string, Individual[]>;
}

// A TBox miss re-reads the ontology at most this often, so hostile input cannot turn every
// request into a TBox query.
const TBOX_REFRESH_MS = 1000;

/**
 * The object-graph mapper: the single validated write path. Every create and commit is checked
 * against the ontology (class declared, property declared, domain, range kind and datatype,
 * maximum cardinalities) and the SHACL shapes before anything is sent, and is exactly one
 * update request.
 */
export class OGM {
  readonly store: TripleStore;
  readonly db: OgmDb;
  readonly graph: string;
  private readonly shapesGraph: string | undefined;
  private tboxPromise: Promise<Tbox> | undefined;
  private shapesPromise: Promise<WriteShapes> | undefined;
  private tboxLoadedAt = 0;
  private readonly types = new TypeCache();

  constructor(options: OgmOptions) {
    this.store = options.store;
    this.graph = assertIri(options.graph ?? DEFAULT_DATA_GRAPH, 'graph');
    this.shapesGraph = options.shapesGraph === undefined ? undefined : assertIri(options.shapesGraph, 'shapesGraph');
    this.db = new OgmDb(this.store, () => this.tbox(), this.graph);
  }

  /** The cached TBox, read from the store on first use. */
  tbox(): Promise<Tbox> {
    if (!this.tboxPromise) {
      this.tboxLoadedAt = Date.now();
      this.tboxPromise = loadTbox(this.store).catch((e: unknown) => {
        this.tboxPromise = undefined;
        throw e;
      });
    }
    return this.tboxPromise;
  }

  /** Forgets the cached TBox and shapes (after the ontology changed). */
  invalidate(): void {
    this.tboxPromise = undefined;
    this.shapesPromise = undefined;
  }

  private shapes(): Promise<WriteShapes> {
    if (!this.shapesPromise) {
      this.shapesPromise = (
        this.shapesGraph ? WriteShapes.load(this.store, this.shapesGraph) : Promise.resolve(WriteShapes.fromRows([]))
      ).catch((e: unknown) => {
        this.shapesPromise = undefined;
        throw e;
      });
    }
    return this.shapesPromise;
  }

  /**
   * Re-reads the TBox after a miss, at most once per {@link TBOX_REFRESH_MS}; returns whether a
   * fresh read will happen.
   */
  refreshAfterMiss(): boolean {
    if (Date.now() - this.tboxLoadedAt < TBOX_REFRESH_MS) return false;
    this.invalidate();
    return true;
  }

  /** Runs a validation against the TBox, re-reading it once if it names something unknown. */
  private async withTbox<T>(fn: (tbox: Tbox) => T): Promise<T> {
    try {
      return fn(await this.tbox());
    } catch (e) {
      const miss = e instanceof ValidationError && /-declared$/u.test(e.details.rule);
      if (!miss || !this.refreshAfterMiss()) throw e;
      return fn(await this.tbox());
    }
  }

  /** Creates a typed individual with its properties in one `INSERT DATA`; returns what it wrote. */
  async create(input: CreateInput): Promise<WrittenIndividual> {
    const { graph, iri, classes, values } = await this.validateCreate(input);
    await this.store.update(createUpdate(graph, iri, classes, values));
    this.types.add(graph, iri, classes);
    return { iri, graph, classes, values };
  }

  /**
   * Validates a create without writing it and returns every triple it would write (types,
   * `owl:NamedIndividual` and properties), so that a caller can later remove exactly those.
   */
  async createTriples(input: CreateInput): Promise<{ graph: string; triples: { subject: string; predicate: string; object: Term }[] }> {
    const { graph, iri, classes, values } = await this.validateCreate(input);
    const triples = [...classes, w3.NamedIndividual].map((c): { subject: string; predicate: string; object: Term } => ({
      subject: iri,
      predicate: w3.type,
      object: { termType: 'NamedNode', value: c },
    }));
    for (const [p, terms] of values) for (const t of terms) triples.push({ subject: iri, predicate: p, object: t });
    return { graph, triples };
  }

  private async validateCreate(
    input: CreateInput,
  ): Promise<{ graph: string; iri: string; classes: string[]; values: Map<string, Term[]> }> {
    checkInputShape(input, 'create input', { optional: ['properties'] });
    const iri = assertIri(input.iri, 'individual IRI');
    const graph = assertIri(input.graph ?? this.graph, 'graph');
    const classes = classesOf(input.type, iri);
    const { tbox, values } = await this.withTbox((tbox) => {
      checkClasses(tbox, iri, classes);
      const values = resolveValues(tbox, iri, classes, input.properties ?? {});
      checkMaxCounts(tbox, { focus: iri, classes, values });
      return { tbox, values };
    });
    await this.checkShapes(tbox, graph, { focus: iri, classes, values });
    return { graph, iri, classes, values };
  }

  /** Forgets what the OGM cached about an individual (after its triples were removed). */
  forget(iri: string, graph = this.graph): void {
    this.types.delete(graph, iri);
  }

  /**
   * Replaces the values of each property in `set`, in one DELETE/INSERT. With a `guard`, the
   * write is a compare-and-set: it applies only if each guarded property holds exactly the
   * expected values, and the result says whether it did.
   */
  async commit(input: CommitInput): Promise<CommitResult> {
    checkInputShape(input, 'commit input', { required: ['set'], optional: ['guard', 'guardOneOf'] });
    const iri = assertIri(input.iri, 'individual IRI');
    const graph = assertIri(input.graph ?? this.graph, 'graph');
    const classes = await this.typesOf(iri, graph);
    const { tbox, set, guard } = await this.withTbox((tbox) => {
      checkClasses(tbox, iri, classes);
      const set = resolveValues(tbox, iri, classes, input.set);
      const exact = resolveValues(tbox, iri, classes, input.guard ?? {});
      const oneOf = resolveValues(tbox, iri, classes, input.guardOneOf ?? {});
      checkMaxCounts(tbox, { focus: iri, classes, values: set });
      // The classes validated against are guarded too: they may have come from a cache filled
      // by a caller's own read or message, and a compare-and-set must not apply to anything else.
      const guard: WriteGuard | undefined = exact.size + oneOf.size > 0 ? { classes, exact, oneOf } : undefined;
      return { tbox, set, guard };
    });
    await this.checkShapes(tbox, graph, { focus: iri, classes, values: set }, new Set(set.keys()));
    const update = commitUpdate(graph, iri, set, guard);
    if (!guard) {
      await this.store.update(update);
      return { applied: true };
    }
    // Built when a store reads them: the served and embedded stores and Virtuoso tell from the update itself.
    const applied = await this.store.conditionalUpdate(update, {
      get before() {
        return guardAsk(graph, iri, guard);
      },
      get after() {
        return appliedAsk(graph, iri, set);
      },
    });
    return { applied };
  }

  /**
   * Replaces property values on every individual `match` binds to `?s`, in one request: the
   * bulk form of {@link commit} for sweeps and deregistration, whose cost must not grow with
   * the number of individuals. Validated against `subjectClass`.
   */
  async commitMatching(input: CommitMatchingInput): Promise<void> {
    checkInputShape(input, 'commitMatching input', { required: ['set'] });
    const graph = assertIri(input.graph ?? this.graph, 'graph');
    const classes = [assertIri(input.subjectClass, 'subjectClass')];
    const { tbox, set } = await this.withTbox((tbox) => {
      checkClasses(tbox, MATCHED, classes);
      const removals = Object.keys(input.set).filter((p) => isRemoval(input.set[p]));
      const writes = Object.fromEntries(Object.entries(input.set).filter(([p]) => !removals.includes(p)));
      const set = new Map([...resolveValues(tbox, MATCHED, classes, writes), ...resolveRemovals(tbox, MATCHED, removals)]);
      checkMaxCounts(tbox, { focus: MATCHED, classes, values: set });
      return { tbox, set };
    });
    await this.checkShapes(tbox, graph, { focus: MATCHED, classes, values: set }, new Set(set.keys()));
    await this.store.update(commitMatchingUpdate(graph, input.match, set, this.store.deletesWithUnboundVariables === true));
  }

  private async checkShapes(tbox: Tbox, graph: string, intent: WriteIntent, paths?: ReadonlySet<string>): Promise<void> {
    const shapes = await this.shapes();
    const objects = shapes.classChecked(intent);
    const objectTypes = new Map<string, string[]>();
    for (const o of objects) objectTypes.set(o, await this.typesOf(o, graph));
    await shapes.check(tbox, intent, paths, objectTypes);
  }

  /**
   * Records the asserted classes of `iri` that a caller's own query already read (one that joined
   * `rdf:type` for another purpose), so the next write's validation does not ask the store.
   */
  rememberTypes(iri: string, classes: readonly string[], graph = this.graph): void {
    const known = classes.filter((c) => c !== w3.NamedIndividual);
    if (known.length > 0) this.types.add(graph, iri, known);
  }

  /** The individual's asserted classes in `graph` (cached; types are never rewritten). */
  async typesOf(iri: string, graph = this.graph): Promise<string[]> {
    const cached = this.types.get(graph, iri);
    if (cached) return cached;
    const rows = await this.store.select(typesQuery(graph, iri));
    const classes = rows.map((r) => r.t?.value).filter((t): t is string => !!t && t !== w3.NamedIndividual);
    if (classes.length > 0) this.types.add(graph, iri, classes);
    return classes;
  }

  /**
   * Reads an individual's properties, and the properties of every node reached by each chain in
   * `follow`. Returns undefined when the individual has no triples in the graph.
   */
  async fetch(iri: string, options: { graph?: string; follow?: readonly (readonly string[])[] } = {}): Promise<Individual | undefined> {
    const graph = assertIri(options.graph ?? this.graph, 'graph');
    const rows = await this.store.select(describeQuery(graph, assertIri(iri, 'individual IRI')));
    if (rows.length === 0) return undefined;
    const self = individualFrom(
      iri,
      rows.map((r) => [r.p!, r.o!]),
    );
    if (self.types.length > 0) this.types.add(graph, iri, self.types);
    for (const chain of options.follow ?? []) {
      const linked = await this.store.select(followQuery(graph, iri, chain));
      const byNode = new Map<string, [Term, Term][]>();
      for (const r of linked) byNode.set(r.n!.value, [...(byNode.get(r.n!.value) ?? []), [r.p!, r.o!]]);
      self.linked[chain.join(' / ')] = [...byNode].map(([n, pos]) => individualFrom(n, pos));
    }
    return self;
  }
}

function isRemoval(value: ValueInput | readonly ValueInput[] | undefined): boolean {
  return Array.isArray(value) && value.length === 0;
}

function individualFrom(iri: string, pairs: [Term, Term][]): Individual {
  const out: Individual = { iri, types: [], properties: {}, linked: {} };
  for (const [p, o] of pairs) {
    if (p.value === w3.type) {
      if (o.value !== w3.NamedIndividual) out.types.push(o.value);
      continue;
    }
    (out.properties[p.value] ??= []).push(o);
  }
  return out;
}
