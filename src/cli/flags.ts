import { Option } from 'commander';
import { StoreError, ValueError } from '../errors.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { openStore, parseStoreUrl } from '../store/open-store.js';
import type { TripleStore } from '../store/triple-store.js';
import { UsageError } from './exit-codes.js';

/**
 * Options and flag parsing shared by the commands: every command that touches the graph takes
 * `--store` (env `SM_STORE`) and `--log-level` (env `LOG_LEVEL`) the same way.
 */

/** `--store <url>`: mandatory, env `SM_STORE`. */
export function storeOption(): Option {
  return new Option('--store <url>', '"memory", a SPARQL endpoint URL (http/https) or an embedded store directory')
    .env('SM_STORE')
    .makeOptionMandatory();
}

/** `--log-level <level>`. */
export function logLevelOption(): Option {
  return new Option('--log-level <level>', 'trace, debug, info, warn, error, fatal or silent (env LOG_LEVEL; default info)');
}

/**
 * Opens the store named on the command line; a malformed location is a usage error. An
 * embedded data dir held by another process (a `store serve`, say) gets a hint to use that
 * process's endpoint instead.
 */
export async function openStoreFromFlag(location: string, env: NodeJS.ProcessEnv): Promise<TripleStore> {
  let spec;
  try {
    spec = parseStoreUrl(location, env);
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
