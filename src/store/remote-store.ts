import { DataFactory, Parser, Writer, type Quad, type Term as N3Term } from 'n3';
import SimpleClient from 'sparql-http-client/SimpleClient.js';
import { RuntimeError, StoreError, ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { parseAskJson, parseSelectJson } from './sparql-json.js';
import { sparqlIri, sparqlLiteral, type Term } from './terms.js';
import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from './triple-store.js';

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
  /** The transport; default the global `fetch`. Injected by tests and by callers that need a proxy. */
  fetch?: typeof fetch;
}

/** A {@link TripleStore} on a SPARQL 1.1 Protocol endpoint. */
export interface RemoteStore extends TripleStore {
  /** The query endpoint, credentials stripped. */
  readonly queryUrl: string;
  /** The update endpoint, credentials stripped. */
  readonly updateUrl: string;
}

const JSON_RESULTS = 'application/sparql-results+json';
const DEADLOCK = /\b40001\b|deadlock/iu;

/**
 * Graphs every Virtuoso holds for itself (its RDF views, LDP and endpoint descriptions);
 * `dump()` without a graph leaves them out. Other stores do not have them, so the filter is harmless there.
 */
const SYSTEM_GRAPHS = [
  'http://www.openlinksw.com/schemas/virtrdf#',
  'http://www.w3.org/ns/ldp#',
  'http://localuriqaserver/sparql',
];

/**
 * Opens a store on any SPARQL 1.1 Protocol endpoint (GraphDB, Fuseki, Virtuoso, Oxigraph server,
 * ...) through `sparql-http-client`'s `SimpleClient`. Nothing is sent until the first call.
 *
 * Protocol choices, each forced by a store measured here (Virtuoso 7.2.5):
 * - queries and updates are POSTed form-encoded (`query=` / `update=`): a POST with
 *   `application/sparql-query` hangs on Virtuoso;
 * - results are asked for as `application/sparql-results+json`; Virtuoso answers an ASK with a
 *   one-column result set (`__ASK_RETVAL`, one row when true, none when false) instead of
 *   `{"boolean": ...}`, and both shapes are read;
 * - every request gets its own timeout (`AbortSignal.timeout`) covering the body too.
 *
 * Errors are {@link StoreError}s naming the endpoint (credentials stripped), the HTTP status and
 * the start of the body. Credentials never appear in `description`, in errors or in logs.
 *
 * @example
 * const store = openRemoteStore({ queryUrl: 'http://127.0.0.1:8890/sparql', user: 'sm', password });
 * const rows = await store.select('SELECT ?s WHERE { GRAPH <urn:g> { ?s ?p ?o } } LIMIT 1');
 */
export function openRemoteStore(options: RemoteStoreOptions): RemoteStore {
  return new RemoteSparqlStore(options);
}

interface Endpoint {
  /** URL sent to, without userinfo. */
  url: string;
  user?: string;
  password?: string;
}

