/**
 * The local API: a small HTTP server for the co-located device bridge, on a Unix socket with
 * owner-only permissions (the default) or on loopback TCP behind a bearer token. It lets the
 * device request Operations of other resources, read or long-poll their outcome, and hand a
 * workpiece over in two steps. It is never exposed northbound.
 */
import { chmod, lstat, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import express from 'express';
import { RuntimeError, ValueError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { LIMITS } from '../limits.js';
import { bearerAuth } from '../middleware/surface/bearer-auth.js';
import { createErrorHandler, notFound } from '../middleware/surface/error-handler.js';
import type { SemanticMiddleware } from '../middleware/semantic-middleware.js';
import { HandoverSessions } from './handover-sessions.js';
import { localApiRouter } from './local-api-routes.js';

/** Where the local API listens: a Unix socket, or a loopback port with a token. */
export type LocalApiListen = { socket: string } | { port: number; host?: string; token: string };

/** Options of {@link startLocalApi}. */
export interface LocalApiOptions {
  middleware: SemanticMiddleware;
  listen: LocalApiListen;
  logger: Logger;
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

function buildApp(options: LocalApiOptions, handovers: HandoverSessions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if ('token' in options.listen) app.use(bearerAuth(options.listen.token, { what: 'the local API token', expected: LOCAL_API_TOKEN }));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', resource: options.middleware.serviceIri === undefined ? undefined : 'registered' });
  });
  app.use(localApiRouter({ middleware: options.middleware, handovers }, options.bodyLimitBytes ?? LIMITS.httpBodyLimitBytes));
  app.use(notFound);
  app.use(createErrorHandler(options.logger));
  return app;
}

function listen(server: Server, target: LocalApiListen): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if ('socket' in target) server.listen(target.socket, done);
    else server.listen(target.port, target.host ?? '127.0.0.1', done);
  });
}

function urlOf(server: Server, target: LocalApiListen): string {
  if ('socket' in target) return `unix:${target.socket}`;
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : target.port;
  return `http://${target.host ?? '127.0.0.1'}:${port}`;
}

function socketIsLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path, () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
}

/**
 * Makes way for the local API's socket: removes a socket file a dead process left behind, but
 * never a socket some process still listens on (a second sidecar configured with the same path
 * would take the first one's local API) and never a file that is not a socket.
 * @throws RuntimeError when a process listens on `path`; ValueError when `path` is another kind of file.
 * @example await clearStaleSocket('/run/semantic-sidecar/door1/local.sock');
 */
export async function clearStaleSocket(path: string): Promise<void> {
  const info = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (info === undefined) return;
  if (!info.isSocket())
    throw new ValueError(
      `the local API socket path ${path} exists and is not a socket; refusing to replace it (set localApi.socket to another path)`,
    );
  if (await socketIsLive(path))
    throw new RuntimeError(
      `a process already listens on the local API socket ${path}: is another sidecar running with this localApi.socket?`,
    );
  await rm(path, { force: true });
}

/**
 * Starts the local API. A Unix socket is created owner-only (0600), replacing a stale socket
 * file (see {@link clearStaleSocket}).
 * @example
 * const api = await startLocalApi({ middleware: mw, listen: { socket: '/run/semantic-sidecar/door1.sock' }, logger });
 * // curl --unix-socket /run/semantic-sidecar/door1.sock -d '{"capabilityClass":"…","operationClass":"…"}' http://local/operations
 */
export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const handovers = new HandoverSessions((o, body) => options.middleware.handover(o, body), options.handoverTtlMs);
  const server = createServer(buildApp(options, handovers));
  const target = options.listen;
  if ('socket' in target) await clearStaleSocket(target.socket);
  const umask = process.umask(0o177);
  try {
    await listen(server, target);
  } finally {
    process.umask(umask);
  }
  if ('socket' in target) await chmod(target.socket, 0o600);
  const url = urlOf(server, target);
  options.logger.info({ url }, 'local API listening');
  return {
    url,
    handovers,
    async close() {
      await handovers.abortAll('the sidecar is stopping');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
