/**
 * A tiny HTTP server for replies the bridge never sends (not JSON, too large, a stalled body), on
 * 127.0.0.1 port 0 or a temporary Unix socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running tiny server. */
export interface TinyServer {
  /** The device target: `unix:<socket>` or `http://127.0.0.1:<port>`. */
  target: string;
  /** Connections accepted so far (keep-alive shows as one connection for many requests). */
  connections(): number;
  close(): Promise<void>;
}

/** Starts a server running `handler`, on `socketPath` when given, else on 127.0.0.1:0. */
export async function startTinyServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  socketPath?: string,
): Promise<TinyServer> {
  let connections = 0;
  const server = createServer(handler);
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(socketPath ?? { port: 0, host: '127.0.0.1' }, resolve));
  const target = socketPath === undefined ? `http://127.0.0.1:${(server.address() as AddressInfo).port}` : `unix:${socketPath}`;
  return {
    target,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a request's body as text. */
export async function bodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
