import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ValueError } from '../errors.js';
import { secretMatcher } from '../http/bearer-auth.js';
import { closeServer } from '../http/close.js';
import { listen } from '../http/listen.js';
import { LIMITS } from '../limits.js';
import { METRICS_PATH } from '../metrics/names.js';
import type { Logger } from '../lib/logger.js';
import { errorAnswer, execute, type Answer } from './sparql-server-answer.js';
import { authorize, ProtocolError, readOperation } from './sparql-server-request.js';
import type { TripleStore } from './triple-store.js';
import type { SparqlServerMetrics } from '../metrics/sparql-server-metrics.js';

/** Options of {@link serveSparql}. */
export interface SparqlServerOptions {
  /** Interface to listen on; default `127.0.0.1` (loopback: the store is shared on one machine). */
  host?: string;
  /** TCP port; default 0 (the OS picks a free one; read it from `url`). */
  port?: number;
  /** Listen on this Unix socket instead of TCP (`host` and `port` are then ignored). */
  socketPath?: string;
  /** Requests are logged at debug, failures at warn (4xx) and error (5xx); default: none. */
  logger?: Logger;
  /**
   * Largest request body accepted; default {@link LIMITS.maxJournalEntryBytes}, the largest
   * update the embedded store can journal anyway.
   */
  bodyLimitBytes?: number;
  /** When given, every request must carry it (basic-auth password or Bearer token); else 401. */
  token?: string;
}

/** A running SPARQL endpoint; see {@link serveSparql}. */
export interface SparqlServer {
  /**
   * The endpoint URL (query and update), e.g. `http://127.0.0.1:7878/sparql`; on a Unix socket
   * `http+unix://<percent-encoded socket path>/sparql`.
   */
  readonly url: string;
  /** The Unix socket listened on, when `socketPath` was given. */
  readonly socketPath?: string;
  /**
   * Stops accepting requests, lets the ones in flight finish (at most
   * {@link LIMITS.shutdownGraceMs}) and closes every connection. Does not close the store.
   */
  close(): Promise<void>;
}

/**
 * Serves a {@link TripleStore} over the SPARQL 1.1 Protocol at `/sparql`, so that several
 * processes on one machine share one embedded store (`semantic-sidecar store serve`), each
 * through this project's remote store (`openRemoteStore({ queryUrl: server.url })`).
 *
 * - `GET /sparql?query=` and `POST /sparql` with a form-encoded `query=` or `update=`, or an
 *   `application/sparql-query` / `application/sparql-update` body; the dataset parameters
 *   `default-graph-uri` / `named-graph-uri` (queries) and `using-graph-uri` /
 *   `using-named-graph-uri` (updates);
 * - a query that names no graph reads the union of all graphs as its default graph;
 * - SELECT and ASK answer SPARQL JSON (default), XML, CSV or TSV; CONSTRUCT and DESCRIBE answer
 *   Turtle (default), N-Triples, N-Quads, JSON-LD or RDF/XML, as the Accept header prefers
 *   (406 when it accepts none); a store other than the embedded one answers SELECT and ASK as
 *   SPARQL JSON only;
 * - an update answers 204, or, when it is one DELETE/INSERT ... WHERE operation, 200 with an
 *   update report telling whether its WHERE matched, checked atomically with the write; this
 *   makes the remote store's compare-and-set exact in one request (see `execute`);
 * - `GET /metrics`: the requests served, by kind and outcome, with their latency, and the process
 *   metrics, in the Prometheus text format (behind the token like `/sparql`);
 * - errors: 400 (malformed request, with the parser's message), 401, 404, 405, 406, 413, 415,
 *   500, and 503 while closing, as `text/plain`.
 *
 * Updates go through `store.update` / `store.conditionalUpdate`, so the embedded store
 * journals them before answering: an acknowledged update is durable, and no answer (to a query
 * or an update) shows a write before it is durable.
 * @throws ValueError for a bad option or a socket path that is not a socket; RuntimeError when
 *   the address is in use (a stale socket file is replaced, a live one never).
 * @example
 * const store = await openEmbeddedStore({ dataDir: '/var/lib/semantic-sidecar' });
 * const server = await serveSparql(store, { port: 7878, logger });
 * const client = openRemoteStore({ queryUrl: server.url });
 */
