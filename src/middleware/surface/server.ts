import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { sleep } from '../runtime/loops.js';
import type { TlsOptions } from '../options.js';

/**
 * Listening and closing the HTTP surface's server. Closing stops accepting connections, drops
 * idle keep-alive connections at once, and gives open requests `graceMs` before cutting them,
 * so `stop()` is bounded in time.
 */

/**
 * Creates a server for `app` (HTTPS with `tls`, else plain HTTP) and listens on `host:port`
 * (`0`: any free port); resolves with the server and the port actually bound.
 * @throws the listen error (for example EADDRINUSE), with the server closed.
 */
export async function listen(
  app: RequestListener,
  host: string,
  port: number,
  tls?: TlsOptions,
): Promise<{ server: Server; port: number }> {
  const server = tls === undefined ? createServer(app) : createHttpsServer({ cert: tls.cert, key: tls.key }, app);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** Closes `server`, cutting connections still open after `graceMs`. */
export async function closeServer(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const abort = new AbortController();
  const inTime = await Promise.race([closed.then(() => true), sleep(graceMs, abort.signal).then(() => false)]);
  abort.abort();
  if (!inTime) {
    server.closeAllConnections();
    await closed;
  }
}
