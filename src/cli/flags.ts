import { Option, type Command } from 'commander';
import { StoreError, ValueError } from '../errors.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { SETTING_ROWS, SETTINGS, type Setting, type SettingCommand } from '../settings.js';
import { warnDeprecated } from '../sidecar/config.js';
import { openStore, parseStoreUrl } from '../store/open-store.js';
import type { TripleStore } from '../store/triple-store.js';
import { UsageError } from './exit-codes.js';

/**
 * Options and flag parsing shared by the commands: every command that touches the graph takes
 * `--store` and `--log-level` the same way, with the variables of the settings table
 * (`SM_STORE`, `LOG_LEVEL`); `start` and `watchdog` take their flags from that table.
 */

const STORE = SETTINGS['store.url'];

/** What `--help` says of a setting: its description, default and variable. */
function helpOf(setting: Setting): string {
  const extra = [
    ...(typeof setting.default === 'string' || typeof setting.default === 'number' || typeof setting.default === 'boolean'
      ? [`default ${setting.default}`]
      : []),
    ...(setting.env === undefined ? [] : [`env ${setting.env}`]),
  ];
  return extra.length === 0 ? setting.description : `${setting.description} (${extra.join('; ')})`;
}

const flagRows = (command: SettingCommand): (readonly [string, Setting])[] =>
  SETTING_ROWS.filter(([, s]) => s.flag !== undefined && s.commands?.includes(command));

/** Adds the flags of `command`'s settings, from the settings table, in its order. */
export function addSettingOptions(cmd: Command, command: SettingCommand): Command {
  for (const [, setting] of flagRows(command)) cmd.addOption(new Option(setting.flag!, helpOf(setting)));
  return cmd;
}

/**
 * The parsed flags of `command`'s settings keyed by config path, as `loadSidecarConfig` takes them.
 * A `--no-x` flag counts only when given: commander sets its option to `true` otherwise, which
 * must not override the file or the environment.
 */
export function settingFlags(options: Readonly<Record<string, unknown>>, command: SettingCommand): Record<string, unknown> {
  return Object.fromEntries(
    flagRows(command).map(([path, s]) => {
      const option = new Option(s.flag!);
      const value = options[option.attributeName()];
      return [path, option.negate && value === true ? undefined : value];
    }),
  );
}

/**
 * `--store <url>` of the commands without a config file. Required, but checked by
 * {@link storeLocation} rather than commander, so that the variables are read from the command's
 * environment, deprecated names included.
 */
export function storeOption(): Option {
  return new Option(STORE.flag, `${STORE.description} (env ${STORE.env}; required)`);
}

/**
 * The store location: `--store`, else `SM_STORE`, else a deprecated name of it (logged once as
 * deprecated); a usage error when none is given.
 */
export function storeLocation(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined) return flag;
  if (env[STORE.env]) return env[STORE.env]!;
  const old = STORE.deprecatedEnv.find((name) => env[name]);
  if (old === undefined) throw new UsageError(`required option '${STORE.flag}' not specified (or set ${STORE.env})`);
  warnDeprecated(createLogger({ destination: 2 }), { old, use: STORE.env });
  return env[old]!;
}

/** `--log-level <level>`. */
export function logLevelOption(): Option {
  return new Option(SETTINGS['log.level'].flag, helpOf(SETTINGS['log.level']));
}

/**
 * Opens the store named on the command line; a malformed location is a usage error. An
 * embedded data dir held by another process (a `store serve`, say) gets a hint to use that
 * process's endpoint instead.
 */
export async function openStoreFromFlag(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<TripleStore> {
  let spec;
  try {
    spec = parseStoreUrl(storeLocation(flag, env), env);
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(`--store: ${error.message}`, { cause: error });
    throw error;
  }
  try {
    return await openStore(spec);
  } catch (error) {
    if (spec.kind === 'embedded' && error instanceof StoreError && /\bis in use by\b/u.test(error.message)) {
      const hint =
        ' If `semantic-sidecar store serve` serves it, pass its endpoint instead (by default --store http://127.0.0.1:7878/sparql).';
      throw new StoreError(error.message + hint, error.endpoint, error.httpStatus, { cause: error });
    }
    throw error;
  }
}

/** The command's logger (JSON lines on stderr); a bad level is a usage error. */
export function cliLogger(level: string | undefined): Logger {
  try {
    return createLogger({ destination: 2, ...(level === undefined ? {} : { level }) });
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(`--log-level: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Parses a whole number flag in `[min, max]`; anything else is a usage error naming the flag. */
export function integerFlag(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}
