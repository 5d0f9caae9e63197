/**
 * Bearer-token authentication (RFC 6750) for every server of the product: one shared token,
 * compared in constant time, checked before any route reads a body. A refusal is a 401
 * `{"detail": ...}` with a `WWW-Authenticate` challenge; the token presented is never echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { HttpError } from './http-error.js';

/** The realm named in the `WWW-Authenticate` challenge. */
export const BEARER_REALM = 'semantic-middleware';

// Visible ASCII only: whitespace would be cut by header parsing, control and non-ASCII
// characters cannot travel in a header value at all.
const TOKEN_TEXT = /^[\x21-\x7e]+$/u;
// The scheme is case-insensitive (RFC 7235 §2.1); the token is one run of visible characters.
const BEARER = /^bearer +([\x21-\x7e]+) *$/iu;

/** Which token a guarded server wants, for its errors. */
export interface BearerAuthOptions {
  /** The token's name in a construction error; default `'the HTTP token'`. */
  what?: string;
  /** Which token to send, for a refusal's text; default `'the token of this server'`. */
  expected?: string;
}

/**
 * What is wrong with `token` as a bearer token, or undefined when it is usable: it must be a
 * string of at least `LIMITS.minTokenLength` visible ASCII characters. The text never quotes
 * the token.
 * @example tokenProblem('short') // 'is 5 characters long; use at least 16'
 */
export function tokenProblem(token: unknown): string | undefined {
  if (typeof token !== 'string') return `must be a string, got ${token === null ? 'null' : typeof token}`;
  if (token.length < LIMITS.minTokenLength) return `is ${token.length} characters long; use at least ${LIMITS.minTokenLength}`;
  if (!TOKEN_TEXT.test(token)) return 'must hold only visible ASCII characters (no spaces, control or non-ASCII characters)';
  return undefined;
}

/**
 * Checks `token` with {@link tokenProblem}.
 * @throws ValueError naming `what` and the problem (never the token).
 */
export function assertToken(token: unknown, what: string): string {
  const problem = tokenProblem(token);
  if (problem !== undefined) throw new ValueError(`${what} ${problem}`);
  return token as string;
}

/** The token of an `Authorization: Bearer <token>` header; undefined for no header or another scheme. */
export function presentedToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * A test of presented secrets against `secret`: SHA-256 digests compared with `timingSafeEqual`,
 * so neither the content nor the length of the secret leaks through timing.
 * @example const isToken = secretMatcher(token); isToken(presented) // true or false
 */
export function secretMatcher(secret: string): (presented: string) => boolean {
  const expected = digest(secret);
  return (presented) => timingSafeEqual(digest(presented), expected);
}

/**
 * A test of `Authorization` header values against `token` (see {@link secretMatcher}).
 * @throws ValueError when `token` fails {@link tokenProblem}; `what` names it.
 */
export function bearerMatcher(token: string, what = 'the HTTP token'): (header: string | undefined) => boolean {
  const matches = secretMatcher(assertToken(token, what));
  return (header) => {
    const presented = presentedToken(header);
    return presented !== undefined && matches(presented);
  };
}

/**
 * A middleware that lets a request through only with `Authorization: Bearer <token>` (see
 * {@link bearerMatcher}). A refusal answers 401 `{"detail": ...}` with
 * `WWW-Authenticate: Bearer realm="semantic-middleware"` (plus `error="invalid_token"` when a
 * wrong token was sent).
 * @throws ValueError when `token` fails {@link tokenProblem}.
 * @example app.use(bearerAuth(token)); // mount before any route that must be protected
 */
export function bearerAuth(token: string, options: BearerAuthOptions = {}): RequestHandler {
  const matches = bearerMatcher(token, options.what);
  const how = options.expected ?? 'the token of this server';
  const missing = `this endpoint needs the header "Authorization: Bearer <token>" with ${how}`;
  const invalid = `the bearer token was not accepted: send ${how}`;
  return (req, res, next) => {
    if (matches(req.headers.authorization)) {
      next();
      return;
    }
    const presented = presentedToken(req.headers.authorization);
    const error = presented === undefined ? '' : ', error="invalid_token"';
    res.set('WWW-Authenticate', `Bearer realm="${BEARER_REALM}"${error}`);
    next(new HttpError(401, presented === undefined ? missing : invalid));
  };
}
