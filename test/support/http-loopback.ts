/**
 * A real HTTP server on a loopback port the OS chose, recording the requests it answered and
 * counting its connections: for tests of HTTP clients (keep-alive reuse, resends, cuts).
 */
import { expect } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A running loopback server and what it saw. */
export interface Loopback {
  url: string;
  /** Connections accepted so far, and those open now. */
  opened: number;
  open: number;
  /** The requests received, in order, each with its body and the connection it came on. */
  requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string; socket: Socket }[];
  /** The connections open on the server's side. */
  sockets: Set<Socket>;
  close(): Promise<void>;
}

/** Starts a server that calls `handler` once a request's body is in. */
export async function loopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const state: Loopback = { url: '', opened: 0, open: 0, requests: [], sockets: new Set(), close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, socket: req.socket });
      handler(req, res);
    });
  });
  server.on('connection', (socket: Socket) => {
    state.sockets.add(socket);
    state.opened += 1;
    state.open += 1;
    socket.once('close', () => {
      state.sockets.delete(socket);
      state.open -= 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** Waits up to 2 s for `condition`, then asserts it. */
export async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
