/**
 * Who a bearer token names: the caller an accepted `Authorization` header stands for, with the
 * workflows its token is limited to. A server resolves the caller once per request and keeps it
 * on the response (see {@link setCaller}), where routes, access logs and the activity feed read it.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { tokenCaller } from '../lib/caller-identity.js';
import { assertToken, BEARER_REALM, presentedToken, secretDigest } from './bearer-auth.js';
import { HttpError } from './http-error.js';
import { assertNamedTokens, type TokenSet } from './named-tokens.js';

/** An authenticated caller: its identity (see `src/lib/caller-identity.ts`) and its token's limit. */
export interface TokenCaller {
  /** The identity logs, the activity feed and the graph record; never a secret. */
  readonly id: string;
  /** The only workflows it may run; undefined: no limit. */
  readonly workflows?: ReadonlySet<string>;
}

/** The caller of a request that needs no token (a server without one, or a Unix socket). */
export function openCaller(id: string): TokenCaller {
  return Object.freeze({ id });
}

/**
 * A test of `Authorization` header values against `tokens`: the caller whose token was presented,
 * or undefined. SHA-256 digests are compared with `timingSafeEqual` against every token, so
 * neither a token nor which one matched leaks through timing; callers are built once here.
 * @param unnamed the identity of the one token of a single-token set.
 * @throws ValueError when a token or name is unusable; `what` names the set (never a token).
 * @example const callerOf = callerMatcher(tokens, 'http:token'); callerOf(req.headers.authorization)?.id
 */
export function callerMatcher(
  tokens: TokenSet,
  unnamed: string,
  what = 'the HTTP token',
): (header: string | undefined) => TokenCaller | undefined {
  const entries =
    typeof tokens === 'string'
      ? [{ digest: secretDigest(assertToken(tokens, what)), caller: openCaller(unnamed) }]
      : assertNamedTokens(tokens, what).map((t) => ({
          digest: secretDigest(t.token),
          caller: Object.freeze({ id: tokenCaller(t.name), ...(t.workflows && { workflows: new Set(t.workflows) }) }),
        }));
  return (header) => {
    const presented = presentedToken(header);
    if (presented === undefined) return undefined;
    const given = secretDigest(presented);
    let found: TokenCaller | undefined;
    // No early exit: every token is compared, whichever matches.
    for (const entry of entries) if (timingSafeEqual(given, entry.digest)) found = entry.caller;
    return found;
  };
}

const CALLER = Symbol('caller');
type WithCaller = ServerResponse & { [CALLER]?: TokenCaller };

/** Keeps the request's caller on its response (no allocation: the caller is shared). */
export function setCaller(res: ServerResponse, caller: TokenCaller): void {
  (res as WithCaller)[CALLER] = caller;
}

/** The caller kept by {@link setCaller}, if any. */
export function callerOf(res: ServerResponse): TokenCaller | undefined {
  return (res as WithCaller)[CALLER];
}

/** True when `caller` may run the workflow `name`. */
export function mayRun(caller: TokenCaller | undefined, name: string): boolean {
  return caller?.workflows === undefined || caller.workflows.has(name);
}

/** Which token a guarded server wants, and who its one unnamed token stands for. */
export interface BearerAuthOptions {
  /** The token's name in a construction error; default `'the HTTP token'`. */
  what?: string;
  /** Which token to send, for a refusal's text; default `'the token of this server'`. */
  expected?: string;
  /** Identity of the one token of a single-token set; default `'token'`. */
  unnamed?: string;
}

/**
 * A middleware that lets a request through only with `Authorization: Bearer <token>` of one of
 * `tokens` (see {@link callerMatcher}) and keeps its caller on the response. A refusal answers
 * 401 `{"detail": ...}` with `WWW-Authenticate: Bearer realm="semantic-middleware"` (plus
 * `error="invalid_token"` when a wrong token was sent); the token presented is never echoed.
 * @throws ValueError when a token or name is unusable.
 * @example app.use(bearerAuth(tokens)); // mount before any route that must be protected
 */
export function bearerAuth(tokens: TokenSet, options: BearerAuthOptions = {}): RequestHandler {
  const callerFor = callerMatcher(tokens, options.unnamed ?? 'token', options.what);
  const how = options.expected ?? 'the token of this server';
  const missing = `this endpoint needs the header "Authorization: Bearer <token>" with ${how}`;
  const invalid = `the bearer token was not accepted: send ${how}`;
  return (req, res, next) => {
    const caller = callerFor(req.headers.authorization);
    if (caller !== undefined) {
      setCaller(res, caller);
      next();
      return;
    }
    const presented = presentedToken(req.headers.authorization);
    const error = presented === undefined ? '' : ', error="invalid_token"';
    res.set('WWW-Authenticate', `Bearer realm="${BEARER_REALM}"${error}`);
    next(new HttpError(401, presented === undefined ? missing : invalid));
  };
}
