/**
 * A TCP relay in front of a store that counts the connections clients open through it, so a
 * test can tell which connections a read used without reaching into the client's pool.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  /** `target` with its host and port replaced by the relay's. */
  readonly url: string;
  /** Connections opened through the relay so far. */
  readonly opened: number;
  /** Connections open now. */
  readonly open: number;
  /** Bytes clients sent on each connection, in the order the connections were opened. */
  readonly sent: readonly number[];
  close(): Promise<void>;
}

/** Relays loopback connections to `target`'s host and port. */
export async function countingProxy(target: string): Promise<CountingProxy> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const sent: number[] = [];
  const server = createServer((client) => {
    const index = sent.push(0) - 1;
    client.on('data', (chunk: Buffer) => (sent[index]! += chunk.length));
    sockets.add(client);
    const upstream = connect(Number(to.port), to.hostname);
    // A side that goes away takes the other with it; resets are expected then.
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.href,
    get opened() {
      return sent.length;
    },
    get open() {
      return sockets.size;
    },
    sent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
