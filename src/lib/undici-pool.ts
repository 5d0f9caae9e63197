/**
 * undici's connection pool and its request API, loaded without the package's index, and the cut
 * of one request. The index loads `fetch`, WebSocket, EventSource, caches and mocks too: about
 * 65 ms and 18 MB in every process that imports it, where the pool and `request` alone take about
 * 17 ms. {@link requestOn} does what the index's `Object.assign(Dispatcher.prototype, api)` gives.
 * These paths are not undici's public API, so package.json pins its exact version, and a test
 * (test/cli/lazy-commands.test.ts) loads them.
 *
 * Why undici's pool rather than `node:http`: it sets a connection up once, where `http.request`
 * builds a ClientRequest, attaches listeners to the socket and takes a parser per request. A
 * proxied device call cost the sidecar 0.089 against 0.152 ms of CPU (11,032 against 7,155
 * requests/s through it, both builds on one bridge, rounds alternated); a store query 131
 * against 189 µs (`bench/store-client.bench.mjs`).
 */
import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import { LIMITS } from '../limits.js';

const load = createRequire(import.meta.url);

/** undici's `Pool`, as its index exports it. */
export const Pool = load('undici/lib/dispatcher/pool.js') as typeof UndiciPool;

/**
 * Options every pool here is built with. `pipelining: 2` pipelines nothing: a request other than
 * HEAD blocks its connection until answered, so the next one goes to another connection. What it
 * changes is reuse: with 1, undici waits a turn of the event loop before it sends on a connection
 * that just answered, so a sequential caller alternated between two connections (and paid for
 * the wait); with 2 it sends on it at once, as Node's agent does. undici's own timeouts are off:
 * each exchange's timer bounds it, and a declared workflow, or a trigger's announced outcome, may
 * take longer than they allow. Idle connections close after the time the server's `Keep-Alive`
 * header gives, else after {@link LIMITS.keepAliveIdleMs}.
 */
export const POOL_OPTIONS = { pipelining: 2, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: LIMITS.keepAliveIdleMs } as const;

type RequestFunction = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
const request = load('undici/lib/api/api-request.js') as RequestFunction;

/**
 * `dispatcher.request(options)`, the method only undici's index attaches: resolves once the
 * answer's head came, with its body as a stream that must be read to its end or destroyed.
 */
export function requestOn(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return request.call(dispatcher, options);
}

/**
 * What ends one request early, given to undici as its `signal` (undici takes an emitter of
 * `abort` as well as an AbortSignal) or to `exchangeWhole` (whole-exchange.ts): lighter than an
 * AbortController per request, and one for every reason to end it (a timer, the caller's signal,
 * a close). Before the answer's head the request fails with {@link reason}; after it, its body
 * does. Either way the connection is closed.
 */
export class RequestCut {
  aborted = false;
  reason: Error | undefined;
  #listener: (() => void) | undefined;

  /** How undici listens; it checks for `on` and listens with `once`, one listener per request. */
  on(_event: 'abort', listener: () => void): void {
    this.#listener = listener;
  }

  once(event: 'abort', listener: () => void): void {
    this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: () => void): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  /** Ends the request with `reason`; only the first cut counts. */
  cut(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#listener?.();
  }

  /** As undici's `signal` option. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
