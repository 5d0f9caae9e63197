/**
 * The remote store's transport: one SPARQL 1.1 Protocol request, POSTed with `accept:
 * application/sparql-results+json` and basic auth, its answer read up to
 * {@link LIMITS.remoteAnswerMaxBytes} within the request's time. A query goes form-encoded
 * (`query=`: Virtuoso hangs on an `application/sparql-query` body); an update goes as an
 * `application/sparql-update` body, which the protocol requires every service to take and which
 * spares both ends percent-encoding the text. The store above it turns answers into results or
 * {@link StoreError}s.
 *
 * By default requests go out on keep-alive connections of the store's own, on undici's pool
 * ({@link KeepAliveClient}: about a quarter of the CPU of `fetch`, see
 * `bench/store-client.bench.mjs`), at most {@link LIMITS.remoteMaxConcurrentRequests} at once.
 * An injected `fetch` (a test's, a proxy's) is used as given instead, with an
 * `AbortSignal.timeout` per request.
 */
import { KeepAliveClient, type RequestTarget } from '../lib/keep-alive-client.js';
import type { LimitedBody } from '../lib/read-limited.js';
import { ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { UNIX_SOCKET_SCHEME, unixSocketOf } from './remote-endpoint.js';

/** What the store answered. */
export interface StoreAnswer {
  status: number;
  statusText: string;
  /** The body as text; only its start when it was longer than the limit. */
  body: string;
  /** False when the body was longer than {@link LIMITS.remoteAnswerMaxBytes} and was not read to its end. */
  complete: boolean;
  /** The `location` header, which a redirect carries. */
  location?: string;
  /** The `server` header: which store software answered. */
  server?: string;
}

/** Options of {@link openTransport}: endpoints without credentials, the credentials apart. */
export interface TransportOptions {
  queryUrl: string;
  updateUrl: string;
  /** Basic-auth user; sent only together with `password`. */
  user?: string;
  password?: string;
  /** Time one request may take, the answer's body included. */
  timeoutMs: number;
  /** Sent with instead of the store's own connections. */
  fetch?: typeof fetch;
}

/** Sends SPARQL requests to one store. */
export interface StoreTransport {
  /**
   * POSTs `text` as an update (to the update endpoint) or a query. A query, being safe to repeat,
   * is sent again once when the kept-alive connection it went out on was closed before the
   * answer's head was complete; an update never is.
   * @throws the connection's error, or one named `TimeoutError` when `timeoutMs` ran out.
   */
  send(text: string, update: boolean): Promise<StoreAnswer>;
  /** Waits for the requests in flight, then closes the connections. */
  close(): Promise<void>;
}

const JSON_RESULTS = 'application/sparql-results+json';
const FORM = 'application/x-www-form-urlencoded';
// No charset parameter: the media type is UTF-8 by definition, and a store matching the type exactly takes it.
const UPDATE_BODY = 'application/sparql-update';

/** The transport for `options`: the store's own connections, or `options.fetch` when one is given. */
export function openTransport(options: TransportOptions): StoreTransport {
  const { user, password } = options;
  const auth: Record<string, string> =
    user !== undefined && password !== undefined ? { authorization: `Basic ${basicCredentials(user, password)}` } : {};
  const headers: RequestHeaders = {
    query: { accept: JSON_RESULTS, 'content-type': FORM, ...auth },
    update: { accept: JSON_RESULTS, 'content-type': UPDATE_BODY, ...auth },
  };
  if (!options.fetch) return new HttpTransport(options, headers);
  if ([options.queryUrl, options.updateUrl].some((url) => url.startsWith(UNIX_SOCKET_SCHEME)))
    throw new ValueError("an http+unix endpoint is reached on the store's own connections; a given fetch cannot send to a Unix socket");
  return new FetchTransport(options, headers, options.fetch);
}

/** The headers of a query and of an update, each built once. */
interface RequestHeaders {
  query: Record<string, string>;
  update: Record<string, string>;
}

/** The credentials of a basic-auth header, as sent (and as a store might quote them back). */
export function basicCredentials(user: string, password: string): string {
  return Buffer.from(`${user}:${password}`).toString('base64');
}

/**
 * The request's body: the update's text as it is, a query's form-encoded. A lone surrogate
 * becomes U+FFFD either way, as UTF-8 encoding (and `URLSearchParams`) would make it;
 * `encodeURIComponent` refuses it. It writes a space as `%20` rather than the form's `+`, which
 * every form decoder reads alike.
 */
function bodyOf(text: string, update: boolean): string {
  return update ? text.toWellFormed() : `query=${encodeURIComponent(text.toWellFormed())}`;
}

/** The request target of an endpoint URL: an `http+unix:` one goes to its socket, with its path. */
function targetOf(client: KeepAliveClient, url: string): RequestTarget {
  const parsed = new URL(url);
  const socketPath = unixSocketOf(parsed);
  if (socketPath === undefined) return client.target(url);
  return client.target(`http://localhost${parsed.pathname}${parsed.search}`, { socketPath });
}

class HttpTransport implements StoreTransport {
  // maxSockets matches the store's limiter: a request let through never waits for a connection.
  private readonly client = new KeepAliveClient({ maxSockets: LIMITS.remoteMaxConcurrentRequests });
  private readonly query: RequestTarget;
  private readonly update: RequestTarget;

  constructor(
    private readonly options: TransportOptions,
    private readonly headers: RequestHeaders,
  ) {
    this.query = targetOf(this.client, options.queryUrl);
    this.update = targetOf(this.client, options.updateUrl);
  }

  async send(text: string, update: boolean): Promise<StoreAnswer> {
    const request = {
      method: 'POST',
      headers: update ? this.headers.update : this.headers.query,
      body: bodyOf(text, update),
      timeoutMs: this.options.timeoutMs,
      idempotent: !update,
    };
    const answer = await this.client.sendWhole(update ? this.update : this.query, request, LIMITS.remoteAnswerMaxBytes);
    const location = answer.header('location');
    const server = answer.header('server');
    return {
      status: answer.statusCode,
      statusText: answer.statusMessage,
      body: answer.body.bytes.toString('utf8'),
      complete: answer.body.complete,
      ...(location !== undefined && { location }),
      ...(server !== undefined && { server }),
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

class FetchTransport implements StoreTransport {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly options: TransportOptions,
    private readonly headers: RequestHeaders,
    private readonly fetch: typeof globalThis.fetch,
  ) {}

  send(text: string, update: boolean): Promise<StoreAnswer> {
    const sent = this.sendOnce(text, update);
    const settled = sent.catch(() => undefined).finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
    return sent;
  }

  async close(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  private async sendOnce(text: string, update: boolean): Promise<StoreAnswer> {
    const { queryUrl, updateUrl, timeoutMs } = this.options;
    const res = await this.fetch(update ? updateUrl : queryUrl, {
      method: 'POST',
      headers: update ? this.headers.update : this.headers.query,
      body: bodyOf(text, update),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const { bytes, complete } = await readWebLimited(res, LIMITS.remoteAnswerMaxBytes);
    const location = res.headers.get('location');
    const server = res.headers.get('server');
    return {
      status: res.status,
      statusText: res.statusText,
      body: bytes.toString('utf8'),
      complete,
      ...(location !== null && { location }),
      ...(server !== null && { server }),
    };
  }
}

/** {@link readLimited} for a fetch Response. */
async function readWebLimited(res: Response, maxBytes: number): Promise<LimitedBody> {
  if (Number(res.headers.get('content-length')) > maxBytes) {
    await res.body?.cancel();
    return { bytes: Buffer.alloc(0), complete: false };
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (!res.body) return { bytes: Buffer.alloc(0), complete: true };
  // Leaving the loop early cancels the stream.
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    length += chunk.length;
    if (length > maxBytes) return { bytes: Buffer.concat(chunks.slice(0, 1)), complete: false };
    chunks.push(chunk);
  }
  return { bytes: Buffer.concat(chunks), complete: true };
}
