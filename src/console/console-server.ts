/**
 * The web console as a server of its own: the plant watch and the console's routes on one
 * listener. `semantic-sidecar console` runs one; the watchdog runs one beside its own surface
 * when `consolePort` is set.
 */
import type { Server } from 'node:http';
import { closeServer } from '../http/close.js';
import { jsonApp } from '../http/json-app.js';
import { listen } from '../http/listen.js';
import type { Logger } from '../lib/logger.js';
import { CONSOLE_PATH, mountConsole } from './console-app.js';
import type { PlantStore } from './plant-reads.js';
import { PlantWatch } from './plant-watch.js';
import type { TokenSet } from '../http/named-tokens.js';

/** Options of {@link ConsoleServer}. */
export interface ConsoleServerOptions {
  /** The stores to read; rows name the store (its URL) they came from. Cancels go to the Operation's store. */
  stores: readonly PlantStore[];
  /** Named graph of the registrations in every store. */
  graph: string;
  host: string;
  /** TCP port; 0 picks a free one. */
  port: number;
  /** The plant's bearer token or its named tokens; without one the console is open to whoever reaches it. */
  token?: TokenSet | undefined;
  /** The staleness threshold of the liveness rule, in seconds (the watchdog's). */
  stalenessThreshold: number;
  /** Seconds between two reads of the plant. */
  refreshInterval: number;
  /**
   * PEM certificate (chain) and private key: serve HTTPS (the watchdog's, when it serves TLS),
   * and the session cookie is then `Secure`. Default: plain HTTP.
   */
  tls?: { cert: string; key: string } | undefined;
  logger: Logger;
}

/** How long open event streams get to close at stop. */
const CLOSE_GRACE_MS = 2000;

/**
 * Serves the console.
 * @example const console = new ConsoleServer({ stores, graph, host: '127.0.0.1', port: 0, stalenessThreshold: 90, refreshInterval: 2, logger }); await console.start(); console.url; await console.stop();
 */
export class ConsoleServer {
  readonly #options: ConsoleServerOptions;
  readonly #watch: PlantWatch;
  #server: Server | undefined;
  #url: string | undefined;

  constructor(options: ConsoleServerOptions) {
    this.#options = options;
    this.#watch = new PlantWatch({
      stores: options.stores,
      graph: options.graph,
      stalenessThresholdMs: options.stalenessThreshold * 1000,
      intervalMs: options.refreshInterval * 1000,
      logger: options.logger,
    });
  }

  /** The page's URL once listening, e.g. `http://127.0.0.1:8095/console/`. */
  get url(): string | undefined {
    return this.#url;
  }

  /** Starts reading the plant and listening. */
  async start(): Promise<void> {
    if (this.#server !== undefined) return;
    const { host, port, logger, tls } = this.#options;
    const app = jsonApp(logger, (app) => {
      app.get('/', (_req, res) => res.redirect(303, CONSOLE_PATH));
      app.get('/favicon.ico', (_req, res) => void res.status(204).end());
      mountConsole(app, { ...this.#options, watch: this.#watch });
    });
    this.#watch.start();
    const bound = await listen(app, { host, port }, tls === undefined ? {} : { tls });
    this.#server = bound.server;
    const scheme = tls === undefined ? 'http' : 'https';
    this.#url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${bound.port}${CONSOLE_PATH}`;
    logger.info(
      { url: this.#url, stores: this.#options.stores.map((s) => s.url), protected: this.#options.token !== undefined },
      'console listening',
    );
  }

  /** Stops the reads and the listener (open event streams are cut after a short grace). */
  async stop(): Promise<void> {
    await this.#watch.stop();
    if (this.#server !== undefined) {
      this.#server.closeAllConnections();
      await closeServer(this.#server, CLOSE_GRACE_MS);
    }
  }
}
