import { namedNode, Store } from 'oxigraph';
import { SemanticMiddlewareError, StoreError } from '../errors.js';
import { assertIri } from '../iri/validate.js';
import { LIMITS } from '../limits.js';
import { Journal } from './journal.js';
import type { JournalEntry } from './journal-format.js';
import { parseAskJson, parseSelectJson } from './sparql-json.js';
import type { StoreLogger } from './store-logger.js';
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
// JSON results instead of term objects: the objects hold WASM memory that is freed only on a
// later event-loop turn, and a loop of queries that never yields slows down badly (DESIGN.md 1).
const JSON_RESULTS = { results_format: 'application/sparql-results+json' } as const;

const stderrLogger: StoreLogger = {
  info: () => undefined,
  warn: (obj, msg) => console.error(`embedded store warning: ${msg}`, obj),
  error: (obj, msg) => console.error(`embedded store error: ${msg}`, obj),
};

/**
 * Opens the embedded store: Oxigraph (WASM) in this process, the product's default store.
 *
 * Every Oxigraph call is synchronous and nothing awaits between a check and its write, so a
 * conditional update is atomic among all callers in the process. With a `dataDir` each write is
 * applied in memory, then journalled and fsync'd before its promise resolves; a crash loses at
 * most the writes whose promises had not resolved. Reads may see a write a moment before it
 * is on disk (memory is updated first, so that a failed update never reaches the journal).
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
        loadSnapshot: (nquads) => store.load(nquads, { format: NQUADS }),
        replay: (entry) => applyEntry(store, entry),
        dump: () => store.dump({ format: NQUADS }),
      },
    });
    return new EmbeddedStore(store, journal, options.dataDir);
  }

  get requestCount(): number {
    return this.count;
  }

  select(query: string): Promise<Bindings[]> {
    return settle(() =>
      parseSelectJson(
        this.run('query', () => this.queryJson(query)),
        this.description,
      ),
    );
  }

  ask(query: string): Promise<boolean> {
    return settle(() => this.run('ask', () => this.askNow(query)));
  }

  async update(update: string): Promise<void> {
    this.run('update', () => this.applyUpdate(update));
    await this.journal?.record({ op: 'update', sparql: update });
  }

  /**
   * Runs `check.before` and, if it holds, `update`, with no await between them: atomic within
   * this process, one request. A condition that does not hold writes and journals nothing.
   */
  async conditionalUpdate(update: string, check: ConditionalUpdateCheck): Promise<boolean> {
    const applies = this.run('update', () => {
      if (!this.askNow(check.before)) return false;
      this.applyUpdate(update);
      return true;
    });
    if (applies) await this.journal?.record({ op: 'update', sparql: update });
    return applies;
  }

  /**
   * Parses the document into a scratch store first, so a syntax error leaves the store as it
   * was, then adds its triples to `options.graph` and journals them as N-Quads. A document too
   * large for one journal entry is made durable by a snapshot instead.
   */
  async load(document: string, options: LoadOptions): Promise<void> {
    const { nquads, triples } = this.run('load', () => {
      const parsed = this.parseDocument(document, options);
      this.store.load(parsed.nquads, { format: NQUADS });
      return parsed;
    });
    if (this.journal) {
      if (Buffer.byteLength(nquads) <= LIMITS.maxJournalEntryBytes) {
        await this.journal.record({ op: 'load', graph: options.graph, nquads });
      } else {
        await this.journal.snapshot();
      }
    }
    options.onProgress?.(triples);
  }

  /** N-Quads of every graph, or of `options.graph` (each line carrying that graph's name). */
  dump(options: { graph?: string } = {}): Promise<string> {
    return settle(() => {
      this.assertOpen();
      const graph = options.graph;
      if (graph === undefined) return this.store.dump({ format: NQUADS });
      const name = ` ${sparqlIri(graph)} .\n`;
      const triples = this.guard(() => this.store.dump({ format: NQUADS, from_graph_name: namedNode(graph) }));
      // Oxigraph writes one triple per line ending in " ."; naming the graph keeps it N-Quads of that graph.
      return triples.replace(/ \.\n/gu, () => name);
    });
  }

  /** Flushes the journal, writes a final snapshot and releases the data dir. Repeat calls do nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal?.close();
  }

  // Counts the request, refuses work when closed or when the journal failed, and wraps
  // Oxigraph's errors so that they name this store.
  private run<T>(kind: 'query' | 'ask' | 'update' | 'load', work: () => T): T {
    this.assertOpen();
    this.count += 1;
    if (kind === 'update' || kind === 'load') this.journal?.assertWritable();
    return this.guard(work);
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

  private applyUpdate(update: string): void {
    // Checked before applying: a write that could not be journalled must not reach memory.
    if (this.journal && Buffer.byteLength(update) > LIMITS.maxJournalEntryBytes) {
      throw new StoreError(
        `${this.description}: update of ${Buffer.byteLength(update)} bytes exceeds ${LIMITS.maxJournalEntryBytes} (LIMITS.maxJournalEntryBytes); split it`,
        this.description,
      );
    }
    this.store.update(update);
  }

  private parseDocument(document: string, options: LoadOptions): { nquads: string; triples: number } {
    const scratch = new Store();
    try {
      scratch.load(document, {
        format: options.format,
        to_graph_name: namedNode(assertIri(options.graph, 'graph')),
        ...(options.baseIri === undefined ? {} : { base_iri: options.baseIri }),
      });
      return { nquads: scratch.dump({ format: NQUADS }), triples: scratch.size };
    } finally {
      freeWasm(scratch);
    }
  }
}

/**
 * `fn`'s result as a promise: the engine answers synchronously, and a store's methods reject
 * rather than throw (as an async function would; `Promise.try` once Node 20 is dropped).
 */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => resolve(fn()));
}

function applyEntry(store: Store, entry: JournalEntry): void {
  if (entry.op === 'update') store.update(entry.sparql);
  else store.load(entry.nquads, { format: NQUADS });
}

// wasm-bindgen objects have free(), missing from the typings; without it the scratch store's
// memory waits for the garbage collector's finalizer.
function freeWasm(value: object): void {
  (value as { free?: () => void }).free?.();
}
