/**
 * HTTP(S) requests on kept-alive connections, on undici's connection pool (see undici-pool.ts):
 * what the remote store and trigger delivery send with. Node's global `fetch` (undici's too) cost
 * 24-29% of the CPU of a dispatched Operation in profiles (web streams, Request and Headers
 * objects, an AbortSignal.timeout per request); `node:http` about 40% of that; the pool's request
 * API a quarter less again (78-88 against 113-117 µs of the client's CPU for one small store
 * request on loopback, `bench/store-client.bench.mjs`).
 *
 * One pool per origin, built on first use. A pool hands a request to its first idle connection,
 * so a sequential caller keeps one warm connection, and opens another only when all are busy;
 * idle ones close as {@link POOL_OPTIONS} says.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Pool as UndiciPool } from 'undici';
import { Pool, POOL_OPTIONS, RequestCut, requestOn } from './undici-pool.js';
import { exchangeWhole, type WholeAnswer } from './whole-exchange.js';

/** Options of {@link KeepAliveClient}. */
export interface KeepAliveClientOptions {
  /** Connections open at once per origin; requests past it wait their turn. Default: no limit. */
  maxSockets?: number;
}

/** Where requests go: a URL resolved once into its pool and path. */
export interface RequestTarget {
  readonly url: string;
  readonly path: string;
  readonly pool: UndiciPool;
}

/** One request to send. */
export interface OutgoingRequest {
  method: string;
  /** Not changed; `content-length` is set from `body`. */
  headers: Readonly<Record<string, string>>;
  body?: string;
  /** Time the whole exchange may take, the answer's body included; it then fails with a `TimeoutError`. Default: none. */
  timeoutMs?: number;
  /** Ends the exchange (before or after the answer's head) with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The request may be sent twice (a read). It is then sent again, once, when the kept-alive
   * connection it went out on was closed before the answer's head was complete: a server closes
   * an idle connection whenever it likes, and may do so while the request is being written. A
   * request that went out on a new connection is not sent again.
   */
  idempotent?: boolean;
}

/** An answer, once its head came; its body must be read to the end or destroyed. */
export interface HttpAnswer {
  statusCode: number;
  /** The reason phrase of the status line ('' when there was none). */
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** The error an exchange fails with when its `timeoutMs` ran out. */
export function timeoutError(timeoutMs: number): DOMException {
  return new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError');
}

// What a connection the server closed under the request fails with: undici's "other side
// closed", a reset (ECONNRESET), or a write to the closed connection (EPIPE).
const CLOSED_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** See the module's description. */
export class KeepAliveClient {
  readonly #pools = new Map<string, UndiciPool>();
  #closing: Promise<void> | undefined;
  /** Exchanges not finished yet (answer body included), and what close() waits on while there are some. */
  #inFlight = 0;
  #drained: (() => void) | undefined;

  constructor(private readonly options: KeepAliveClientOptions = {}) {}

  /**
   * Resolves `url` (http or https, without credentials) once, for {@link send}; with
   * `socketPath`, the requests go to that Unix socket, `url` giving their path.
   * @throws TypeError for a URL of another scheme.
   */
  target(url: string, { socketPath }: { socketPath?: string } = {}): RequestTarget {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${parsed.protocol}`);
    const key = socketPath === undefined ? parsed.origin : `unix:${socketPath}`;
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      const options = { ...POOL_OPTIONS, connections: this.options.maxSockets ?? null };
      pool = new Pool(parsed.origin, socketPath === undefined ? options : { ...options, socketPath });
      this.#pools.set(key, pool);
    }
    return { url: parsed.href, path: parsed.pathname + parsed.search, pool };
  }

  /**
   * Sends `request` to `target`; resolves with the answer once its head has come. Its body must
   * be read to the end (or destroyed): until then the exchange is in flight, its timer runs and
   * its connection is not reused.
   * @throws the connection's error, a `TimeoutError`, or the signal's reason.
   */
  send(target: RequestTarget, request: OutgoingRequest): Promise<HttpAnswer> {
    return this.#sent(target, request, (cut, end, onHead) =>
      requestOn(target.pool, { ...requestParts(target, request), signal: cut.signal }).then((answer) => {
        onHead();
        answer.body.once('close', end);
        return { statusCode: answer.statusCode, statusMessage: answer.statusText ?? '', headers: answer.headers, body: answer.body };
      }),
    );
  }

  /** One exchange, counted in flight until it ends. */
  #sent<T>(target: RequestTarget, request: OutgoingRequest, attempt: Attempt<T>): Promise<T> {
    if (this.#closing) return Promise.reject(new Error(`this client is closed; ${request.method} ${target.url} was not sent`));
    this.#inFlight += 1;
    return exchange(target, request, attempt, () => {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#drained?.();
    });
  }

  /**
   * Sends `request` to `target` and reads the whole answer, at most `maxBytes` of its body (see
   * {@link exchangeWhole}): for answers used only once all of them came, at less CPU than
   * {@link send} and reading its body.
   * @throws the connection's error, a `TimeoutError`, or the signal's reason.
   */
  sendWhole(target: RequestTarget, request: OutgoingRequest, maxBytes: number): Promise<WholeAnswer> {
    return this.#sent(target, request, (cut, end, onHead) =>
      exchangeWhole(target.pool, { ...requestParts(target, request), cut, onHead }, maxBytes).then((answer) => (end(), answer)),
    );
  }

  /** Waits for the exchanges in flight, then closes every connection; later sends are refused. */
  close(): Promise<void> {
    this.#closing ??= this.closeOnce();
    return this.#closing;
  }

  private async closeOnce(): Promise<void> {
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    await Promise.all([...this.#pools.values()].map((pool) => pool.destroy()));
  }
}

/**
 * Sends the request once, under `cut`; calls `onHead` when the answer's head came (a failure after
 * it is not a closed idle connection) and `end` when the exchange is over (its answer read or dropped).
 */
type Attempt<T> = (cut: RequestCut, end: () => void, onHead: () => void) => Promise<T>;

/** What undici is given of a request, but how it is ended. */
function requestParts(target: RequestTarget, request: OutgoingRequest) {
  return { path: target.path, method: request.method, headers: request.headers, body: request.body ?? null };
}

/** One exchange: the request, sent again once after a closed connection when it may be, under one timer. */
function exchange<T>(target: RequestTarget, request: OutgoingRequest, send: Attempt<T>, finish: () => void): Promise<T> {
  const { signal, timeoutMs } = request;
  if (signal?.aborted) {
    finish();
    return Promise.reject(signal.reason as Error);
  }
  const cut = new RequestCut();
  const onAbort = (): void => cut.cut(signal!.reason as Error);
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => cut.cut(timeoutError(timeoutMs)), timeoutMs);
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    finish();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const attempt = (mayResend: boolean): Promise<T> => {
    // An idle connection of the pool takes the request: one the server may have closed meanwhile.
    const reused = mayResend && target.pool.stats.free > 0;
    let head = false;
    return send(cut, end, () => (head = true)).catch((error: NodeJS.ErrnoException) => {
      // The server closed a kept-alive connection (it stopped, restarted or timed it out) before
      // it answered: the request goes again, on another connection or a new one.
      if (reused && !head && !cut.aborted && CLOSED_CODES.has(error.code ?? '')) return attempt(false);
      end();
      throw error;
    });
  };
  return attempt(request.idempotent === true);
}
