/**
 * HTTP(S) requests on kept-alive connections, with Node's own client (`node:http`, `node:https`):
 * what the remote store and trigger delivery send with. Node's global `fetch` (undici) cost
 * 24-29% of the CPU of a dispatched Operation in profiles (web streams, Request and Headers
 * objects, an AbortSignal.timeout per request); this client sends the same store request for
 * 38-41% of its CPU, near a bare `http.request` (`bench/store-client.bench.mjs`), and the HTTP
 * server side has loaded the same code already.
 *
 * One agent per scheme, built on first use: `keepAlive`, LIFO scheduling (the most recently used
 * connection goes first, so a sequential caller keeps one warm connection and the others time
 * out), and idle connections closed after {@link LIMITS.keepAliveIdleMs}.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { LIMITS } from '../limits.js';

/** Options of {@link KeepAliveClient}. */
export interface KeepAliveClientOptions {
  /** Connections open at once per origin; requests past it wait in the agent's queue. Default: no limit. */
  maxSockets?: number;
}

/** Where requests go: a URL resolved once into the options `http.request` takes. */
export interface RequestTarget {
  readonly url: string;
  readonly secure: boolean;
  readonly options: Readonly<RequestOptions>;
}

/** One request to send. */
export interface OutgoingRequest {
  method: string;
  /** Not changed; `content-length` is set from `body`. */
  headers: OutgoingHttpHeaders;
  body?: string;
  /** Time the whole exchange may take, the answer's body included; it then fails with a `TimeoutError`. Default: none. */
  timeoutMs?: number;
  /** Ends the exchange (before or after the answer's head) with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The request may be sent twice (a read). It is then sent again, once, when the kept-alive
   * connection it went out on was reset before any byte of the answer came: a server closes an
   * idle connection whenever it likes, and may do so while the request is being written.
   */
  idempotent?: boolean;
}

/** The error an exchange fails with when its `timeoutMs` ran out. */
export function timeoutError(timeoutMs: number): DOMException {
  return new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError');
}

// What a connection the server closed under the request fails with: "socket hang up" or a reset
// (ECONNRESET), or a write to the closed connection (EPIPE).
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/** See the module's description. */
export class KeepAliveClient {
  #http: HttpAgent | undefined;
  #https: HttpsAgent | undefined;
  #closing: Promise<void> | undefined;
  /** Exchanges not finished yet (answer body included), and what close() waits on while there are some. */
  #inFlight = 0;
  #drained: (() => void) | undefined;

  constructor(private readonly options: KeepAliveClientOptions = {}) {}

