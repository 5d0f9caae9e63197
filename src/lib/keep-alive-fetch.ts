/**
 * The part of `fetch` the middleware uses (trigger delivery, the twin probe), on a
 * {@link KeepAliveClient}: its default transport, at about a quarter of the CPU of Node's
 * `fetch` per request. The answer's body is the Node stream itself, read by `text()` or iterated as
 * chunks (the trigger's outcome channel); no web stream is made.
 *
 * No limit on connections per receiver: a caller waiting for an outcome keeps its trigger's
 * connection open until the outcome comes, so a limit would hold other triggers to the same
 * receiver back behind the waiters. HTTPS trusts what Node trusts (its CA store and
 * NODE_EXTRA_CA_CERTS). Redirects are not followed; a 3xx answer is returned as it is.
 */
import { LIMITS } from '../limits.js';
import { KeepAliveClient, type HttpAnswer } from './keep-alive-client.js';
import { readLimited } from './read-limited.js';

/** What {@link KeepAliveFetch} resolves with: the fields of a fetch `Response` the middleware reads. */
export interface KeepAliveResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** The body as chunks, for a caller that reads it as it comes; read it or `text()`, not both. */
  readonly body: AsyncIterable<Uint8Array>;
  /**
   * The body as UTF-8 text, at most {@link LIMITS.httpBodyLimitBytes} of it (the answers read
   * here are small JSON documents).
   * @throws when it is longer, or when the connection fails or the signal aborts before its end.
   */
  text(): Promise<string>;
}

/** A fetch-like function on kept-alive connections; `close()` waits for its requests, then closes them. */
export interface KeepAliveFetch {
  (
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal; idempotent?: boolean },
  ): Promise<KeepAliveResponse>;
  close(): Promise<void>;
}

/**
 * A fetch of its own connections, for one owner to close.
 * @example const send = createKeepAliveFetch(); await send(url, { method: 'GET', headers: {}, signal }); await send.close();
 */
export function createKeepAliveFetch(): KeepAliveFetch {
  const client = new KeepAliveClient();
  const send = async (...[url, init]: Parameters<KeepAliveFetch>): Promise<KeepAliveResponse> => {
    const { method, headers, body, signal, idempotent } = init;
    const request = { method, headers, ...(body !== undefined && { body }), signal, ...(idempotent === true && { idempotent }) };
    const answer = await client.send(client.target(url), request);
    return new Answer(answer);
  };
  return Object.assign(send, { close: () => client.close() });
}

class Answer implements KeepAliveResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: AsyncIterable<Uint8Array>;

  constructor(private readonly answer: HttpAnswer) {
    this.status = answer.statusCode;
    this.ok = this.status >= 200 && this.status <= 299;
    this.headers = { get: (name) => headerValue(answer.headers[name.toLowerCase()]) };
    this.body = answer.body;
  }

  async text(): Promise<string> {
    const { bytes, complete } = await readLimited(this.answer, LIMITS.httpBodyLimitBytes);
    if (!complete) throw new RangeError(`the answer is longer than ${LIMITS.httpBodyLimitBytes} bytes (LIMITS.httpBodyLimitBytes)`);
    return bytes.toString('utf8');
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
