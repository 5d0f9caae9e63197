import { Option, type Command } from 'commander';
import { assertToken } from '../http/bearer-auth.js';
import { CONSOLE_DEFAULT_PORT, CONSOLE_DEFAULT_REFRESH_SECONDS } from '../console/console-defaults.js';
import { ConsoleServer } from '../console/console-server.js';
import type { PlantStore } from '../console/plant-reads.js';
import { ValueError } from '../errors.js';
import { parseTokenFile, type TokenSet } from '../http/named-tokens.js';
import { readSecretText } from '../lib/secret-file.js';
import { defaultOf, SETTINGS } from '../settings.js';
import { DEFAULT_DATA_GRAPH } from '../vocab/defaults.js';
import { expandIri } from './curie.js';
import { UsageError } from './exit-codes.js';
import { cliLogger, integerFlag, logLevelOption, openStoreFromFlag } from './flags.js';
import type { CliIo } from './io.js';
import { untilAborted, untilShutdown } from './shutdown-signal.js';
import { storeEndpoints, storeLocations } from './store-list.js';

/** Parsed options of `console`. */
export interface ConsoleFlags {
  store?: string[];
  graph?: string;
  host: string;
  port: string;
  tokenFile?: string;
  stalenessThreshold: string;
  refresh: string;
  logLevel?: string;
}

const TOKEN_FILE = SETTINGS['http.tokenFile'];

const HELP = `
Serves the web console of the plant: every Service with its reachability and heartbeat age,
Capabilities, queued and running Operations (with a Cancel button), recently done and failed
Operations with result, failure kind, failure state and provenance, who possesses which
workpiece, and what changed lately. It reads every --store (repeat the flag; rows name their
store) every --refresh seconds and updates open pages live (server-sent events).
With --token-file (or ${TOKEN_FILE.env}) the console wants the plant's bearer token: a browser
signs in once with it (a session cookie), programs send "Authorization: Bearer <token>".
Prints {"console": "<url>"} when listening; runs until SIGTERM or SIGINT.
Exit codes: 0 stopped by a signal, 1 failed, 2 usage error.

Examples:
  $ semantic-sidecar console --store http://127.0.0.1:7878/sparql
  $ semantic-sidecar console --store http://hall1:7878/sparql --store http://hall2:7878/sparql --port 8095 --token-file /etc/plant/token
`;

function numberFlag(value: string, flag: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive number of seconds, got ${JSON.stringify(value)}`);
  return n;
}

/** The console's tokens: a single-token file or a named-token file, as the sidecar reads them. */
function readTokens(file: string | undefined): TokenSet | undefined {
  if (file === undefined) return undefined;
  const read = readSecretText(file);
  if ('problem' in read) throw new UsageError(`--token-file ${file} ${read.problem}`);
  try {
    const tokens = parseTokenFile(read.text);
    return typeof tokens === 'string' ? assertToken(tokens, `the token in ${file}`) : tokens;
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(`--token-file ${file}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** `console`: serves the console over the given stores until `stop` aborts. */
export async function runConsole(flags: ConsoleFlags, io: CliIo, stop: AbortSignal): Promise<void> {
  const logger = cliLogger(flags.logLevel);
  const urls = storeLocations(flags.store, io.env);
  const port = integerFlag(flags.port, '--port', 0, 65535);
  const stalenessThreshold = numberFlag(flags.stalenessThreshold, '--staleness-threshold');
  const refreshInterval = numberFlag(flags.refresh, '--refresh');
  const graph = flags.graph === undefined ? DEFAULT_DATA_GRAPH : expandIri(flags.graph, '--graph');
  const token = readTokens(flags.tokenFile ?? (io.env[TOKEN_FILE.env] || undefined));
  const stores: PlantStore[] = [];
  try {
    // Several stores are read together through Comunica, so each must be a SPARQL endpoint.
    const endpoints = urls.length > 1 ? storeEndpoints(urls, io.env) : undefined;
    for (const [i, url] of urls.entries()) {
      const endpoint = endpoints?.[i];
      stores.push({ url: endpoint?.url ?? url, client: await openStoreFromFlag(url, io.env), ...(endpoint && { endpoint }) });
    }
    const server = new ConsoleServer({ stores, graph, host: flags.host, port, token, stalenessThreshold, refreshInterval, logger });
    await server.start();
    io.stdout.write(`${JSON.stringify({ console: server.url })}\n`);
    await untilAborted(stop);
    await server.stop();
  } finally {
    await Promise.all(stores.map((s) => s.client.close()));
  }
}

/** Adds `console` to the program. */
export function registerConsoleCommand(program: Command, io: CliIo): void {
  program
    .command('console')
    .addOption(
      new Option(
        '--store <url>',
        `a SPARQL endpoint or store location to read; repeat for several (default env ${SETTINGS['store.url'].env})`,
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .option('--graph <iri>', 'named graph of the registrations in every store', DEFAULT_DATA_GRAPH)
    .option('--host <host>', 'interface to listen on', defaultOf('host'))
    .option('--port <port>', 'TCP port; 0 picks a free one', String(CONSOLE_DEFAULT_PORT))
    .option(
      '--token-file <file>',
      `file with the plant's bearer token, or its named tokens one per line (env ${TOKEN_FILE.env}); without it the console is open`,
    )
    .option(
      '--staleness-threshold <seconds>',
      "the watchdog's staleness threshold, for judging heartbeats",
      String(defaultOf('stalenessThreshold')),
    )
    .option('--refresh <seconds>', 'seconds between two reads of the plant', String(CONSOLE_DEFAULT_REFRESH_SECONDS))
    .addOption(logLevelOption())
    .addHelpText('after', HELP)
    .action((flags: ConsoleFlags) => untilShutdown((signal) => runConsole(flags, io, signal)));
}
