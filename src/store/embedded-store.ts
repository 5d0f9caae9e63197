import { randomUUID } from 'node:crypto';
import { namedNode, quad, Store, type NamedNode, type Quad } from 'oxigraph';
import { SemanticMiddlewareError, StoreError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { Journal } from './journal.js';
import type { JournalEntry } from './journal-format.js';
import { documentNQuads } from './rdf-document.js';
import { parseAskJson, parseSelectJson } from './sparql-json.js';
import { withInsertedQuads } from './sparql-server-scan.js';
import { withWasmHeadroom } from './wasm-headroom.js';
import { stderrLogger, type StoreLogger } from './store-logger.js';
import { sparqlIri } from './terms.js';
import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from './triple-store.js';

export type { StoreLogger } from './store-logger.js';

/** Options of {@link openEmbeddedStore}. */
export interface EmbeddedStoreOptions {
  /**
   * Directory that makes the store durable (snapshot + journal, created if missing, locked
   * against a second process). Without it the store lives in memory only and keeps nothing.
   */
  dataDir?: string;
  /** Receives recovery warnings and compaction notes; default: warnings and errors to stderr. */
  logger?: StoreLogger;
  /** Journal size that triggers compaction; default `LIMITS.journalCompactBytes`. */
  compactAfterBytes?: number;
}

const NQUADS = 'application/n-quads';

/**
 * The dataset a query served by {@link EmbeddedStore.queryResults} runs on: `'union'` makes the
 * default graph the union of every graph (as GraphDB, Virtuoso and Fuseki with
 * `unionDefaultGraph` serve it); explicit lists are the SPARQL 1.1 Protocol's
 * `default-graph-uri` and `named-graph-uri`; `'query'` leaves the dataset to the query (its
 * FROM and FROM NAMED clauses).
 */
export type QueryDataset = 'union' | 'query' | { defaultGraphs: readonly string[]; namedGraphs: readonly string[] };

/** Options of {@link EmbeddedStore.queryResults}. */
export interface QueryResultsOptions {
  /** The media type of the answer: a SPARQL results format, or an RDF format for CONSTRUCT and DESCRIBE. */
  format: string;
  dataset: QueryDataset;
}
// JSON results instead of term objects: the objects hold WASM memory that is freed only on a
// later event-loop turn, and a loop of queries that never yields slows down badly (DESIGN.md 1).
const JSON_RESULTS = { results_format: 'application/sparql-results+json' } as const;

/**
 * Opens the embedded store: Oxigraph (WASM) in this process, the product's default store.
 *
 * Every Oxigraph call is synchronous and nothing awaits between a check and its write, so a
 * conditional update is atomic among all callers in the process. With a `dataDir` each write is
 * applied in memory, then journalled and fsync'd before its promise resolves; a crash loses at
 * most the writes whose promises had not resolved. Memory is updated first (so that a failed
 * update never reaches the journal), but no answer leaves the store before every write it may
 * have seen is on disk: a reader never acts on a write that a crash would lose. After a failed
 * journal write memory is ahead of disk, and every request is refused until the store is reopened.
 *
 * Replay re-runs the journalled SPARQL Update text, so updates must be deterministic: write
 * timestamps and identifiers as literals, not `NOW()`, `UUID()` or `RAND()` (the product does).
 *
 * @example
 * const store = await openEmbeddedStore({ dataDir: '/var/lib/semantic-sidecar' });
 * await store.update('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "o" } }');
 * await store.close();
 */
export async function openEmbeddedStore(options: EmbeddedStoreOptions = {}): Promise<EmbeddedStore> {
  return EmbeddedStore.open(options);
}

/** The embedded Oxigraph store; see {@link openEmbeddedStore}. */
export class EmbeddedStore implements TripleStore {
  readonly description: string;
  /** Oxigraph follows SPARQL 1.1 here; see {@link TripleStore.deletesWithUnboundVariables}. */
  readonly deletesWithUnboundVariables = true;
  private count = 0;
  private closed = false;
  // Journal writes not yet on disk, in any order (a large load's snapshot may finish after later entries).
  private readonly pendingSync = new Set<Promise<void>>();
  // A quad no data holds (its IRI is random), which a conditional update inserts along with its
  // own changes: present afterwards exactly when the update's WHERE had a solution. Replaced
  // after LIMITS.witnessUses applied updates, since Oxigraph keeps each of its versions.
  private witness = newWitness();

  private constructor(
    private readonly store: Store,
    private readonly journal: Journal | undefined,
    dataDir: string | undefined,
  ) {
    this.description = dataDir === undefined ? 'embedded store (memory)' : `embedded store at ${dataDir}`;
  }

  /** Use {@link openEmbeddedStore}. */
  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const store = new Store();
    if (options.dataDir === undefined) return new EmbeddedStore(store, undefined, undefined);
    const journal = await Journal.open({
      dir: options.dataDir,
      logger: options.logger ?? stderrLogger,
      compactAfterBytes: options.compactAfterBytes ?? LIMITS.journalCompactBytes,
      target: {
        loadSnapshot: (nquads) => withWasmHeadroom(() => store.load(nquads, { format: NQUADS })),
        replay: (entry) => withWasmHeadroom(() => applyEntry(store, entry)),
        dump: () => store.dump({ format: NQUADS }),
      },
    });
    return new EmbeddedStore(store, journal, options.dataDir);
  }

  get requestCount(): number {
    return this.count;
  }

  async select(query: string): Promise<Bindings[]> {
    const json = this.run(() => this.queryJson(query));
    await this.durable();
    return parseSelectJson(json, this.description);
  }

  async ask(query: string): Promise<boolean> {
    const answer = this.run(() => this.askNow(query));
    await this.durable();
    return answer;
  }

  /**
   * The answer to `query` serialized as `options.format`, evaluated on `options.dataset`: what
   * `store serve` answers a SPARQL 1.1 Protocol query with, in any form (CONSTRUCT and DESCRIBE
   * too).
   */
  async queryResults(query: string, options: QueryResultsOptions): Promise<string> {
    const answer = this.run(() => this.store.query(query, { results_format: options.format, ...datasetOptions(options.dataset) }));
    await this.durable();
    return answer as string;
  }

  async update(update: string): Promise<void> {
    this.run(() => this.applyUpdate(update));
    this.unsynced(this.journal?.record({ op: 'update', sparql: update }));
    await this.durable();
  }

  /**
   * Runs `update` and tells whether its WHERE matched, atomically within this process (no await
   * between check and write), one request. A condition that does not hold writes and journals
   * nothing. A DELETE/INSERT ... WHERE update runs with the store's witness quad added to its
   * INSERT template and the witness is read and removed at once: one evaluation of the WHERE
   * instead of two (`check.before` as an ASK, then the update), which took 170-200 µs each for
   * a claim or a terminal write. Other forms run `check.before` first. The journal records
   * `update` as given.
   */
  async conditionalUpdate(update: string, check: ConditionalUpdateCheck): Promise<boolean> {
    const witnessed = withInsertedQuads(update, this.witness.text);
    const applies = this.run(() => {
      if (witnessed !== undefined && this.witnessedUpdate(update, witnessed)) return this.takeWitness();
      if (!this.askNow(check.before)) return false;
      this.applyUpdate(update);
      return true;
    });
    // A check that failed has seen the state too: its answer waits for that state to be durable.
    if (applies) this.unsynced(this.journal?.record({ op: 'update', sparql: update }));
    await this.durable();
    return applies;
  }

  /**
   * Parses the document into a scratch store first, so a syntax error leaves the store as it
   * was, then adds its triples to `options.graph` and journals them as N-Quads. A document too
   * large for one journal entry is made durable by a snapshot instead.
   */
  async load(document: string, options: LoadOptions): Promise<void> {
    const { nquads, triples } = this.run(() => {
      const parsed = documentNQuads(document, options);
      this.store.load(parsed.nquads, { format: NQUADS });
      return parsed;
    });
    if (this.journal) {
      this.unsynced(
        Buffer.byteLength(nquads) <= LIMITS.maxJournalEntryBytes
          ? this.journal.record({ op: 'load', graph: options.graph, nquads })
          : this.journal.snapshot(),
      );
    }
    await this.durable();
    options.onProgress?.(triples);
  }

  /** N-Quads of every graph, or of `options.graph` (each line carrying that graph's name). */
  async dump(options: { graph?: string } = {}): Promise<string> {
    this.assertOpen();
    this.journal?.assertWritable();
    const graph = options.graph;
    let nquads: string;
    if (graph === undefined) nquads = this.store.dump({ format: NQUADS });
    else {
      const name = ` ${sparqlIri(graph)} .\n`;
      const triples = this.guard(() => this.store.dump({ format: NQUADS, from_graph_name: namedNode(graph) }));
      // Oxigraph writes one triple per line ending in " ."; naming the graph keeps it N-Quads of that graph.
      nquads = triples.replace(/ \.\n/gu, () => name);
    }
    await this.durable();
    return nquads;
  }

  /** Flushes the journal, writes a final snapshot and releases the data dir. Repeat calls do nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal?.close();
  }

  // Counts the request, refuses work when closed or when the journal failed (memory then holds
  // writes that are not on disk, for readers too), and wraps Oxigraph's errors so that they
  // name this store.
  private run<T>(work: () => T): T {
    this.assertOpen();
    this.count += 1;
    this.journal?.assertWritable();
    return this.guard(() => withWasmHeadroom(work));
  }

  private unsynced(written: Promise<void> | undefined): void {
    if (written === undefined) return;
    this.pendingSync.add(written);
    const settled = (): void => void this.pendingSync.delete(written);
    written.then(settled, settled);
  }

  /**
   * Resolves once every write applied so far is on disk; rejects with the journal's failure when
   * one of them could not be written. Called right after a request ran, before it answers.
   */
  private async durable(): Promise<void> {
    if (this.pendingSync.size > 0) await Promise.all(this.pendingSync);
  }

  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (cause) {
      if (cause instanceof SemanticMiddlewareError) throw cause; // already ours (a bad IRI, a refused write)
      const message = cause instanceof Error ? cause.message : String(cause);
      throw new StoreError(`${this.description}: ${message}`, this.description, undefined, { cause });
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError(`${this.description} is closed`, this.description);
  }

  private queryJson(query: string): string {
    return this.store.query(query, JSON_RESULTS) as string;
  }

  private askNow(query: string): boolean {
    return parseAskJson(
      this.guard(() => this.queryJson(query)),
      this.description,
    );
  }

  /** Runs `update` as `text` (the same update with more to insert). */
  private applyUpdate(update: string, text = update): void {
    // Checked before applying: a write that could not be journalled must not reach memory.
    if (this.journal && Buffer.byteLength(update) > LIMITS.maxJournalEntryBytes) {
      throw new StoreError(
        `${this.description}: update of ${Buffer.byteLength(update)} bytes exceeds ${LIMITS.maxJournalEntryBytes} (LIMITS.maxJournalEntryBytes); split it`,
        this.description,
      );
    }
    this.store.update(text);
  }

  /**
   * Whether the witness is there (the update applied), removing it; replaces a witness that
   * has served its uses, and its graph, which Oxigraph would otherwise list as an empty graph.
   */
  private takeWitness(): boolean {
    const witness = this.witness;
    if (!this.store.has(witness.quad)) return false;
    this.store.delete(witness.quad);
    witness.uses += 1;
    if (witness.uses >= LIMITS.witnessUses) {
      this.store.update(`DROP SILENT GRAPH ${witness.term}`);
      this.witness = newWitness();
    }
    return true;
  }

  /**
   * Runs `update` as `witnessed`; false, with nothing written, when Oxigraph refuses that text:
   * the caller then runs `update` as given, whose error names the request's own text.
   */
  private witnessedUpdate(update: string, witnessed: string): boolean {
    try {
      this.applyUpdate(update, witnessed);
      return true;
    } catch (error) {
      if (error instanceof SemanticMiddlewareError) throw error;
      return false;
    }
  }
}

interface Witness {
  quad: Quad;
  /** The quad as SPARQL quad-template text. */
  text: string;
  /** Its IRI as a SPARQL term (`<urn:uuid:...>`), which names its graph too. */
  term: string;
  uses: number;
}

function newWitness(): Witness {
  const w = namedNode(`urn:uuid:${randomUUID()}`);
  const term = w.toString();
  return { quad: quad(w, w, w, w), text: `GRAPH ${term} { ${term} ${term} ${term} }`, term, uses: 0 };
}

function datasetOptions(dataset: QueryDataset): {
  use_default_graph_as_union?: boolean;
  default_graph?: NamedNode[];
  named_graphs?: NamedNode[];
} {
  if (dataset === 'union') return { use_default_graph_as_union: true };
  if (dataset === 'query') return {};
  return { default_graph: dataset.defaultGraphs.map((g) => namedNode(g)), named_graphs: dataset.namedGraphs.map((g) => namedNode(g)) };
}

function applyEntry(store: Store, entry: JournalEntry): void {
  if (entry.op === 'update') store.update(entry.sparql);
  else store.load(entry.nquads, { format: NQUADS });
}
