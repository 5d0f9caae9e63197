/**
 * One HTTP exchange on an undici dispatcher whose answer is read whole, up to a size limit, and
 * handed over as bytes: for callers that use an answer only once all of it came (a device's
 * reply). Written against undici's handler interface rather than its `request` API, which wraps
 * each answer in an async resource, a parsed header object and a Readable stream, then read
 * by `readLimited`; none of that is made here. The handler methods are the ones undici's
 * own `request` implements (onConnect, onHeaders, onData, onComplete, onError), which its
 * dispatchers take unwrapped; package.json pins undici's exact version.
 */
import type { Dispatcher } from 'undici';
import type { LimitedBody } from './read-limited.js';
import type { RequestCut } from './undici-pool.js';

/** An answer read whole, or up to the limit. */
export interface WholeAnswer {
  readonly statusCode: number;
  /** The reason phrase of the status line ('' when there was none). */
  readonly statusMessage: string;
  /** The value of header `name` (given in lower case), its values joined with `, `; undefined when absent. */
  header(name: string): string | undefined;
  /** The body; `complete` is false when it was longer than the limit (refused from its declared length, or cut). */
  readonly body: LimitedBody;
}

/** What to send: undici's dispatch options, ended early by `cut`. */
export interface WholeRequest {
  readonly method: Dispatcher.HttpMethod;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  readonly cut: RequestCut;
  /** Called when the answer's head came. */
  readonly onHead?: () => void;
}

const EMPTY = Buffer.alloc(0);

/** The header `name` of undici's raw headers (name, value, name, value, ... as Buffers). */
function rawHeader(raw: readonly Buffer[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length !== name.length || key.toString('latin1').toLowerCase() !== name) continue;
    const text = raw[i + 1]!.toString('latin1');
    value = value === undefined ? text : `${value}, ${text}`;
  }
  return value;
}

/** The handler of one exchange: collects the answer and settles the promise once. */
class WholeExchange {
  #abort: ((reason: Error) => void) | undefined;
  #settled = false;
  #statusCode = 0;
  #statusMessage = '';
  #raw: readonly Buffer[] = [];
  readonly #chunks: Buffer[] = [];
  #size = 0;
  // A cut before the request was given a connection settles at once; the request is aborted when it gets one.
  readonly #onCut = (): void => (this.#abort ? this.#abort(this.cut.reason!) : this.#fail(this.cut.reason));

  constructor(
    private readonly cut: RequestCut,
    private readonly maxBytes: number,
    private readonly onHead: (() => void) | undefined,
    private readonly resolve: (answer: WholeAnswer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    cut.on('abort', this.#onCut);
  }

  onConnect(abort: (reason: Error) => void): void {
    if (this.cut.aborted) return abort(this.cut.reason!);
    this.#abort = abort;
  }

  onHeaders(statusCode: number, raw: Buffer[], _resume: unknown, statusMessage: string | undefined): boolean {
    if (statusCode < 200) return true; // an informational answer; the real one follows
    this.#statusCode = statusCode;
    this.#statusMessage = statusMessage ?? '';
    this.#raw = raw;
    this.onHead?.();
    // Refused from its declared length, never transferred: the connection is closed instead.
    if (Number(rawHeader(raw, 'content-length')) > this.maxBytes) this.#endEarly(EMPTY);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return false;
    const room = this.maxBytes - this.#size;
    this.#chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    this.#size += chunk.length;
    if (this.#size > this.maxBytes) this.#endEarly(Buffer.concat(this.#chunks));
    return true;
  }

  onComplete(): void {
    const chunks = this.#chunks;
    // Most answers come in one chunk, which is not copied.
    this.#settle(chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? EMPTY : Buffer.concat(chunks), true);
  }

  onError(error: Error): void {
    this.#fail(error);
  }

  /** Settles with the start of a body too long to read, and closes the connection under it. */
  #endEarly(bytes: Buffer): void {
    this.#settle(bytes, false);
    this.#abort?.(new RangeError(`the answer is longer than ${this.maxBytes} bytes`));
  }

  #settle(bytes: Buffer, complete: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.cut.removeListener('abort', this.#onCut);
    const raw = this.#raw;
    this.resolve({
      statusCode: this.#statusCode,
      statusMessage: this.#statusMessage,
      header: (name) => rawHeader(raw, name),
      body: { bytes, complete },
    });
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.cut.removeListener('abort', this.#onCut);
    this.reject(error);
  }
}

/**
 * Sends `request` on `dispatcher` and reads the whole answer, at most `maxBytes` of its body (a
 * longer one is refused from its `content-length` when it declares one, else cut once past the
 * limit; its connection is closed either way).
 * @throws the connection's error (undici's, with its `code`), or the cut's reason when it was cut
 *   before the answer was complete.
 */
export function exchangeWhole(dispatcher: Dispatcher, request: WholeRequest, maxBytes: number): Promise<WholeAnswer> {
  const { method, path, headers, body, cut } = request;
  return new Promise((resolve, reject) => {
    if (cut.aborted) return reject(cut.reason!);
    const handler = new WholeExchange(cut, maxBytes, request.onHead, resolve, reject);
    dispatcher.dispatch({ method, path, headers, body }, handler);
  });
}
