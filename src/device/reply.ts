/**
 * The edge where a device's reply enters the sidecar, whatever binding carried it: a successful
 * reply must be JSON (or empty) and within the size limit. How the bytes are read and how a failed
 * call is told apart is the binding's part.
 */
import { LIMITS } from '../limits.js';
import type { LimitedBody } from '../lib/read-limited.js';
import { callSite, DeviceReplyError, type DeviceCall } from './errors.js';

/** The start of a device's text, as errors quote it ({@link LIMITS.deviceErrorBodyPreview} characters). */
export function previewText(text: string): string {
  const max = LIMITS.deviceErrorBodyPreview;
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** The parsed JSON of `text`, or undefined when it is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * The value of a successful reply: its parsed JSON, or `null` for an empty body.
 * @param contentType what the device declared, quoted when the body is not JSON (only the bytes are judged).
 * @throws DeviceReplyError when the body was longer than `maxBytes` or is not JSON.
 */
export function replyValue(body: LimitedBody, call: DeviceCall, maxBytes: number, contentType: string | undefined): unknown {
  if (!body.complete) {
    throw new DeviceReplyError(`${callSite(call)} sent a reply larger than ${maxBytes} bytes (the limit for device replies)`, call);
  }
  const text = body.bytes.toString('utf8');
  if (text.trim() === '') return null;
  const parsed = parseJson(text);
  if (!parsed) {
    const type = JSON.stringify(contentType ?? 'none');
    throw new DeviceReplyError(
      `${callSite(call)} sent a reply that is not JSON (content-type ${type}): ${JSON.stringify(previewText(text))}; a device bridge must answer JSON`,
      call,
    );
  }
  return parsed.value;
}