  /**
   * Resolves `url` (http or https, without credentials) once, for {@link send}.
   * @throws TypeError for a URL of another scheme.
   */
  target(url: string): RequestTarget {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${parsed.protocol}`);
    const secure = parsed.protocol === 'https:';
    const { protocol, hostname, port, path } = urlToHttpOptions(parsed);
    const options: RequestOptions = { protocol, hostname, path, agent: secure ? this.httpsAgent() : this.httpAgent() };
    if (port !== undefined && port !== '') options.port = port;
    return { url: parsed.href, secure, options };
  }

  /**
   * Sends `request` to `target`; resolves with the answer once its head has come. Its body must
   * be read to the end (or destroyed): until then the exchange is in flight, its timer runs and
   * its connection is not reused.
   * @throws the connection's error, a `TimeoutError`, or the signal's reason.
   */
  send(target: RequestTarget, request: OutgoingRequest): Promise<IncomingMessage> {
    if (this.#closing) return Promise.reject(new Error(`this client is closed; ${request.method} ${target.url} was not sent`));
    this.#inFlight += 1;
    return exchange(target, request, () => {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#drained?.();
    });
  }

  /** Waits for the exchanges in flight, then closes every connection; later sends are refused. */
  close(): Promise<void> {
    this.#closing ??= this.closeOnce();
    return this.#closing;
  }

  private async closeOnce(): Promise<void> {
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    this.#http?.destroy();
    this.#https?.destroy();
  }

  private httpAgent(): HttpAgent {
    return (this.#http ??= new HttpAgent(this.agentOptions()));
  }

  private httpsAgent(): HttpsAgent {
    return (this.#https ??= new HttpsAgent(this.agentOptions()));
  }

  private agentOptions() {
    const { maxSockets } = this.options;
    return {
      keepAlive: true,
      timeout: LIMITS.keepAliveIdleMs,
      scheduling: 'lifo' as const,
      ...(maxSockets !== undefined && { maxSockets }),
    };
  }
}

/** One exchange: the request, sent again once after a reset when it may be, under one timer. */
function exchange(target: RequestTarget, request: OutgoingRequest, finish: () => void): Promise<IncomingMessage> {
  const { signal, timeoutMs } = request;
  return new Promise((resolve, reject) => {
    let current: ClientRequest | undefined;
    let answer: IncomingMessage | undefined;
    let ended = false;
    // Cuts whatever is being waited for, the head or the body: that part fails with `reason`.
    const cut = (reason: Error): void => void (answer ? answer.destroy(reason) : current?.destroy(reason));
    const onAbort = (): void => cut(signal!.reason as Error);
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => cut(timeoutError(timeoutMs)), timeoutMs);
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
    const fail = (error: Error): void => {
      end();
      reject(error);
    };
    if (signal?.aborted) return fail(signal.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });

    const attempt = (mayResend: boolean): void => {
      const options = Object.assign({}, target.options, { method: request.method, headers: request.headers });
      const req = (current = (target.secure ? httpsRequest : httpRequest)(options));
      let socket: Socket | undefined;
      let bytesBefore = 0;
      req.once('socket', (s: Socket) => {
        socket = s;
        bytesBefore = s.bytesRead;
      });
      req.once('response', (res: IncomingMessage) => {
        answer = res;
        res.once('close', end);
        resolve(res);
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // After the head, the error is the body's: its reader gets it from the response.
        if (answer || ended) return;
        const reset = req.reusedSocket && RESET_CODES.has(error.code ?? '') && (socket?.bytesRead ?? 0) === bytesBefore;
        if (mayResend && reset) {
          // The server closed a kept-alive connection (it stopped, restarted or timed them out):
          // its other idle ones are as dead, so the request goes again on a new connection.
          dropIdleConnections(target.options);
          attempt(false);
        } else fail(error);
      });
      if (request.body !== undefined) req.setHeader('content-length', Buffer.byteLength(request.body));
      req.end(request.body);
    };
    attempt(request.idempotent === true);
  });
}

/**
 * Destroys the agent's idle connections to the host and port of `options` (the agent skips
 * destroyed ones). Its pools are named `host:port:...`, the rest naming TLS options, if any.
 */
function dropIdleConnections(options: RequestOptions): void {
  const { agent } = options;
  if (!(agent instanceof HttpAgent)) return;
  const origin = `${options.hostname}:${options.port ?? (options.protocol === 'https:' ? 443 : 80)}:`;
  for (const [name, sockets] of Object.entries(agent.freeSockets)) {
    if (name.startsWith(origin)) for (const socket of sockets ?? []) socket.destroy();
  }
}

/** A body read up to a limit. */
export interface LimitedBody {
  /** The body; when it was longer than the limit, only its start (enough to quote it). */
  bytes: Buffer;
  /** False when the body was longer than the limit; the rest was not read. */
  complete: boolean;
}

/**
 * Reads `answer`'s body, at most `maxBytes` of it. A longer body is refused from its
 * `content-length` when it declares one, else cut once the limit is passed; either way the
 * connection is closed rather than read to the end.
 * @throws the body's error (a reset, the exchange's timeout or abort).
 */
export function readLimited(answer: IncomingMessage, maxBytes: number): Promise<LimitedBody> {
  return new Promise((resolve, reject) => {
    const stop = (bytes: Buffer): void => {
      // A destroyed body may still emit an error; unheard, it would be an uncaught exception.
      answer.on('error', () => undefined);
      answer.destroy();
      resolve({ bytes, complete: false });
    };
    if (Number(answer.headers['content-length']) > maxBytes) return stop(Buffer.alloc(0));
    const chunks: Buffer[] = [];
    let length = 0;
    answer.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length <= maxBytes) chunks.push(chunk);
      else {
        answer.removeAllListeners('data');
        stop(chunks[0] ?? chunk.subarray(0, maxBytes));
      }
    });
    answer.once('end', () => resolve({ bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), complete: true }));
    answer.once('error', reject);
  });
}
