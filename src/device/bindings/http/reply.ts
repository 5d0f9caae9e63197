/**
 * Checking an HTTP answer from a device (or a peer): the size is capped while reading, a 2xx body
 * goes to {@link replyValue}, and a non-2xx answer becomes a {@link DeviceAnswerError} that keeps
 * the device's status, body preview and FastAPI-style `detail`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { callSite, DeviceAnswerError, type DeviceCall } from '../../errors.js';
import { readLimited, type LimitedBody } from '../../../lib/read-limited.js';
import { parseJson, previewText, replyValue } from '../../reply.js';

/** A device's answer once its head came: status, headers and the body still to read. */
export interface DeviceResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
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
 * Checks a device's answer read whole: returns the parsed JSON of a 2xx answer, or `null` for an
 * empty 2xx body (a 204, or a 200 with nothing in it).
 * @param contentType what the device declared, quoted when the body is not JSON.
 * @throws DeviceAnswerError for a non-2xx status; DeviceReplyError when a 2xx body is larger than
 * `maxBytes` or is not JSON (whatever its content type says: only the bytes are judged).
 */
export function replyOf(status: number, body: LimitedBody, contentType: string | undefined, call: DeviceCall, maxBytes: number): unknown {
  if (status < 200 || status > 299) throw answerError(status, body, call);
  return replyValue(body, call, maxBytes, contentType);
}

/**
 * Reads and checks a device's response whose body is still a stream, as {@link replyOf} checks one
 * read whole.
 */
export async function readReply(response: DeviceResponse, call: DeviceCall, maxBytes: number): Promise<unknown> {
  const body = await readLimited(response, maxBytes);
  return replyOf(response.statusCode, body, response.headers['content-type'], call, maxBytes);
}
