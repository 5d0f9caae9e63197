/**
 * The local API: a small HTTP server for the co-located device bridge, on a Unix socket with
 * owner-only permissions (the default) or on loopback TCP behind a bearer token. It lets the
 * device request Operations of other resources, read or long-poll their outcome, cancel them,
 * and hand a workpiece over in two steps. It is never exposed northbound.
 */
import type express from 'express';
import type { RequestListener, Server } from 'node:http';
import { withAccessLog } from '../http/access-log.js';
import { defaultOf } from '../settings.js';
import { tracedListener } from '../tracing/traced-listener.js';
import { bearerAuth } from '../http/token-callers.js';
import type { TokenSet } from '../http/named-tokens.js';
import { ValueError } from '../errors.js';
import { closeServer } from '../http/close.js';
import { jsonApp } from '../http/json-app.js';
import { listen } from '../http/listen.js';
import { removeStaleSocket } from '../http/stale-socket.js';
import { localApiCaller } from '../lib/caller-identity.js';
import type { Logger } from '../lib/logger.js';
import { LIMITS } from '../limits.js';
import type { SemanticMiddleware } from '../middleware/semantic-middleware.js';
import { HandoverSessions } from './handover-sessions.js';
import { withLocalApiLane } from './local-api-lane.js';
import { localApiRouter, type LocalApiTarget } from './local-api-routes.js';
import { methodNotAllowed } from '../http/error-handler.js';

/**
 * Where the local API listens: a Unix socket, or a loopback port with a token or named tokens
 * (none limited to workflows: the local API runs none by name).
 */
export type LocalApiListen = { socket: string } | { port: number; host?: string; token: TokenSet };

/** Options of {@link startLocalApi}. */
export interface LocalApiOptions {
  middleware: SemanticMiddleware;
  listen: LocalApiListen;
  logger: Logger;
  /** Level of the access log lines (one per request); default `debug`; `silent`: none. */
  accessLogLevel?: string;
  /** Largest request body (default LIMITS.httpBodyLimitBytes). */
  bodyLimitBytes?: number;
  /** Time a begun handover may stay open (default LIMITS.localHandoverTtlMs). */
  handoverTtlMs?: number;
}

/** A running local API. */
export interface LocalApi {
  /** `unix:/path` or `http://127.0.0.1:port`. */
  readonly url: string;
  readonly handovers: HandoverSessions;
  /** Aborts open handovers, then closes the server (and removes the socket file). */
  close(): Promise<void>;
}

const LOCAL_API_TOKEN = "the sidecar's local API token (localApi.tokenFile)";
// How a construction error names the token.
const TOKEN_WHAT = 'the local API token';

// How refusals to take a socket path name it.
const SOCKET_NAMES = { what: 'the local API socket', setting: 'localApi.socket' };

/** The local API's express app (every route, behind the token check), without the lane in front of it. */
export function localApiApp(options: LocalApiOptions, target: LocalApiTarget): express.Express {
  return jsonApp(options.logger, (app) => {
    if ('token' in options.listen)
      app.use(bearerAuth(options.listen.token, { what: TOKEN_WHAT, expected: LOCAL_API_TOKEN, unnamed: target.caller }));
    app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok', resource: options.middleware.serviceIri === undefined ? undefined : 'registered' });
    });
    app.all('/healthz', methodNotAllowed('GET'));
    app.use(localApiRouter(target, options.bodyLimitBytes ?? LIMITS.httpBodyLimitBytes));
  });
}

/**
 * Makes way for the local API's socket: removes a socket file a dead process left behind, but
 * never a socket some process still listens on (a second sidecar configured with the same path
 * would take the first one's local API) and never a file that is not a socket.
 * @throws RuntimeError when a process listens on `path`; ValueError when `path` is another kind of file.
 * @example await clearStaleSocket('/run/semantic-sidecar/door1/local.sock');
 */
export function clearStaleSocket(path: string): Promise<void> {
  return removeStaleSocket(path, SOCKET_NAMES);
}

async function listenOn(app: RequestListener, target: LocalApiListen): Promise<{ server: Server; url: string }> {
  if ('socket' in target) {
    const { server } = await listen(app, { socket: target.socket, mode: 0o600, names: SOCKET_NAMES });
    return { server, url: `unix:${target.socket}` };
  }
  const host = target.host ?? '127.0.0.1';
  const { server, port } = await listen(app, { host, port: target.port });
  return { server, url: `http://${host}:${port}` };
}

/**
 * Starts the local API. A Unix socket is created owner-only (0600), replacing a stale socket
 * file (see {@link clearStaleSocket}).
 * @throws ValueError when a token is limited to workflows.
 * @example
 * const api = await startLocalApi({ middleware: mw, listen: { socket: '/run/semantic-sidecar/door1.sock' }, logger });
 * // curl --unix-socket /run/semantic-sidecar/door1.sock -d '{"capabilityClass":"…","operationClass":"…"}' http://local/operations
 */
export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const { listen: where } = options;
  if ('token' in where && typeof where.token !== 'string' && where.token.some((t) => t.workflows !== undefined))
    throw new ValueError('a local API token cannot be limited to workflows (the local API runs none by name); drop the third field');
  const handovers = new HandoverSessions((o, body) => options.middleware.handover(o, body), options.handoverTtlMs);
  const bodyLimitBytes = options.bodyLimitBytes ?? LIMITS.httpBodyLimitBytes;
  const target = { middleware: options.middleware, handovers, caller: localApiCaller(where) };
  const token = 'token' in where ? where.token : undefined;
  const lane = { bodyLimitBytes, ...(token !== undefined && { token }), what: TOKEN_WHAT, logger: options.logger };
  const app = tracedListener(
    withAccessLog(
      withLocalApiLane(target, lane, localApiApp(options, target)),
      options.logger,
      options.accessLogLevel ?? defaultOf('log.accessLevel'),
    ),
  );
  const { server, url } = await listenOn(app, options.listen);
  options.logger.info({ url }, 'local API listening');
  return {
    url,
    handovers,
    async close() {
      await handovers.abortAll('the sidecar is stopping');
      // No grace: what is still open is a long-poll, which only the caller's own retry ends well.
      await closeServer(server, 0);
    },
  };
}
