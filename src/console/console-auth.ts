/**
 * How a browser gets into a protected console: a login form that takes the plant's bearer token
 * once and answers with a session cookie (`HttpOnly`, `SameSite=Strict`, `Path` the console's;
 * `Secure` when the sign-in came over TLS, so the browser never sends it over plain HTTP, where
 * anyone on the path could take the session; over plain-HTTP loopback the cookie must work
 * without it).
 * A cookie rather than a token in the URL fragment because `EventSource` cannot send an
 * `Authorization` header: the token would have to travel in the stream's query string, and
 * land in access logs and browser history. The cookie holds a random session id, never the
 * token; `SameSite=Strict` keeps other sites from riding it, and the cancel route also wants a
 * header a cross-site form cannot send. Programs keep sending `Authorization: Bearer <token>`.
 */
import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { BEARER_REALM } from '../http/bearer-auth.js';
import { HttpError } from '../http/http-error.js';
import type { TokenSet } from '../http/named-tokens.js';
import { callerMatcher, openCaller, setCaller, type TokenCaller } from '../http/token-callers.js';
import { CONSOLE_OPEN_CALLER, CONSOLE_TOKEN_CALLER } from '../lib/caller-identity.js';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'sm_console_session';
/** How long a browser session lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Most live sessions kept; the oldest is forgotten first. */
const MAX_SESSIONS = 1000;
const OPEN = openCaller(CONSOLE_OPEN_CALLER);

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The console's guard: who may in, and the sessions of browsers that signed in (each keeps its caller). */
export class ConsoleAuth {
  readonly #sessions = new Map<string, { expires: number; caller: TokenCaller }>();
  readonly #callerFor: ((header: string | undefined) => TokenCaller | undefined) | undefined;

  /**
   * @param tokens the plant's bearer token, or its named tokens (each signs in as its own caller);
   *   undefined leaves the console open (as the other servers without a token).
   */
  constructor(
    tokens: TokenSet | undefined,
    readonly path: string,
  ) {
    this.#callerFor = tokens === undefined ? undefined : callerMatcher(tokens, CONSOLE_TOKEN_CALLER, 'the console token');
  }

  /** True when no token is needed. */
  get open(): boolean {
    return this.#callerFor === undefined;
  }

  /** The caller behind the request's bearer token or live session cookie; undefined when it has neither. */
  callerOf(req: Request): TokenCaller | undefined {
    if (this.#callerFor === undefined) return OPEN;
    const caller = this.#callerFor(req.headers.authorization);
    if (caller !== undefined) return caller;
    const session = cookieOf(req, SESSION_COOKIE);
    const live = session === undefined ? undefined : this.#sessions.get(session);
    return live !== undefined && live.expires >= Date.now() ? live.caller : undefined;
  }

  /**
   * A new session for a browser that presented `token`, as its `Set-Cookie` value (`Secure` when
   * `secure`: the sign-in came over TLS); undefined when the token is wrong.
   */
  signIn(token: unknown, secure: boolean): string | undefined {
    if (this.#callerFor === undefined || typeof token !== 'string') return undefined;
    const caller = this.#callerFor(`Bearer ${token}`);
    if (caller === undefined) return undefined;
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(id, { expires: Date.now() + SESSION_TTL_MS, caller });
    for (const old of this.#sessions.keys()) {
      if (this.#sessions.size <= MAX_SESSIONS) break;
      this.#sessions.delete(old);
    }
    const cookie = `${SESSION_COOKIE}=${id}; Path=${this.path}; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`;
    return secure ? `${cookie}; Secure` : cookie;
  }

  /**
   * A middleware that lets in allowed requests (their caller kept on the response); a browser
   * asking for a page (a GET that accepts HTML) is sent to the login form, anything else gets a 401.
   */
  guard(): RequestHandler {
    return (req, res, next) => {
      const caller = this.callerOf(req);
      if (caller !== undefined) {
        setCaller(res, caller);
        next();
        return;
      }
      if (req.method === 'GET' && req.accepts(['json', 'html']) === 'html' && !req.path.endsWith('/events')) {
        res.redirect(303, `${this.path}login`);
        return;
      }
      res.set('WWW-Authenticate', `Bearer realm="${BEARER_REALM}"`);
      next(
        new HttpError(
          401,
          'the console needs the plant\'s bearer token: sign in at the login form or send "Authorization: Bearer <token>"',
        ),
      );
    };
  }
}