function splitCredentials(raw: string, what: string): Endpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValueError(`${what} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValueError(`${what} must be an http(s) URL, got scheme ${JSON.stringify(url.protocol)}`);
  }
  const user = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.username = '';
  url.password = '';
  return { url: url.toString(), ...(user !== undefined && { user }), ...(password !== undefined && { password }) };
}

class RemoteSparqlStore implements RemoteStore {
  readonly description: string;
  readonly queryUrl: string;
  readonly updateUrl: string;
  private requests = 0;
  private closed = false;
  private readonly client: SimpleClient;
  private readonly timeoutMs: number;
  private readonly chunkTriples: number;
  private readonly secret: string | undefined;

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
    this.secret = password && password.length >= 4 ? password : undefined;
    const send = options.fetch ?? globalThis.fetch;
    this.client = new SimpleClient({
      endpointUrl: this.queryUrl,
      updateUrl: this.updateUrl,
      headers: { accept: JSON_RESULTS },
      ...(user !== undefined && password !== undefined && { user, password }),
      fetch: (input, init) => {
        this.requests += 1;
        return send(input, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
      },
    });
  }

  get requestCount(): number {
    return this.requests;
  }

  async select(query: string): Promise<Bindings[]> {
    return parseSelectJson(await this.exchange(query, false), this.queryUrl);
  }

  async ask(query: string): Promise<boolean> {
    return parseAsk(await this.exchange(query, false), this.queryUrl);
  }

  async update(update: string): Promise<void> {
    await this.exchange(update, true);
  }

  /**
   * Sends `update` and tells whether its WHERE matched, in one request when the store reports
   * what an update did, else in two.
   *
   * Virtuoso answers every update with a one-row result whose text counts the template
   * instantiations: `Modify <g>, delete 1 (or less) and insert 1 (or less) triples -- done`,
   * `Insert into <g>, 0 triples -- nothing to do`, `Delete 2 (or less) quads -- done` (templates
   * over several graphs, one line each). The counts are solutions times template triples, not
   * triples actually changed: a matching WHERE that re-inserts present triples still reports
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
    let quads: Quad[];
    try {
      quads = new Parser({ format: options.format, ...(options.baseIri && { baseIRI: options.baseIri }) }).parse(document);
    } catch (cause) {
      throw new ValueError(`cannot parse the ${options.format} document: ${(cause as Error).message}`, { cause });
    }
    let written = 0;
    for (const chunk of chunkByBlankNodes(quads, this.chunkTriples)) {
      await this.update(insertRequest(graph, chunk));
      written += chunk.length;
      options.onProgress?.(written);
    }
  }

  /**
   * N-Quads of one graph, or of every graph but Virtuoso's own ({@link SYSTEM_GRAPHS}), read in
   * ordered pages of {@link LIMITS.remoteDumpPageRows} rows. Blank nodes are relabelled
   * `_:b0`, `_:b1`, ... (Virtuoso's `nodeID://...` are not valid labels).
   */
  async dump(options: { graph?: string } = {}): Promise<string> {
    const where = options.graph
      ? `GRAPH ${sparqlIri(options.graph)} { ?s ?p ?o } BIND(${sparqlIri(options.graph)} AS ?g)`
      : `GRAPH ?g { ?s ?p ?o } FILTER(?g NOT IN (${SYSTEM_GRAPHS.map(sparqlIri).join(', ')}))`;
    const page = LIMITS.remoteDumpPageRows;
    const labels = new Map<string, string>();
    const quads: Quad[] = [];
    for (let offset = 0; ; offset += page) {
      const rows = await this.select(`SELECT ?g ?s ?p ?o WHERE { ${where} } ORDER BY ?g ?s ?p ?o LIMIT ${page} OFFSET ${offset}`);
      for (const row of rows) quads.push(toQuad(row, labels));
      if (rows.length < page) break;
    }
    return new Writer({ format: 'N-Quads' }).quadsToString(quads);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * One request, sent again when the store rolled it back as a deadlock victim (SQLSTATE 40001,
   * which serializable stores such as Virtuoso with `DefaultIsolation = 8` answer when two
   * compare-and-set updates collide): the whole request was undone, so sending it again is safe.
   */
  private async exchange(text: string, update: boolean): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.exchangeOnce(text, update);
      } catch (error) {
        if (!(error instanceof StoreError) || !DEADLOCK.test(error.message) || attempt >= LIMITS.storeDeadlockRetries) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }

  /** One request; returns the body of a 2xx answer, or throws a StoreError naming the endpoint. */
  private async exchangeOnce(text: string, update: boolean): Promise<string> {
    if (this.closed) throw new RuntimeError(`${this.description} is closed`);
    const endpoint = update ? this.updateUrl : this.queryUrl;
    try {
      const res = await this.client.postUrlencoded(text, { update });
      const body = await res.text();
      if (!res.ok) {
        const message = `${endpoint} answered HTTP ${res.status} ${res.statusText}: ${bodyPreview(body)}`;
        throw new StoreError(this.redact(message), endpoint, res.status);
      }
      return body;
    } catch (cause) {
      if (cause instanceof StoreError) throw cause;
      throw new StoreError(this.redact(this.transportMessage(cause, endpoint)), endpoint, undefined, { cause });
    }
  }

  private transportMessage(cause: unknown, endpoint: string): string {
    const err = cause as Error & { cause?: { message?: string; code?: string } };
    if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
      return `${endpoint} did not answer within ${this.timeoutMs} ms (timeoutMs)`;
    }
    const detail = err?.cause?.message ?? err?.cause?.code ?? err?.message ?? String(cause);
    return `request to ${endpoint} failed: ${detail}`;
  }

  private redact(message: string): string {
    return this.secret ? message.replaceAll(this.secret, '***') : message;
  }
}

function bodyPreview(body: string): string {
  const flat = body.replace(/\s+/gu, ' ').trim();
  if (!flat) return '(empty body)';
  return flat.length > LIMITS.storeErrorBodyPreview ? `${flat.slice(0, LIMITS.storeErrorBodyPreview)}...` : flat;
}

/** Reads an ASK answer in the standard shape or in Virtuoso's `__ASK_RETVAL` result-set shape. */
function parseAsk(text: string, source: string): boolean {
  let doc: { boolean?: unknown; results?: { bindings?: Record<string, { value?: string }>[] } } | undefined;
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    doc = undefined;
  }
  const rows = doc?.results?.bindings;
  if (typeof doc?.boolean !== 'boolean' && Array.isArray(rows)) {
    const value = rows[0]?.['__ASK_RETVAL']?.value;
    return value !== undefined && value !== '0' && value !== 'false';
  }
  return parseAskJson(text, source);
}

