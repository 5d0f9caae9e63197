/**
 * Bearer tokens (RFC 6750) of every server of the product: what a usable token is, how it is
 * read from a header, and how a presented secret is compared (in constant time). The guard of
 * the HTTP servers, which names the caller behind a token, is in token-callers.ts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';

/** The realm named in the `WWW-Authenticate` challenge. */
export const BEARER_REALM = 'semantic-middleware';

// Visible ASCII only: whitespace would be cut by header parsing, control and non-ASCII
// characters cannot travel in a header value at all.
const TOKEN_TEXT = /^[\x21-\x7e]+$/u;
// The scheme is case-insensitive (RFC 7235 §2.1); the token is one run of visible characters.
const BEARER = /^bearer +([\x21-\x7e]+) *$/iu;

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

/** The SHA-256 digest of `text`: what presented secrets are compared by. */
export function secretDigest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * A test of presented secrets against `secret`: SHA-256 digests compared with `timingSafeEqual`,
 * so neither the content nor the length of the secret leaks through timing.
 * @example const isToken = secretMatcher(token); isToken(presented) // true or false
 */
export function secretMatcher(secret: string): (presented: string) => boolean {
  const expected = secretDigest(secret);
  return (presented) => timingSafeEqual(secretDigest(presented), expected);
}
