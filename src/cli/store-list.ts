import { Option } from 'commander';
import { ValueError } from '../errors.js';
import type { StoreEndpoint } from '../federation/select-across-stores.js';
import { SETTINGS } from '../settings.js';
import { parseStoreUrl } from '../store/open-store.js';
import { UsageError } from './exit-codes.js';
import { storeLocation } from './flags.js';
import { UNIX_SOCKET_SCHEME } from '../store/remote-endpoint.js';

/**
 * `--store <url>` of the read commands that read across several stores (`discover`, `status`):
 * given once it names the one store, as everywhere else; given again, every store it names is
 * read at once.
 */

const STORE = SETTINGS['store.url'];

/** `--store <url>`, repeatable: the values collect into a list. */
export function storesOption(): Option {
  return new Option(
    STORE.flag,
    `${STORE.description}; repeat it to read across several SPARQL endpoints (env ${STORE.env}; required)`,
  ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
}

/** The store locations given (each once, in order), or the one of `SM_STORE`; a usage error when none is. */
export function storeLocations(flag: string | readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  const given = typeof flag === 'string' ? [flag] : (flag ?? []);
  return given.length === 0 ? [storeLocation(undefined, env)] : [...new Set(given)];
}

/**
 * The endpoints of several store locations: each must be an http(s) SPARQL endpoint (an
 * embedded store is one process's own; `store serve` serves it), with credentials and timeout
 * from the `SPARQL_*` variables as for one store. Stores are named by their query URL, never
 * with credentials.
 */
export function storeEndpoints(locations: readonly string[], env: NodeJS.ProcessEnv): StoreEndpoint[] {
  return locations.map((location) => {
    let spec;
    try {
      spec = parseStoreUrl(location, env);
    } catch (error) {
      if (error instanceof ValueError) throw new UsageError(`--store: ${error.message}`, { cause: error });
      throw error;
    }
    // Comunica, which reads across them, reaches endpoints over TCP only.
    if (spec.kind !== 'remote' || spec.queryUrl.startsWith(UNIX_SOCKET_SCHEME)) {
      throw new UsageError(
        '--store: reading across several stores takes SPARQL endpoints (http(s) URLs) only; serve an embedded store with `semantic-sidecar store serve --port`',
      );
    }
    const { queryUrl: url, user, password, timeoutMs } = spec;
    return {
      url,
      ...(user !== undefined && { user }),
      ...(password !== undefined && { password }),
      ...(timeoutMs !== undefined && { timeoutMs }),
    };
  });
}
