/**
 * Reading an HTTP answer's body up to a size limit: the one reader of the store client, the
 * keep-alive fetch and the device binding, so an oversized or cut answer is treated alike.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/** A body read up to a limit. */
export interface LimitedBody {
  /** The body; when it was longer than the limit, only its start (enough to quote it). */
  bytes: Buffer;
  /** False when the body was longer than the limit; the rest was not read. */
  complete: boolean;
}

/** An answer whose head came: its headers and the body still to read. */
export interface AnswerBody {
  headers: IncomingHttpHeaders;
  body: Readable;
}

/**
 * Stops reading a body that will not be used. A destroyed body may emit an abort error; with no
 * listener that error would be an uncaught exception and take the whole process down.
 */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * Reads `answer`'s body, at most `maxBytes` of it. A longer body is refused from its
 * `content-length` when it declares one, so it is never transferred, else cut once the limit is
 * passed; either way its connection is closed rather than read to the end.
 * @throws the body's error (a reset, the exchange's timeout or abort), or an Error when the
 *   connection closed before the body ended.
 */
export function readLimited({ headers, body }: AnswerBody, maxBytes: number): Promise<LimitedBody> {
  if (Number(headers['content-length']) > maxBytes) {
    discard(body);
    return Promise.resolve({ bytes: Buffer.alloc(0), complete: false });
  }
  // Events rather than an async iterator: this is on every proxied call and store request, and
  // the iterator's machinery costs more than the read.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      const room = maxBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += chunk.length;
      if (size > maxBytes) {
        discard(body);
        resolve({ bytes: Buffer.concat(chunks), complete: false });
      }
    });
    // Most answers come in one chunk, which is not copied.
    body.on('end', () => resolve({ bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), complete: true }));
    body.on('error', reject);
    // 'close' follows every body; only one that did not end is an error (and only it pays for one).
    body.on('close', () => {
      if (!body.readableEnded) reject(new Error('the connection closed before the answer was complete'));
    });
  });
}