// "Modify <g>, delete 1 (or less) and insert 1 (or less) triples -- done": each count is
// followed by "and insert", "triples" or "quads". Digits inside <...> cannot be, as IRIs hold no spaces.
const REPORT_LINE = / -- (?:done|nothing to do)$/u;
const REPORT_COUNT = /\b(\d+)(?: \(or less\))?(?= (?:and insert|triples|quads)\b)/gu;

/**
 * Whether an update applied, from Virtuoso's report text (see `conditionalUpdate`);
 * undefined when the answer is not such a report.
 */
export function updateReport(body: string): boolean | undefined {
  let text: unknown;
  try {
    const doc = JSON.parse(body) as { results?: { bindings?: Record<string, { value?: unknown }>[] } };
    text = doc.results?.bindings?.[0]?.['callret-0']?.value;
  } catch {
    return undefined;
  }
  if (typeof text !== 'string') return undefined;
  const counts: number[] = [];
  for (const line of text.split('\n')) {
    if (!REPORT_LINE.test(line)) return undefined;
    for (const m of line.matchAll(REPORT_COUNT)) counts.push(Number(m[1]));
  }
  return counts.length === 0 ? undefined : counts.some((n) => n > 0);
}

/**
 * Splits triples into requests of at most `size`, keeping every set of triples connected
 * through blank nodes in one request (an oversized set goes alone). Document order otherwise.
 */
export function chunkByBlankNodes(quads: readonly Quad[], size: number): Quad[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    for (let y = x; y !== root; ) {
      const next = parent.get(y)!;
      parent.set(y, root);
      y = next;
    }
    return root;
  };
  const blanks = (q: Quad): string[] => [q.subject, q.object].filter((t) => t.termType === 'BlankNode').map((t) => t.value);
  for (const q of quads) {
    const ids = blanks(q);
    for (const id of ids) if (!parent.has(id)) parent.set(id, id);
    for (const id of ids.slice(1)) parent.set(find(id), find(ids[0]!));
  }
  const units = new Map<string, Quad[]>();
  quads.forEach((q, i) => {
    const ids = blanks(q);
    const key = ids.length ? `_:${find(ids[0]!)}` : `#${i}`;
    const unit = units.get(key);
    if (unit) unit.push(q);
    else units.set(key, [q]);
  });
  const chunks: Quad[][] = [];
  let current: Quad[] = [];
  for (const unit of units.values()) {
    if (current.length > 0 && current.length + unit.length > size) {
      chunks.push(current);
      current = [];
    }
    current.push(...unit);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** One request adding `quads` to `graph` (already `<...>`); see `load` for the blank-node form. */
function insertRequest(graph: string, quads: readonly Quad[]): string {
  const labels = new Map<string, string>();
  const term = (t: N3Term): string => {
    switch (t.termType) {
      case 'NamedNode':
        return sparqlIri(t.value);
      case 'Literal':
        return sparqlLiteral({ value: t.value, datatype: t.datatype.value, language: t.language });
      case 'BlankNode': {
        let label = labels.get(t.value);
        if (!label) labels.set(t.value, (label = `_:b${labels.size}`));
        return label;
      }
      default:
        throw new ValueError(`cannot load a ${t.termType} term into a remote store`);
    }
  };
  const body = quads.map((q) => `${term(q.subject)} ${term(q.predicate)} ${term(q.object)} .`).join('\n');
  return labels.size === 0 ? `INSERT DATA { GRAPH ${graph} {\n${body}\n} }` : `INSERT { GRAPH ${graph} {\n${body}\n} } WHERE {}`;
}

function toQuad(row: Bindings, labels: Map<string, string>): Quad {
  const term = (t: Term | undefined) => {
    if (!t) throw new StoreError('dump: the store answered a row without ?s, ?p, ?o or ?g');
    if (t.termType === 'NamedNode') return DataFactory.namedNode(t.value);
    if (t.termType === 'BlankNode') {
      let label = labels.get(t.value);
      if (!label) labels.set(t.value, (label = `b${labels.size}`));
      return DataFactory.blankNode(label);
    }
    return DataFactory.literal(t.value, t.language || DataFactory.namedNode(t.datatype));
  };
  return DataFactory.quad(
    term(row.s) as Quad['subject'],
    term(row.p) as Quad['predicate'],
    term(row.o) as Quad['object'],
    term(row.g) as Quad['graph'],
  );
}
