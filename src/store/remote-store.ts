import { Limiter } from '../lib/limiter.js';
import { untrustedCertificateHint } from '../lib/tls-trust.js';
import { RuntimeError, StoreError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { dumpPaged } from './remote-dump.js';
import { chunkByBlankNodes, insertRequest } from './remote-load.js';
import { parseDocument } from './rdf-document.js';
import { splitCredentials } from './remote-endpoint.js';
import { basicCredentials, openTransport, type StoreAnswer, type StoreTransport } from './remote-transport.js';
import { parseAskJson, parseSelectJson } from './sparql-json.js';
import { sparqlIri } from './terms.js';
import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from './triple-store.js';
import { updateReport } from './virtuoso-report.js';
import { isVirtuosoServer, readCommitted } from './virtuoso-reads.js';

// Re-exported for the callers and tests that import them from here.
export { chunkByBlankNodes } from './remote-load.js';
export { updateReport } from './virtuoso-report.js';

/** Options of {@link openRemoteStore}. */
export interface RemoteStoreOptions {
  /** SPARQL 1.1 query endpoint, e.g. `http://127.0.0.1:8890/sparql`. Userinfo in it is taken as credentials and stripped. */
  queryUrl: string;
  /** SPARQL 1.1 update endpoint. Default: `queryUrl`. */
  updateUrl?: string;
  /** Basic-auth user. Sent only when `password` is given too. */
  user?: string;
  password?: string;
  /** Time one request (body included) may take. Default {@link LIMITS.remoteRequestTimeoutMs}. */
  timeoutMs?: number;
  /** Triples per request in {@link TripleStore.load}. Default {@link LIMITS.remoteLoadChunkTriples}. */
  loadChunkTriples?: number;
  /**
   * A `fetch` to send with, for callers that route or observe requests (a proxy, a test). Default:
   * keep-alive connections of the store's own on undici's pool (see remote-transport.ts).
   */
  fetch?: typeof fetch;
}

/** A {@link TripleStore} on a SPARQL 1.1 Protocol endpoint. */
export interface RemoteStore extends TripleStore {
  /** The query endpoint, credentials stripped. */
  readonly queryUrl: string;
  /** The update endpoint, credentials stripped. */
  readonly updateUrl: string;
}

const DEADLOCK = /\b40001\b|deadlock/iu;

/**
 * Opens a store on any SPARQL 1.1 Protocol endpoint (GraphDB, Fuseki, Virtuoso, Oxigraph server,
 * ...) over keep-alive connections of its own (remote-transport.ts). Nothing is sent until the
 * first call.
 *
 * Protocol choices, each forced by a store measured here (Virtuoso 7.2.5):
 * - queries are POSTed form-encoded (`query=`): a POST with `application/sparql-query` hangs on
 *   Virtuoso; updates go as an `application/sparql-update` body, which it takes;
 * - results are asked for as `application/sparql-results+json`; Virtuoso answers an ASK with a
 *   one-column result set (`__ASK_RETVAL`, one row when true, none when false) instead of
 *   `{"boolean": ...}`, and both shapes are read;
 * - every request gets its own timeout covering the body too, and an answer longer than
 *   {@link LIMITS.remoteAnswerMaxBytes} fails the request;
 * - a query (never an update) is sent again once when the kept-alive connection it went out on
 *   was closed before the answer's head was complete: the store may close an idle connection as
 *   it is reused.
 * - once an answer's `Server` header names Virtuoso, queries (not updates) are sent with a
 *   pragma that makes them read without locks: serializable reads of every heartbeat deadlocked
 *   with the heartbeat updates (see `virtuoso-reads.ts`).
 *
 * Errors are {@link StoreError}s naming the endpoint (credentials stripped), the HTTP status and
 * the start of the body. Credentials never appear in `description`, in errors or in logs.
 * `close()` refuses new requests, waits for those in flight, then closes the connections.
 *
 * @example
 * const store = openRemoteStore({ queryUrl: 'http://127.0.0.1:8890/sparql', user: 'sm', password });
 * const rows = await store.select('SELECT ?s WHERE { GRAPH <urn:g> { ?s ?p ?o } } LIMIT 1');
 */
export function openRemoteStore(options: RemoteStoreOptions): RemoteStore {
  return new RemoteSparqlStore(options);
}

class RemoteSparqlStore implements RemoteStore {
  readonly description: string;
  readonly queryUrl: string;
  readonly updateUrl: string;
  private requests = 0;
  private retries = 0;
  private failures = 0;
  private closed = false;
  /** Set once an answer named Virtuoso as its server: queries then read without locks (`virtuoso-reads.ts`). */
  private virtuoso = false;
  /** Keeps this process within the store's connection limit; see LIMITS.remoteMaxConcurrentRequests. */
  private readonly limiter = new Limiter(LIMITS.remoteMaxConcurrentRequests);
  private readonly transport: StoreTransport;
  private readonly timeoutMs: number;
  private readonly chunkTriples: number;
  /** What an error must never quote: the password, and the basic-auth value a store may echo. */
  private readonly secrets: string[] = [];

  constructor(options: RemoteStoreOptions) {
    const query = splitCredentials(options.queryUrl, 'queryUrl');
    const update = splitCredentials(options.updateUrl ?? options.queryUrl, 'updateUrl');
    this.queryUrl = query.url;
    this.updateUrl = update.url;
    const updates = this.updateUrl === this.queryUrl ? '' : ` (updates: ${this.updateUrl})`;
    this.description = `SPARQL endpoint ${this.queryUrl}${updates}`;
    this.timeoutMs = options.timeoutMs ?? LIMITS.remoteRequestTimeoutMs;
    this.chunkTriples = Math.max(1, options.loadChunkTriples ?? LIMITS.remoteLoadChunkTriples);
    const user = options.user ?? query.user ?? update.user;
    const password = options.password ?? query.password ?? update.password;
    // Short "passwords" would blank out ordinary words; those are not worth redacting.
    if (password && password.length >= 4) this.secrets.push(password);
    if (user !== undefined && password !== undefined) this.secrets.push(basicCredentials(user, password));
    this.transport = openTransport({
      queryUrl: this.queryUrl,
      updateUrl: this.updateUrl,
      ...(user !== undefined && { user }),
      ...(password !== undefined && { password }),
      timeoutMs: this.timeoutMs,
      ...(options.fetch && { fetch: options.fetch }),
    });
  }

  get requestCount(): number {
    return this.requests;
  }

  get retriedRequests(): number {
    return this.retries;
  }

  get failedRequests(): number {
    return this.failures;
  }

  /** See {@link TripleStore.readsMayTear}: on Virtuoso, whose queries read without locks. */
  get readsMayTear(): boolean {
    return this.virtuoso;
  }

  async select(query: string): Promise<Bindings[]> {
    return parseSelectJson(await this.exchange(this.readText(query), false), this.queryUrl);
  }

  async ask(query: string): Promise<boolean> {
    return parseAskJson(await this.exchange(this.readText(query), false), this.queryUrl);
  }

  /** A query as sent: on Virtuoso, made to take no read locks (see `virtuoso-reads.ts`). */
  private readText(query: string): string {
    return this.virtuoso ? readCommitted(query) : query;
  }

  async update(update: string): Promise<void> {
    await this.exchange(update, true);
  }

  /**
   * Sends `update` and tells whether its WHERE matched, in one request when the store reports
   * what an update did, else in two.
   *
   * Virtuoso answers every update with a one-row result whose text counts the template
   * instantiations, e.g. `Insert into <g>, 0 triples -- nothing to do` (read by
   * {@link updateReport}). The counts are solutions times template triples, not triples actually changed: a matching WHERE that re-inserts present triples still reports
   * 1, so "some count > 0" is exactly "the condition held". Hence: the update's DELETE or INSERT
   * template must not be empty, and (a Virtuoso quirk) its WHERE must not consist of a lone
   * `FILTER NOT EXISTS`, which Virtuoso ignores.
   *
   * A store whose answer carries no such report (a generic store answers `204 No Content` or an
   * HTML page) gets `condition.after` as a second request: exact unless another writer wrote
   * the same values in between.
   */
  async conditionalUpdate(update: string, condition: ConditionalUpdateCheck): Promise<boolean> {
    const report = updateReport(await this.exchange(update, true));
    return report ?? this.ask(condition.after);
  }

  /**
   * Parses the document with N3 and adds its triples to `options.graph` (graph names inside
   * TriG or N-Quads are not kept: everything goes into that one graph), in requests of at most
   * `loadChunkTriples` triples, calling `onProgress` after each.
   *
   * Blank nodes: SPARQL scopes blank-node labels to one request, and Virtuoso refuses them in
   * `INSERT DATA` ("not allowed in a constant clause"). So the triples are grouped by connected
   * blank nodes, each group goes whole into one request (a group larger than the chunk size goes
   * alone, oversized), and requests holding blank nodes are sent as
   * `INSERT { GRAPH <g> { ... } } WHERE {}`, whose template makes one fresh node per label.
   * Labels are generated here (`_:b0`, `_:b1`, ...); the document's own labels never reach
   * SPARQL text. This keeps real blank nodes (no skolem IRIs), so `owl:unionOf` lists and
   * restrictions look the same as in the embedded store.
   */
  async load(document: string, options: LoadOptions): Promise<void> {
    const graph = sparqlIri(options.graph);
    const quads = parseDocument(document, options);
    let written = 0;
    for (const chunk of chunkByBlankNodes(quads, this.chunkTriples)) {
      await this.update(insertRequest(graph, chunk));
      written += chunk.length;
      options.onProgress?.(written);
    }
  }

  /**
   * N-Quads of one graph, or of every graph but Virtuoso's own (`SYSTEM_GRAPHS` in
   * `remote-dump.ts`), read in ordered pages of {@link LIMITS.remoteDumpPageRows} rows. Blank
   * nodes are relabelled `_:b0`, `_:b1`, ... (Virtuoso's `nodeID://...` are not valid labels).
   */
  async dump(options: { graph?: string } = {}): Promise<string> {
    return dumpPaged((query) => this.select(query), options);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.transport.close();
  }

  /**
   * One request, sent again when the store rolled it back as a deadlock victim (SQLSTATE 40001,
   * which serializable stores such as Virtuoso with `DefaultIsolation = 8` answer when two
   * compare-and-set updates collide): the whole request was undone, so sending it again is safe.
   * Up to {@link LIMITS.storeDeadlockRetries} sends, after growing random waits (`deadlockBackoffMs`).
   */
  private async exchange(text: string, update: boolean): Promise<string> {
    this.requests += 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.limiter.run(() => this.exchangeOnce(text, update));
      } catch (error) {
        const deadlocked = error instanceof StoreError && DEADLOCK.test(error.message);
        if (!deadlocked || attempt >= LIMITS.storeDeadlockRetries) {
          this.failures += 1;
          throw deadlocked && attempt > 1 ? resentInVain(error, attempt) : error;
        }
        this.retries += 1;
        await new Promise((resolve) => setTimeout(resolve, deadlockBackoffMs(attempt)));
      }
    }
  }

  /** One request; returns the body of a 2xx answer, or throws a StoreError naming the endpoint. */
  private async exchangeOnce(text: string, update: boolean): Promise<string> {
    if (this.closed) throw new RuntimeError(`${this.description} is closed`);
    const endpoint = update ? this.updateUrl : this.queryUrl;
    let answer: StoreAnswer;
    try {
      answer = await this.transport.send(text, update);
    } catch (cause) {
      throw new StoreError(this.redact(this.transportMessage(cause, endpoint)), endpoint, undefined, { cause });
    }
    this.virtuoso ||= isVirtuosoServer(answer.server);
    const { status, statusText, body, complete } = answer;
    if (status < 200 || status > 299) {
      const message = `${endpoint} answered HTTP ${status} ${statusText}: ${bodyPreview(body)}${redirectHint(answer)}`;
      throw new StoreError(this.redact(message), endpoint, status);
    }
    if (!complete) {
      const message = `${endpoint} answered more than ${LIMITS.remoteAnswerMaxBytes} bytes (LIMITS.remoteAnswerMaxBytes); the answer was not read`;
      throw new StoreError(message, endpoint, status);
    }
    return body;
  }

  /** Why no answer came: the timeout, or the connection's error with its code. */
  private transportMessage(cause: unknown, endpoint: string): string {
    const err = cause as Error & { code?: unknown; cause?: { message?: string; code?: unknown } };
    if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
      return `${endpoint} did not answer within ${this.timeoutMs} ms (timeoutMs)`;
    }
    // A fetch's error says only "fetch failed"; the reason is in its cause.
    const reason = err?.cause?.message !== undefined ? err.cause : err;
    const message = reason?.message ?? String(cause);
    const code = typeof reason?.code === 'string' ? reason.code : undefined;
    const detail = code && !message.includes(code) ? `${message} (${code})` : message;
    return `request to ${endpoint} failed: ${detail}${untrustedCertificateHint(code, "the store's")}`;
  }

  private redact(message: string): string {
    return this.secrets.reduce((text, secret) => text.replaceAll(secret, '***'), message);
  }
}

/** The wait before resending a deadlock victim for the `attempt`th time: full jitter, doubling. */
function deadlockBackoffMs(attempt: number): number {
  const ceiling = Math.min(LIMITS.storeDeadlockBackoffMs * 2 ** (attempt - 1), LIMITS.storeDeadlockBackoffMaxMs);
  return Math.random() * ceiling;
}

/** The last deadlock's error, saying that it was the last of `attempts`. */
function resentInVain(error: StoreError, attempts: number): StoreError {
  const message = `${error.message} (sent ${attempts} times, rolled back as a deadlock victim each time; LIMITS.storeDeadlockRetries)`;
  return new StoreError(message, error.endpoint, error.httpStatus);
}

function bodyPreview(body: string): string {
  const flat = body.replace(/\s+/gu, ' ').trim();
  if (!flat) return '(empty body)';
  return flat.length > LIMITS.storeErrorBodyPreview ? `${flat.slice(0, LIMITS.storeErrorBodyPreview)}...` : flat;
}

// A redirect is not followed (a POST would be resent elsewhere): the store's URL needs changing.
function redirectHint({ status, location }: StoreAnswer): string {
  return status >= 300 && status < 400 && location ? ` (redirected to ${location}: configure that URL instead)` : '';
}
