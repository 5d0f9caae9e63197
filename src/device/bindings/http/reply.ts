/**
 * Reading a device's HTTP response: the size is capped while reading, a 2xx body goes to
 * {@link replyValue}, and a non-2xx answer becomes a {@link DeviceAnswerError} that keeps the
 * device's status, body preview and FastAPI-style `detail`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { callSite, DeviceAnswerError, type DeviceCall } from '../../errors.js';
import { parseJson, previewText, replyValue, type LimitedBody } from '../../reply.js';

/** A device's answer once its head came: status, headers and the body still to read. */
export interface DeviceResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/**
 * Stops reading a body that will not be used. A destroyed body may emit an abort error; with no
 * listener that error would be unhandled and take the whole sidecar down.
 */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** The chunks as one buffer; a reply that came in one chunk (most do) is not copied. */
function joined(chunks: Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

function readLimited(body: Readable, declaredLength: number, maxBytes: number): Promise<LimitedBody> {
  if (declaredLength > maxBytes) {
    // Refused from the header alone, so a huge reply is never transferred.
    discard(body);
    return Promise.resolve({ bytes: Buffer.alloc(0), complete: false });
  }
  // Events rather than an async iterator: this is on every proxied call, and the iterator's
  // machinery costs more than the read.
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
    body.on('end', () => resolve({ bytes: joined(chunks), complete: true }));
    body.on('error', reject);
    // 'close' follows every reply; only one that did not end is an error (and only it pays for one).
    body.on('close', () => {
      if (!body.readableEnded) reject(new Error('the connection closed before the reply was complete'));
    });
  });
}

function answerError(status: number, body: LimitedBody, call: DeviceCall): DeviceAnswerError {
  const text = body.bytes.toString('utf8');
  const parsed = body.complete ? parseJson(text) : undefined;
  const value = parsed?.value;
  const hasDetail = typeof value === 'object' && value !== null && !Array.isArray(value) && 'detail' in value;
  const detail = hasDetail ? value.detail : undefined;
  const said = hasDetail ? (typeof detail === 'string' ? detail : JSON.stringify(detail)) : previewText(text) || '(empty body)';
  return new DeviceAnswerError(`${callSite(call)} answered HTTP ${status}: ${previewText(said)}`, call, {
    deviceStatus: status,
    bodyPreview: previewText(text),
    ...(hasDetail && { detail }),
  });
}

/**
 * Reads and checks a device's response: returns the parsed JSON of a 2xx answer, or `null` for an
 * empty 2xx body (a 204, or a 200 with nothing in it).
 * @throws DeviceAnswerError for a non-2xx status; DeviceReplyError when a 2xx body is larger than
 * `maxBytes` or is not JSON (whatever its content type says: only the bytes are judged).
 */
export async function readReply(response: DeviceResponse, call: DeviceCall, maxBytes: number): Promise<unknown> {
  const declared = Number(response.headers['content-length'] ?? 0);
  const body = await readLimited(response.body, Number.isFinite(declared) ? declared : 0, maxBytes);
  const status = response.statusCode;
  if (status < 200 || status > 299) throw answerError(status, body, call);
  return replyValue(body, call, maxBytes, response.headers['content-type']);
}