export async function serveSparql(store: TripleStore, options: SparqlServerOptions = {}): Promise<SparqlServer> {
  const settings = checkOptions(options);
  const { SparqlServerMetrics } = await import('../metrics/sparql-server-metrics.js');
  settings.metrics = new SparqlServerMetrics();
  let closing = false;
  const listener = (req: IncomingMessage, res: ServerResponse): void => void handle(store, settings, () => closing, req, res);
  const target =
    settings.socketPath === undefined
      ? { host: settings.host, port: settings.port }
      : { socket: settings.socketPath, names: { what: 'the store socket', setting: '--socket' } };
  const { server } = await listen(listener, target);
  const url = endpointUrl(server, settings);
  settings.logger?.debug({ url }, 'sparql endpoint listening');
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing = true;
    return (closed ??= closeServer(server, LIMITS.shutdownGraceMs));
  };
  return { url, ...(settings.socketPath === undefined ? {} : { socketPath: settings.socketPath }), close };
}

interface Settings {
  host: string;
  port: number;
  socketPath: string | undefined;
  logger: Logger | undefined;
  limit: number;
  /** Tells the token from anything else presented; undefined: no token required. */
  isToken: ((presented: string) => boolean) | undefined;
  /** What `/metrics` serves; set once listening. */
  metrics?: SparqlServerMetrics;
}

function checkOptions(options: SparqlServerOptions): Settings {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ValueError(`port must be an integer from 0 to 65535, got ${JSON.stringify(port)}`);
  const limit = options.bodyLimitBytes ?? LIMITS.maxJournalEntryBytes;
  if (!Number.isSafeInteger(limit) || limit <= 0)
    throw new ValueError(`bodyLimitBytes must be a positive integer, got ${JSON.stringify(limit)}`);
  if (options.token !== undefined && options.token.trim().length < 8)
    throw new ValueError('token must hold at least 8 characters besides white space');
  if (options.socketPath !== undefined && options.socketPath.length === 0) throw new ValueError('socketPath is empty');
  return {
    host: options.host ?? '127.0.0.1',
    port,
    socketPath: options.socketPath,
    logger: options.logger,
    limit,
    isToken: options.token === undefined ? undefined : secretMatcher(options.token.trim()),
  };
}

async function handle(
  store: TripleStore,
  settings: Settings,
  closing: () => boolean,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = performance.now();
  const url = new URL(req.url ?? '/', 'http://localhost');
  let kind = 'request';
  let answer: Answer;
  try {
    if (url.pathname === METRICS_PATH && settings.metrics !== undefined) {
      authorize(req, settings.isToken);
      answer = await metricsAnswer(req, settings.metrics);
      send(res, answer);
      return;
    }
    if (url.pathname !== '/sparql')
      throw new ProtocolError(404, `no endpoint at ${JSON.stringify(url.pathname)}: the SPARQL endpoint is /sparql`);
    authorize(req, settings.isToken);
    if (closing()) throw new ProtocolError(503, 'the SPARQL server is shutting down', { connection: 'close' });
    const op = await readOperation(req, url, settings.limit);
    kind = op.kind;
    answer = await execute(store, op, req.headers.accept);
  } catch (error) {
    answer = errorAnswer(error, kind);
    logFailure(settings.logger, answer, error, kind);
  }
  // A refused request's body is read to its end, so the client gets to read the answer.
  if (!req.complete) req.resume();
  send(res, answer);
  settings.metrics?.observe(kind, answer.status, (performance.now() - started) / 1000);
  settings.logger?.debug(
    { method: req.method, kind, status: answer.status, ms: Math.round((performance.now() - started) * 100) / 100 },
    'sparql request',
  );
}

/** `GET /metrics`: the endpoint's metrics as Prometheus text (405 for another method). */
async function metricsAnswer(req: IncomingMessage, metrics: SparqlServerMetrics): Promise<Answer> {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new ProtocolError(405, 'GET /metrics only', { allow: 'GET, HEAD' });
  const { contentType, body } = await metrics.text();
  return { status: 200, type: contentType, body };
}

function send(res: ServerResponse, answer: Answer): void {
  const headers: Record<string, string | number> = { 'cache-control': 'no-store', ...answer.headers };
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers).end();
    return;
  }
  const body = Buffer.from(answer.body, 'utf8');
  res
    .writeHead(
      answer.status,
      Object.assign({}, headers, { 'content-type': answer.type ?? 'text/plain; charset=utf-8', 'content-length': body.length }),
    )
    .end(body);
}

function logFailure(logger: Logger | undefined, answer: Answer, error: unknown, kind: string): void {
  if (answer.status >= 500 && answer.status !== 503) logger?.error({ err: error, kind, status: answer.status }, 'sparql request failed');
  else logger?.debug({ kind, status: answer.status, reason: answer.body?.trim() }, 'sparql request refused');
}

function endpointUrl(server: Server, settings: Settings): string {
  if (settings.socketPath !== undefined) return `http+unix://${encodeURIComponent(settings.socketPath)}/sparql`;
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}/sparql`;
}
