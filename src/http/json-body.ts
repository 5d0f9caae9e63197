/**
 * JSON request bodies within a size limit, for the routes that take one (GET routes skip it,
 * DESIGN §11). Every refusal is an HttpError whose detail says what was wrong with the body.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { HttpError } from './http-error.js';

/** The detail of a body that is not valid UTF-8. */
export const INVALID_UTF8_DETAIL = 'the request body is not valid UTF-8: send JSON encoded as UTF-8';

/**
 * A UTF-8 body as text. An invalid byte sequence is refused rather than replaced with U+FFFD,
 * as a lenient decoder would: a body passed on changed is worse than one refused. A leading BOM
 * is kept (callers drop it, as JSON parsers do).
 * @throws HttpError 400 when `bytes` are not valid UTF-8.
 */
export function decodeUtf8Body(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new HttpError(400, INVALID_UTF8_DETAIL);
  return bytes.toString('utf8');
}

const UTF8_INVALID = 'entity.utf8.invalid';

// Called by express's parser with the raw bytes before it decodes them leniently; the tagged
// error becomes a 400 in bodyError. Other charsets (UTF-16, UTF-32) are decoded by the parser.
function verifyUtf8(_req: unknown, _res: unknown, bytes: Buffer, charset: string): void {
  if (charset === 'utf-8' && !isUtf8(bytes)) throw Object.assign(new Error(INVALID_UTF8_DETAIL), { status: 400, type: UTF8_INVALID });
}

// application/json, or any structured `+json` type, with optional parameters.
const JSON_TYPE = /^\s*application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;
// The same, with no parameter but a UTF-8 charset: a body the parser reads as it is.
const PLAIN_JSON_TYPE = /^\s*application\/(?:[\w.-]+\+)?json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;

/** True for a JSON Content-Type whose body is read without conversion (no charset but UTF-8). */
export function isPlainJsonType(type: string): boolean {
  return PLAIN_JSON_TYPE.test(type);
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * Parses a JSON body of at most `limitBytes` into `req.body` (any JSON value; routes check the
 * shape); no body leaves `req.body` undefined. A body with a non-JSON Content-Type is refused
 * with 415; a body without one is read as JSON. Oversized bodies fail with 413, malformed JSON
 * or invalid UTF-8 with 400, an unsupported charset or encoding with 415 (express's parser errors, each turned
 * into an HttpError that says what to send).
 * @example app.post('/operations', jsonBody(LIMITS.httpBodyLimitBytes), handler);
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, strict: false, type: () => true, verify: verifyUtf8 });
  return (req, res, next) => {
    if (!hasBody(req.headers)) {
      req.body = undefined;
      next();
      return;
    }
    const type = req.headers['content-type'];
    if (type !== undefined && !JSON_TYPE.test(type)) {
      next(new HttpError(415, `the request body has Content-Type ${JSON.stringify(type)}; this route accepts application/json`));
      return;
    }
    parse(req, res, (error?: unknown) => next(error === undefined ? undefined : bodyError(error, req.headers['content-encoding'])));
  };
}

// body-parser tags its errors with `type`; its messages are terse or name internals.
function parserDetail(err: Record<string, unknown>): string | undefined {
  switch (err.type) {
    case 'entity.too.large':
      return `the request body is larger than the limit of ${String(err.limit)} bytes`;
    case UTF8_INVALID:
      return INVALID_UTF8_DETAIL;
    case 'entity.parse.failed':
      return `the request body is not valid JSON: ${String(err.message)}`;
    case 'charset.unsupported':
      return `the request body's charset ${JSON.stringify(err.charset)} is not supported: send JSON as UTF-8`;
    case 'encoding.unsupported':
      return `the request body's content encoding ${JSON.stringify(err.encoding)} is not supported`;
    case 'request.aborted':
      return 'the request body was aborted by the client';
    case 'request.size.invalid':
      return 'the request body did not match its Content-Length';
    default:
      return undefined;
  }
}

/**
 * The parser's error as an HttpError of the parser's status, saying what was wrong; for a body
 * that failed to decompress (an untagged 400 on a request with a Content-Encoding) one that says
 * so: zlib's own words ("incorrect header check") do not.
 */
function bodyError(error: unknown, encoding: string | undefined): unknown {
  const fields = (error ?? {}) as Record<string, unknown>;
  const status = typeof fields.status === 'number' ? fields.status : 400;
  const detail = parserDetail(fields);
  if (detail !== undefined) return new HttpError(status, detail, { cause: error });
  if (encoding === undefined || encoding === 'identity' || status !== 400) return error;
  const why = typeof fields.message === 'string' && fields.message !== 'Bad Request' ? ` (${fields.message})` : '';
  return new HttpError(
    400,
    `the request body could not be decompressed as its Content-Encoding ${JSON.stringify(encoding)} says${why}: send it as declared, or uncompressed`,
    { cause: error },
  );
}

const UTF8_BOM = 0xfeff;

/**
 * True when {@link jsonBody} would read the request's body as it is: a declared length within
 * `limit`, no Content-Encoding or Transfer-Encoding, and no Content-Type or JSON in UTF-8. Such a
 * request may be served without express (a fast lane), its body read by {@link readJsonBody}.
 */
export function isPlainJsonRequest(req: IncomingMessage, limit: number): boolean {
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return false;
  const length = headers['content-length'];
  if (length !== undefined && !(/^\d+$/.test(length) && Number(length) <= limit)) return false;
  const type = headers['content-type'];
  return type === undefined || isPlainJsonType(type);
}

/**
 * The body of a request {@link isPlainJsonRequest} accepts, as JSON, as {@link jsonBody} reads
 * it: undefined without a body, UTF-8 (invalid UTF-8 refused, see decodeUtf8Body) with a BOM
 * dropped, and `{}` for a body that is nothing but the BOM.
 * @throws HttpError 400 for invalid UTF-8 or JSON; the stream's error when the client left.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  let text = decodeUtf8Body(await readBody(req));
  if (text.length === 0) return undefined;
  if (text.charCodeAt(0) === UTF8_BOM) text = text.slice(1);
  if (text.length === 0) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The whole body; events rather than an async iterator, which costs more than the read. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A body that came in one chunk (most do) is not copied.
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
    // 'close' follows every request; only one whose body did not end is an error.
    req.on('close', () => {
      if (!req.readableEnded) reject(new Error('the client closed the connection before the body was complete'));
    });
  });
}
