/**
 * Writing a JSON answer on a plain Node response, in the bytes express's `res.json` sends: for
 * the error handler and for routes served without express.
 */
import type { ServerResponse } from 'node:http';

/**
 * Answers `status` with `value` as JSON (no ETag, UTF-8); `undefined` is served as `null`.
 * @example writeJson(res, 404, { detail: 'no such thing' });
 */
export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value === undefined ? null : value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
