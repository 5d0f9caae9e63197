import type { Command } from 'commander';
import { ValueError } from '../errors.js';
import { CONSOLE_DEFAULT_REFRESH_SECONDS } from '../console/console-defaults.js';
import { createLogger, type Logger } from '../lib/logger.js';
import type { TripleStore } from '../store/triple-store.js';
import { SemanticMiddleware } from '../middleware/semantic-middleware.js';
import { OGM } from '../ogm/index.js';
import {
  describeConfig,
  loadSidecarConfig,
  securityOptionsOf,
  warnDeprecated,
  type Deprecation,
  type SidecarConfig,
} from '../sidecar/config.js';
import { openConfiguredStore } from '../sidecar/store-startup.js';
import { ONTOLOGY_GRAPHS } from '../vocab/graphs.js';
import { UsageError } from './exit-codes.js';
import { addSettingOptions, settingFlags } from './flags.js';
import type { CliIo } from './io.js';
import { untilAborted, untilShutdown } from './shutdown-signal.js';
import type { TokenSet } from '../http/named-tokens.js';

/** Parsed flags of `watchdog`: `config`, `once`, and the settings' flags (see `settingFlags`). */
export interface WatchdogFlags {
  config?: string;
  once?: boolean;
  [setting: string]: string | boolean | undefined;
}

const HELP = `
Sweeps Services whose heartbeat is older than --staleness-threshold seconds: deregisters them and
fails the Operations stranded on their resources (unless a surviving Service realizes the
Operation's Capability). Sweeps at once, then every --sweep-interval seconds, until SIGTERM or
SIGINT; with --once it sweeps one time and prints the swept Service IRIs as a JSON array.
It serves GET /, /healthz, /readyz, /metrics (and /activity with --activity-feed) on --host/--port,
and with --console-port the web console of the plant (behind --http-token-file and over HTTPS
with --http-tls-cert-file, as the rest).
Settings: flags > environment > --config file > defaults (the variables are those of start).
Exit codes: 0 done or stopped by a signal, 1 failed, 2 bad configuration.

Examples:
  $ semantic-sidecar watchdog --store http://127.0.0.1:7878/sparql --staleness-threshold 90
  $ semantic-sidecar watchdog --config config/watchdog.yaml
  $ semantic-sidecar watchdog --store http://127.0.0.1:7878/sparql --once
  $ semantic-sidecar watchdog --store http://127.0.0.1:7878/sparql --console-port 8095
`;

async function loadConfig(flags: WatchdogFlags, env: NodeJS.ProcessEnv, deprecations: Deprecation[]): Promise<SidecarConfig> {
  try {
    return await loadSidecarConfig({
      ...(flags.config !== undefined && { file: flags.config }),
      env,
      flags: settingFlags(flags, 'watchdog'),
      purpose: 'watchdog',
      onDeprecated: (d) => deprecations.push(d),
    });
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/**
 * The web console beside the watchdog's surface, when `consolePort` is set: on the watchdog's
 * host, over its store, behind its token, over its TLS when it has one, judging heartbeats by
 * its threshold. Loaded only then.
 */
async function startWatchdogConsole(
  config: SidecarConfig,
  store: TripleStore,
  token: TokenSet | undefined,
  tls: { cert: string; key: string } | null,
  logger: Logger,
): Promise<{ url: string | undefined; stop: () => Promise<void> } | undefined> {
  if (config.consolePort === null) return undefined;
  const { ConsoleServer } = await import('../console/console-server.js');
  const server = new ConsoleServer({
    stores: [{ url: config.store.url, client: store }],
    graph: config.namedGraph,
    host: config.host,
    port: config.consolePort,
    token,
    tls: tls ?? undefined,
    stalenessThreshold: config.stalenessThreshold,
    refreshInterval: CONSOLE_DEFAULT_REFRESH_SECONDS,
    logger: logger.child({ component: 'console' }),
  });
  await server.start();
  return { url: server.url, stop: () => server.stop() };
}

/** `watchdog`: a watchdog-mode middleware on the configured store, until `stop` aborts. */
export async function runWatchdog(flags: WatchdogFlags, io: CliIo, stop: AbortSignal): Promise<void> {
  const deprecations: Deprecation[] = [];
  const config = await loadConfig(flags, io.env, deprecations);
  // The middleware binds its own `component`; binding one on the root too would repeat the key.
  const root = createLogger({ destination: 2, level: config.log.level });
  const logger = root.child({ component: 'watchdog' });
  for (const deprecation of deprecations) warnDeprecated(logger, deprecation);
  logger.info({ config: describeConfig(config) }, 'configuration loaded');
  const store = await openConfiguredStore(config, logger, stop).catch((error: unknown) => {
    // A signal while waiting for the store is a stop, not a failure: exit 0, as documented.
    if (!stop.aborted) throw error;
    logger.info({ reason: String(stop.reason), err: error }, 'stopped before the store answered');
    return undefined;
  });
  if (store === undefined) return;
  try {
    const ogm = new OGM({ store, graph: config.namedGraph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    const { httpToken, tls } = securityOptionsOf(config);
    const mw = new SemanticMiddleware({
      httpToken,
      tls,
      mode: 'watchdog',
      ogm,
      host: config.host,
      port: config.port,
      namedGraph: config.namedGraph,
      stalenessThreshold: config.stalenessThreshold,
      sweepInterval: config.sweepInterval,
      activityFeed: config.activityFeed,
      activityCapacity: config.activityCapacity,
      logger: root,
      accessLogLevel: config.log.accessLevel,
    });
    if (flags.once) {
      io.stdout.write(`${JSON.stringify(await mw.sweep())}\n`);
      return;
    }
    await mw.start();
    const plantConsole = await startWatchdogConsole(config, store, httpToken ?? undefined, tls, root);
    io.stdout.write(`${JSON.stringify({ address: mw.address, ...(plantConsole && { console: plantConsole.url }) })}\n`);
    await untilAborted(stop);
    await plantConsole?.stop();
    await mw.stop();
  } finally {
    await store.close();
  }
}

/** Adds `watchdog` to the program. */
export function registerWatchdogCommand(program: Command, io: CliIo): void {
  const command = program
    .command('watchdog')
    .option('-c, --config <file>', 'YAML or JSON configuration file (env SIDECAR_CONFIG)')
    .option('--once', 'sweep one time, print the swept Services, exit');
  addSettingOptions(command, 'watchdog')
    .addHelpText('after', HELP)
    .action((flags: WatchdogFlags) => untilShutdown((signal) => runWatchdog(flags, io, signal)));
}
