import type { Command } from 'commander';
import { ValueError } from '../errors.js';
import { createLogger, type Logger } from '../lib/logger.js';
import {
  describeConfig,
  formatEnvVars,
  loadSidecarConfig,
  warnDeprecated,
  type Deprecation,
  type SidecarConfig,
} from '../sidecar/config.js';
import { startSidecar } from '../sidecar/daemon.js';
import { UsageError } from './exit-codes.js';
import { addSettingOptions, settingFlags } from './flags.js';
import { setDaemonV8Flags } from './daemon-v8-flags.js';
import type { CliIo } from './io.js';
import { untilAborted, untilShutdown } from './shutdown-signal.js';

/** Parsed flags of `start`: `config`, and the settings' flags (see `settingFlags`). */
export interface StartFlags {
  config?: string;
  [setting: string]: string | boolean | undefined;
}

const HELP = `
Runs one resource's sidecar until SIGTERM or SIGINT: registers its Service, Workflows and
StateProperties, heartbeats, serves the HTTP surface, proxies workflow and state calls to the
device and runs the Operations dispatched to it there. With no store given it uses an embedded
store in ./.data/<resource> (or $STATE_DIRECTORY) and provisions the bundled ontology.
When registered it prints one JSON line on stdout: {"service", "address", "localApi"}; logs are
JSON lines on stderr. The first signal shuts down gracefully (no new triggers, in-flight work
drained or failed with a reason, Service deregistered); a second one quits at once.
Settings: flags > environment > --config file > defaults. Tokens and keys are read from files
(or SIDECAR_HTTP_TOKEN / SIDECAR_OUTGOING_TOKEN), never given as flags. The device is one
target: --device unix:/path/to.sock or --device http://host:port (--device-url and
--device-socket still work, with a deprecation warning).
Exit codes: 0 stopped by a signal, 1 failed (store, registration, device), 2 bad configuration.

Environment:
${formatEnvVars()}

Examples:
  $ semantic-sidecar start --config config/door1.yaml
  $ semantic-sidecar start --resource plant:door1 --service-class plant:ControllerService --store memory
  $ semantic-sidecar start --config config/door1.yaml --store http://127.0.0.1:8890/sparql --port 8011
`;

async function loadConfig(flags: StartFlags, env: NodeJS.ProcessEnv, deprecations: Deprecation[]): Promise<SidecarConfig> {
  try {
    return await loadSidecarConfig({
      ...(flags.config !== undefined && { file: flags.config }),
      env,
      flags: settingFlags(flags, 'start'),
      onDeprecated: (d) => deprecations.push(d),
    });
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

function daemonLogger(config: SidecarConfig): Logger {
  return createLogger({ destination: 2, level: config.log.level, ...(config.log.pretty !== undefined && { pretty: config.log.pretty }) });
}

/**
 * `start`: loads the configuration, starts the sidecar, prints where it is, waits for `stop`
 * and shuts down within the grace period plus a margin.
 */
export async function runStart(flags: StartFlags, io: CliIo, stop: AbortSignal): Promise<void> {
  setDaemonV8Flags();
  const deprecations: Deprecation[] = [];
  const config = await loadConfig(flags, io.env, deprecations);
  const root = daemonLogger(config);
  // Bound here, not on the root: the middleware binds `resource` to its own lines itself.
  const logger = root.child({ resource: config.resource });
  for (const deprecation of deprecations) warnDeprecated(logger, deprecation);
  logger.info({ config: describeConfig(config) }, 'configuration loaded');
  const sidecar = await startSidecar(config, { logger: root, signal: stop }).catch((error: unknown) => {
    // A signal during start-up (typically while waiting for the store) is a stop, not a
    // failure: exit 0, as documented; startSidecar has undone what it started.
    if (!stop.aborted) throw error;
    logger.info({ reason: String(stop.reason), err: error }, 'stopped during start-up; nothing stays registered');
    logger.flush();
    return undefined;
  });
  if (sidecar === undefined) return;
  io.stdout.write(
    `${JSON.stringify({ service: sidecar.middleware.serviceIri, address: sidecar.middleware.address, localApi: sidecar.localApi?.url })}\n`,
  );
  await untilAborted(stop);
  logger.info({ reason: String(stop.reason) }, 'shutting down');
  const deadline = config.shutdownGraceMs + 5_000;
  const timer = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`shutdown took longer than ${deadline} ms`)), deadline).unref(),
  );
  await Promise.race([sidecar.stop(), timer]);
  logger.info('stopped');
  logger.flush();
}

/** Adds `start` to the program. */
export function registerStartCommand(program: Command, io: CliIo): void {
  const command = program.command('start').option('-c, --config <file>', 'YAML or JSON configuration file (env SIDECAR_CONFIG)');
  addSettingOptions(command, 'start')
    .addHelpText('after', HELP)
    .action((flags: StartFlags) => untilShutdown((signal) => runStart(flags, io, signal)));
}
