/**
 * Validation of a device's reply, the edge where the device's output enters the sidecar: the size
 * is capped while reading, a 2xx body must be JSON (or empty), and a non-2xx answer becomes a
 * {@link DeviceAnswerError} that keeps the device's status, body preview and `detail`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { LIMITS } from '../limits.js';
import { DeviceAnswerError, DeviceReplyError, type DeviceCall } from './errors.js';

type Body = Readable;

/** What readReply needs of a response: its status, its headers and its body as a stream. */
export interface DeviceResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Body;
}

/** A body read up to a limit. `complete` is false when the body was longer and reading stopped. */
interface LimitedBody {
  bytes: Buffer;
  complete: boolean;
}

/**
 * Stops reading a body that will not be used. A destroyed body may emit an abort error; with no
 * listener that error would be unhandled and take the whole sidecar down.
 */
function discard(body: Body): void {
  body.on('error', () => undefined);
  body.destroy();
}

function readLimited(body: Body, declaredLength: number, maxBytes: number): Promise<LimitedBody> {
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
    body.on('end', () => resolve({ bytes: Buffer.concat(chunks), complete: true }));
    body.on('error', reject);
    body.on('close', () => reject(new Error('the connection closed before the reply was complete')));
  });
}

function previewText(text: string): string {
  const max = LIMITS.deviceErrorBodyPreview;
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function answerError(status: number, body: LimitedBody, call: DeviceCall, where: string): DeviceAnswerError {
  const text = body.bytes.toString('utf8');
  const parsed = body.complete ? parseJson(text) : undefined;
  const value = parsed?.value;
  const hasDetail = typeof value === 'object' && value !== null && !Array.isArray(value) && 'detail' in value;
  const detail = hasDetail ? (value as { detail: unknown }).detail : undefined;
  const said = hasDetail ? (typeof detail === 'string' ? detail : JSON.stringify(detail)) : previewText(text) || '(empty body)';
  return new DeviceAnswerError(`${where} answered HTTP ${status}: ${previewText(said)}`, call, {
    deviceStatus: status,
    bodyPreview: previewText(text),
    ...(hasDetail && { detail }),
  });
}

/**
 * Reads and checks a device's response: returns the parsed JSON of a 2xx answer, or `null` for an
 * empty 2xx body (a 204, or a 200 with nothing in it).
 * @param maxBytes largest accepted body; default {@link LIMITS.deviceReplyMaxBytes}.
 * @throws DeviceAnswerError for a non-2xx status; DeviceReplyError when a 2xx body is larger than
 * `maxBytes` or is not JSON (whatever its content type says: only the bytes are judged).
 */
export async function readReply(
  response: DeviceResponse,
  call: DeviceCall,
  maxBytes: number = LIMITS.deviceReplyMaxBytes,
): Promise<unknown> {
  const where = `${call.method} ${call.path} on device ${call.target}`;
  const declared = Number(response.headers['content-length'] ?? 0);
  const body = await readLimited(response.body, Number.isFinite(declared) ? declared : 0, maxBytes);
  const status = response.statusCode;
  if (status < 200 || status > 299) throw answerError(status, body, call, where);
  if (!body.complete) {
    throw new DeviceReplyError(`${where} sent a reply larger than ${maxBytes} bytes (the limit for device replies)`, call);
  }
  const text = body.bytes.toString('utf8');
  if (text.trim() === '') return null;
  const parsed = parseJson(text);
  if (!parsed) {
    const type = JSON.stringify(String(response.headers['content-type'] ?? 'none'));
    throw new DeviceReplyError(
      `${where} sent a reply that is not JSON (content-type ${type}): ${JSON.stringify(previewText(text))}; a device bridge must answer JSON`,
      call,
    );
  }
  return parsed.value;
}
