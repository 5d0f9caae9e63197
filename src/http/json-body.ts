/**
 * JSON request bodies within a size limit, for the routes that take one (GET routes skip it,
 * DESIGN §11). Every refusal is an HttpError whose detail says what was wrong with the body.
 */
import { isUtf8 } from 'node:buffer';
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
