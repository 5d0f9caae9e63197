/**
 * Listening: one way for every server of the product to bind a TCP port or a Unix socket,
 * plain HTTP or HTTPS, with the failure named in the product's terms.
 */
import { chmod } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { RuntimeError } from '../errors.js';
import { removeStaleSocket, type SocketNames } from './stale-socket.js';

/** A TCP interface and port (`0`: any free port). */
export interface TcpTarget {
  host: string;
  port: number;
}

/** A Unix socket; a stale socket file at `socket` is replaced (see removeStaleSocket). */
export interface SocketTarget {
  socket: string;
  /** File mode of the socket, e.g. `0o600` for owner-only; set before any client can connect. */
  mode?: number;
  /** How refusals name the socket. */
  names?: SocketNames;
}

/** Where a server listens. */
export type ListenTarget = TcpTarget | SocketTarget;

/** Options of {@link listen}. */
export interface ListenOptions {
  /** PEM certificate (chain) and private key: serve HTTPS instead of HTTP. */
  tls?: { cert: string; key: string };
}

/** A listening server; `port` is the TCP port actually bound (absent on a Unix socket). */
export type Listening<T extends ListenTarget> = T extends TcpTarget ? { server: Server; port: number } : { server: Server };

function where(target: ListenTarget): string {
  return 'socket' in target ? target.socket : `${target.host}:${target.port}`;
}

function listenError(target: ListenTarget, error: NodeJS.ErrnoException): RuntimeError {
  const other = 'socket' in target ? 'another path' : 'another port (0 picks a free one)';
  if (error.code === 'EADDRINUSE')
    return new RuntimeError(`${where(target)} is already in use: stop the process listening there, or pick ${other}`, { cause: error });
  return new RuntimeError(`cannot listen on ${where(target)}: ${error.message}`, { cause: error });
}

function bind(server: Server, target: ListenTarget): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => reject(listenError(target, error));
    server.once('error', onError);
    const done = (): void => {
      server.off('error', onError);
      resolve();
    };
    if ('socket' in target) server.listen(target.socket, done);
    else server.listen(target.port, target.host, done);
  });
}

/**
 * Creates a server for `listener` (HTTPS with `options.tls`, else HTTP) and listens on `target`.
 * A socket with a `mode` is created under a umask that gives it no more than that mode, then
 * set to it, so no other user can connect in between.
 * @throws RuntimeError naming the address when it is in use or cannot be bound; what
 *   removeStaleSocket throws for a socket path that is not free.
 * @example
 * const { server, port } = await listen(app, { host: '127.0.0.1', port: 0 });
 * const { server: local } = await listen(api, { socket: '/run/app/local.sock', mode: 0o600 });
 */
export async function listen<T extends ListenTarget>(
  listener: RequestListener,
  target: T,
  options: ListenOptions = {},
): Promise<Listening<T>> {
  const { tls } = options;
  const server = tls === undefined ? createServer(listener) : createHttpsServer({ cert: tls.cert, key: tls.key }, listener);
  if (!('socket' in target)) {
    await bind(server, target);
    return { server, port: (server.address() as AddressInfo).port } as Listening<T>;
  }
  await removeStaleSocket(target.socket, target.names);
  const umask = target.mode === undefined ? undefined : process.umask(0o777 & ~target.mode);
  try {
    await bind(server, target);
  } finally {
    if (umask !== undefined) process.umask(umask);
  }
  if (target.mode !== undefined) await chmod(target.socket, target.mode);
  return { server } as Listening<T>;
}
