import type { Command } from 'commander';
import { ValueError } from '../errors.js';
import { createLogger } from '../lib/logger.js';
import { SemanticMiddleware } from '../middleware/semantic-middleware.js';
import { OGM } from '../ogm/index.js';
import { describeConfig, loadSidecarConfig, securityOptionsOf } from '../sidecar/config.js';
import type { SidecarConfig } from '../sidecar/config-types.js';
import { openConfiguredStore } from '../sidecar/store-startup.js';
import { ONTOLOGY_GRAPHS } from '../vocab/graphs.js';
import { UsageError } from './exit-codes.js';
import type { CliIo } from './io.js';
import { untilAborted, untilShutdown } from './shutdown-signal.js';

/** Parsed flags of `watchdog`. */
export interface WatchdogFlags {
  config?: string;
  store?: string;
  graph?: string;
  stalenessThreshold?: string;
  sweepInterval?: string;
  host?: string;
  port?: string;
  once?: boolean;
  activityFeed?: boolean;
  logLevel?: string;
}

const HELP = `
Sweeps Services whose heartbeat is older than --staleness-threshold seconds: deregisters them and
fails the Operations stranded on their resources (unless a surviving Service realizes the
Operation's Capability). Sweeps at once, then every --sweep-interval seconds, until SIGTERM or
SIGINT; with --once it sweeps one time and prints the swept Service IRIs as a JSON array.
It serves GET /, /healthz, /readyz (and /activity with --activity-feed) on --host/--port.
Exit codes: 0 done or stopped by a signal, 1 failed, 2 bad configuration.

Examples:
  $ semantic-sidecar watchdog --store http://127.0.0.1:7878/sparql --staleness-threshold 90
  $ semantic-sidecar watchdog --config config/watchdog.yaml
  $ semantic-sidecar watchdog --store http://127.0.0.1:7878/sparql --once
`;

async function loadConfig(flags: WatchdogFlags, env: NodeJS.ProcessEnv): Promise<SidecarConfig> {
  const settings = {
    store: flags.store,
    namedGraph: flags.graph,
    stalenessThreshold: flags.stalenessThreshold,
    sweepInterval: flags.sweepInterval,
    host: flags.host,
    port: flags.port,
    activityFeed: flags.activityFeed,
    'log.level': flags.logLevel,
  };
  try {
    return await loadSidecarConfig({
      ...(flags.config !== undefined && { file: flags.config }),
      env,
      flags: settings,
      purpose: 'watchdog',
    });
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** `watchdog`: a watchdog-mode middleware on the configured store, until `stop` aborts. */
export async function runWatchdog(flags: WatchdogFlags, io: CliIo, stop: AbortSignal): Promise<void> {
  const config = await loadConfig(flags, io.env);
  // The middleware binds its own `component`; binding one on the root too would repeat the key.
  const root = createLogger({ destination: 2, level: config.log.level });
  const logger = root.child({ component: 'watchdog' });
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
    });
    if (flags.once) {
      io.stdout.write(`${JSON.stringify(await mw.sweep())}\n`);
      return;
    }
    await mw.start();
    io.stdout.write(`${JSON.stringify({ address: mw.address })}\n`);
    await untilAborted(stop);
    await mw.stop();
  } finally {
    await store.close();
  }
}

/** Adds `watchdog` to the program. */
export function registerWatchdogCommand(program: Command, io: CliIo): void {
  program
    .command('watchdog')
    .description('sweep stale Services and fail the Operations stranded on their resources')
    .option('-c, --config <file>', 'YAML or JSON configuration file (env SIDECAR_CONFIG)')
    .option('--store <url>', '"memory", a SPARQL endpoint URL or an embedded store directory')
    .option('--graph <iri>', 'named graph of the instance data')
    .option('--staleness-threshold <seconds>', 'heartbeat age at which a Service is stale (default 90)')
    .option('--sweep-interval <seconds>', 'seconds between sweeps (default 30)')
    .option('--host <host>', 'interface of the HTTP surface (default 127.0.0.1)')
    .option('--port <port>', 'port of the HTTP surface (0 picks one)')
    .option('--once', 'sweep one time, print the swept Services, exit')
    .option('--activity-feed', 'serve GET /activity and /activity/stream')
    .option('--log-level <level>', 'trace, debug, info, warn, error, fatal or silent')
    .addHelpText('after', HELP)
    .action((flags: WatchdogFlags) => untilShutdown((signal) => runWatchdog(flags, io, signal)));
}
