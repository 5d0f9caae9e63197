/**
 * Reading a device's HTTP response: the size is capped while reading, a 2xx body goes to
 * {@link replyValue}, and a non-2xx answer becomes a {@link DeviceAnswerError} that keeps the
 * device's status, body preview and FastAPI-style `detail`.
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
 * Reads and checks a device's response: returns the parsed JSON of a 2xx answer, or `null` for an
 * empty 2xx body (a 204, or a 200 with nothing in it).
 * @throws DeviceAnswerError for a non-2xx status; DeviceReplyError when a 2xx body is larger than
 * `maxBytes` or is not JSON (whatever its content type says: only the bytes are judged).
 */
export async function readReply(response: DeviceResponse, call: DeviceCall, maxBytes: number): Promise<unknown> {
  const body = await readLimited(response, maxBytes);
  const status = response.statusCode;
  if (status < 200 || status > 299) throw answerError(status, body, call);
  return replyValue(body, call, maxBytes, response.headers['content-type']);
}
