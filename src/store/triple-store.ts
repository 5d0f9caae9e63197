import type { Term } from './terms.js';

/** One solution of a SELECT: variable name (without `?`) to bound term. */
export type Bindings = Record<string, Term>;

/** RDF document formats `load` accepts. */
export type RdfFormat = 'text/turtle' | 'application/n-triples' | 'application/n-quads' | 'application/trig';

export interface LoadOptions {
  /** Named graph the document's triples go into. */
  graph: string;
  format: RdfFormat;
  baseIri?: string;
  /** Called as triples are written, for progress bars on large files. */
  onProgress?: (written: number) => void;
}

/**
 * The store seam. Every graph read and write of the product goes through one of these.
 * Implementations: the embedded Oxigraph store and a remote SPARQL 1.1 Protocol endpoint.
 *
 * All query and update text given here is built by the term serializer (`store/terms.ts`);
 * implementations never see raw user input.
 */
export interface TripleStore {
  /** Where the data lives, for logs and errors; never contains credentials. */
  readonly description: string;
  /**
   * Requests made so far (a query, an update, a conditional update each count one). A request
   * the store rolled back as a deadlock victim and that was sent again counts once here and once
   * in `retriedRequests`: this figure is the code path's cost, not the store's contention.
   */
  readonly requestCount: number;
  /** Requests sent again after the store rolled them back (remote stores only). */
  readonly retriedRequests?: number;
  /**
   * Requests that failed (no answer, or an error answer) so far (remote stores only). A
   * sidecar compares it between heartbeats to notice that its store link was down meanwhile.
   */
  readonly failedRequests?: number;
  /**
   * True when the store applies a DELETE/INSERT solution whose DELETE template has unbound
   * variables (as SPARQL 1.1 says: only the triples with unbound variables are skipped). Virtuoso
   * drops the whole solution instead, so updates that replace possibly missing values must then
   * bind every template variable. Unknown stores are assumed not to.
   */
  readonly deletesWithUnboundVariables?: boolean;
  /**
   * True when a query may see part of an update that commits while the query runs: Virtuoso's
   * reads take no locks (see `virtuoso-reads.ts`) and read each row's last committed version
   * when they reach it, so a row they reach before the commit and one after it can both be
   * read. A reader that must see a write whole reads twice. Unknown stores are assumed not to.
   */
  readonly readsMayTear?: boolean;

  select(query: string): Promise<Bindings[]>;
  ask(query: string): Promise<boolean>;
  /** Runs one SPARQL Update request. Callers send one operation per request (no `;` chains). */
  update(update: string): Promise<void>;
  /**
   * Runs `update`, whose WHERE clause must itself carry `condition`, and reports whether the
   * condition held when the update ran (that is, whether it applied). One round trip where the
   * store can tell; see each implementation for how it tells.
   */
  conditionalUpdate(update: string, condition: ConditionalUpdateCheck): Promise<boolean>;
  /** Adds an RDF document's triples to a named graph. */
  load(document: string, options: LoadOptions): Promise<void>;
  /** N-Quads of one named graph (or of every graph), for backups and tests. */
  dump(options?: { graph?: string }): Promise<string>;
  close(): Promise<void>;
}

/**
 * How a store tells whether a conditional update applied.
 * - `before`: an ASK that holds exactly when the update's WHERE matches; stores that can run it
 *   atomically with the update (the embedded store) use it.
 * - `after`: an ASK that holds once the update has applied (its new values are present); stores
 *   that cannot report changes use it after the update, which is exact unless another writer
 *   wrote the same values in between.
 */
export interface ConditionalUpdateCheck {
  before: string;
  after: string;
}
