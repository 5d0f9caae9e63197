import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { Option, type Command } from 'commander';
import { isLoopbackHost } from '../http/loopback.js';
import { provisionOntology } from '../ontology/provision.js';
import { serveSparql, type SparqlServer } from '../store/sparql-server.js';
import { UsageError } from './exit-codes.js';
import { cliLogger, integerFlag, logLevelOption } from './flags.js';
import type { CliIo } from './io.js';
import { untilAborted, untilShutdown } from './shutdown-signal.js';

// Kept importable from here, where the long-running commands first found it.
export { shutdownSignal } from './shutdown-signal.js';

/** Parsed options of `store serve`. */
export interface StoreServeOptions {
  dataDir?: string;
  memory?: boolean;
  host: string;
  port: string;
  socket?: string;
  provision?: boolean;
  tokenFile?: string;
  logLevel?: string;
}

/** Default port of `store serve`. */
export const STORE_SERVE_PORT = 7878;

const HELP = `
Serves the embedded store as a SPARQL 1.1 Protocol endpoint, so that sidecars, the watchdog and
stock SPARQL clients share it (--store http://127.0.0.1:${STORE_SERVE_PORT}/sparql). A query's default graph is
the union of all graphs; SELECT/ASK answer JSON, XML, CSV or TSV and CONSTRUCT/DESCRIBE Turtle,
N-Triples, N-Quads or JSON-LD, as Accept asks. An update is acknowledged, and seen by readers,
only once it is on disk (--data-dir). The endpoint URL is the first line on stdout;
logs are JSON lines on stderr (each request at debug). SIGTERM or SIGINT stops it cleanly:
requests in flight finish, the journal is flushed and the data dir lock released; a second
signal quits at once. Beyond loopback (--host) the endpoint needs --token-file; clients then
send the token as basic-auth password (SPARQL_USER=any, SPARQL_PASSWORD_FILE=<the file>).
Exit codes: 0 stopped by a signal, 1 failed (data dir in use, port taken), 2 usage error.

Examples:
  $ semantic-sidecar store serve --data-dir /var/lib/semantic-sidecar --provision
  $ semantic-sidecar store serve --memory --port 0
  $ semantic-sidecar store serve --data-dir ./store --socket /run/semantic-sidecar/store.sock
`;

/**
 * `store serve`: opens the embedded store (durable in `--data-dir`, or `--memory`), optionally
 * provisions the bundled ontology, serves it until `stop` aborts, then closes the server and
 * the store (journal flushed, lock released). Prints the endpoint URL as the first stdout line.
 */
export async function runStoreServe(options: StoreServeOptions, io: CliIo, stop: AbortSignal): Promise<void> {
  const where = listenOptions(options);
  const logger = cliLogger(options.logLevel);
  const token = options.tokenFile === undefined ? undefined : await readToken(options.tokenFile);
  if (token === undefined && where.socketPath === undefined && !isLoopbackHost(where.host)) {
    throw new UsageError(`--host ${where.host} is not loopback: serving the store beyond this machine needs --token-file`);
  }
  const { openEmbeddedStore } = await import('../store/embedded-store.js');
  const store = await openEmbeddedStore({ ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }), logger });
  let server: SparqlServer | undefined;
  try {
    if (options.provision) await provisionOntology(store, { logger });
    server = await serveSparql(store, { ...where, logger, ...(token === undefined ? {} : { token }) });
    io.stdout.write(`${server.url}\n`);
    logger.info({ url: server.url, store: store.description }, 'store serving');
    await untilAborted(stop);
    logger.info({ reason: String(stop.reason) }, 'store stopping');
  } finally {
    await server?.close();
    await store.close();
  }
  logger.info({ store: store.description }, 'store stopped');
}

function listenOptions(options: StoreServeOptions): { host: string; port: number; socketPath?: string } {
  if ((options.dataDir === undefined) === (options.memory !== true)) {
    throw new UsageError('store serve needs exactly one of --data-dir <dir> (durable) or --memory (ephemeral)');
  }
  const host = options.host.trim();
  if (host !== 'localhost' && isIP(host) === 0)
    throw new UsageError(`--host must be an IP address or localhost, got ${JSON.stringify(options.host)}`);
  const port = integerFlag(options.port, '--port', 0, 65_535);
  return { host, port, ...(options.socket === undefined ? {} : { socketPath: options.socket }) };
}

async function readToken(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--token-file ${JSON.stringify(file)} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {
      cause: error,
    });
  }
  // Secret files usually end with a newline that is not part of the token.
  const token = (text.split(/\r?\n/u)[0] ?? '').trim();
  if (token.length < 8)
    throw new UsageError(`--token-file ${JSON.stringify(file)}: the token (its first line) must hold at least 8 characters`);
  return token;
}

/** Adds `store serve` to the program. */
export function registerStoreCommand(program: Command, io: CliIo): void {
  const store = program.command('store');
  store
    .command('serve')
    .description('serve the embedded store as a SPARQL 1.1 Protocol endpoint (loopback by default)')
    .addOption(new Option('--data-dir <dir>', 'durable store directory (snapshot + journal, locked while served)').conflicts('memory'))
    .option('--memory', 'ephemeral store: nothing is kept after it stops')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'TCP port (0 picks a free one)', String(STORE_SERVE_PORT))
    .option('--socket <path>', 'listen on this Unix socket instead of TCP')
    .option('--provision', 'load the bundled ontology modules first (unchanged ones are skipped)')
    .addOption(
      new Option('--token-file <file>', 'require the token in this file (its first line) from every client').env('SM_STORE_TOKEN_FILE'),
    )
    .addOption(logLevelOption())
    .addHelpText('after', HELP)
    .action((options: StoreServeOptions) => untilShutdown((signal) => runStoreServe(options, io, signal)));
}
