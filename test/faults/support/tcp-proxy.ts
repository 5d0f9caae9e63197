/**
 * A loopback TCP proxy a fault test puts between one process and the store (or between the
 * callers and a sidecar, as its `--address`), so that it can take the link away from that
 * process alone and give it back. It listens on 127.0.0.1 (port 0) and pipes every connection
 * to the target; `cut()` ends the connections it carries and handles new ones as the mode says,
 * `restore()` pipes again.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * How a cut link behaves:
 * - `refuse`: every connection is reset at once (the store is down: ECONNRESET);
 * - `blackhole`: connections are accepted and never answered (a hung network or store), until
 *   `restore()` resets them;
 * - `mute`: requests still reach the target, its answers are dropped (a reply lost on the way:
 *   the target acted, the client never hears of it). Open connections stay open.
 */
export type CutMode = 'refuse' | 'blackhole' | 'mute';

/**
 * One proxy to one target port.
 * @example
 * const proxy = await FaultProxy.start(store.url);
 * startSidecar(..., ['--store', proxy.url]);
 * proxy.cut('refuse'); ... proxy.restore();
 */
export class FaultProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #live = new Set<Socket>();
  readonly #held = new Set<Socket>();
  #mode: 'pass' | CutMode = 'pass';
  /** The target URL with this proxy's host and port instead. */
  readonly url: string;

  private constructor(server: Server, targetUrl: URL, port: number) {
    this.#server = server;
    this.#target = { host: targetUrl.hostname, port: Number(targetUrl.port || 80) };
    const url = new URL(targetUrl);
    url.host = `127.0.0.1:${port}`;
    this.url = url.toString();
  }

  /**
   * Starts a proxy for the host and port of `targetUrl` (an http URL on loopback); its `url` is
   * `targetUrl` with the proxy's port.
   */
  static async start(targetUrl: string): Promise<FaultProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
    const proxy = new FaultProxy(server, new URL(targetUrl), address.port);
    server.on('connection', (socket) => proxy.#accept(socket));
    return proxy;
  }

  /** `pass` while the link works, else the mode of the cut. */
  get mode(): 'pass' | CutMode {
    return this.#mode;
  }

  /** Takes the link away: connections in progress are reset (except when muting), new ones handled per `mode`. */
  cut(mode: CutMode = 'refuse'): void {
    this.#mode = mode;
    if (mode === 'mute') return;
    for (const socket of this.#live) socket.resetAndDestroy();
    this.#live.clear();
  }

  /** Gives the store back: held connections are reset (their clients retry), new ones are piped. */
  restore(): void {
    this.#mode = 'pass';
    for (const socket of this.#held) socket.resetAndDestroy();
    this.#held.clear();
  }

  /** Stops listening and ends every connection. */
  async close(): Promise<void> {
    this.cut('refuse');
    this.restore();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.#mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (this.#mode === 'blackhole') {
      this.#held.add(client);
      client.on('close', () => this.#held.delete(client));
      client.resume(); // read and drop what the client sends
      return;
    }
    const upstream = connect(this.#target.port, this.#target.host);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    // A reset of either side reaches the other; both are forgotten when the client closes.
    upstream.on('close', () => client.destroy());
    client.on('close', () => {
      upstream.destroy();
      this.#live.delete(client);
    });
    this.#live.add(client);
    client.pipe(upstream);
    // Not piped: a muted link drops what the target answers.
    upstream.on('data', (chunk: Buffer) => {
      if (this.#mode !== 'mute') client.write(chunk);
    });
  }
}

/** A loopback port free right now (for a process that must be told its port before it starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
