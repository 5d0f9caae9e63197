/**
 * The local API's hot requests, `POST /operations` and `GET /operations/status`, served without
 * express when they are ordinary ones: a dispatching device bridge sends one of each per
 * Operation, and express's routing, body parser and response helpers cost more than the rest
 * of the request's HTTP handling (see the workflow fast lane of the surface).
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { answerError } from '../http/error-handler.js';
import { isPlainJsonRequest, readJsonBody } from '../http/json-body.js';
import { callerMatcher, setCaller, type TokenCaller } from '../http/token-callers.js';
import type { TokenSet } from '../http/named-tokens.js';
import type { Logger } from '../lib/logger.js';
import { answerRequest, answerStatus, type LocalApiTarget } from './local-api-routes.js';

/** Options of {@link withLocalApiLane}. */
export interface LocalApiLaneOptions {
  /** Largest request body, as the express routes take it. */
  bodyLimitBytes: number;
  /** The tokens of a local API on a loopback port; none on a Unix socket. */
  token?: TokenSet;
  /** What the token check is named in a construction error. */
  what: string;
  logger: Logger;
}

const REQUEST_PATH = '/operations';
const STATUS_PATH = '/operations/status';
// The routes express would have matched, as express records them (a span is named by its route).
const REQUEST_ROUTE = Object.freeze({ path: REQUEST_PATH });
const STATUS_ROUTE = Object.freeze({ path: STATUS_PATH });

/**
 * Wraps the local API's express `app`: a request goes down the lane only if express would
 * route it to the request or the status route and read it without trouble: `POST /operations`
 * with a body {@link isPlainJsonRequest} accepts, or `GET /operations/status`, each authorized
 * when the local API has a token (the caller is kept on the response, as the token check in
 * front of the routes keeps it). Every other request, and every refusal of the request itself,
 * goes to `app` untouched; errors of the request answer as express's error handler does
 * (see answerError).
 */
export function withLocalApiLane(target: LocalApiTarget, options: LocalApiLaneOptions, app: RequestListener): RequestListener {
  const { token, bodyLimitBytes, logger } = options;
  const callerFor = token === undefined ? undefined : callerMatcher(token, target.caller, options.what);
  // The caller the token names; null when the request must go to express (no token, a wrong one).
  const authorized = (req: IncomingMessage): TokenCaller | undefined | null => {
    if (callerFor === undefined) return undefined;
    return callerFor(req.headers.authorization) ?? null;
  };
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const post = req.method === 'POST' && path === REQUEST_PATH && isPlainJsonRequest(req, bodyLimitBytes);
    if (!post && !(req.method === 'GET' && path === STATUS_PATH)) return app(req, res);
    const caller = authorized(req);
    if (caller === null) return app(req, res);
    if (caller !== undefined) setCaller(res, caller);
    (req as IncomingMessage & { route?: { path: string } }).route = post ? REQUEST_ROUTE : STATUS_ROUTE;
    const answered = post
      ? readJsonBody(req).then((body) => answerRequest(target, body, res))
      : answerStatus(target, parseQuery(q < 0 ? '' : url.slice(q + 1)), res);
    answered.catch((err: unknown) => answerError(logger, err, { method: req.method!, path }, res));
  };
}
