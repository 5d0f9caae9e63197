import { fileURLToPath } from 'node:url';
import { ValueError } from '../errors.js';
import { readSecretFile } from '../lib/secret-file.js';
import { unixSocketOf } from './remote-endpoint.js';
import { openRemoteStore } from './remote-store.js';
import type { TripleStore } from './triple-store.js';

/** Which store to open; see {@link parseStoreUrl} for the text form used by flags and env. */
export type StoreSpec =
  | ({ kind: 'memory' } & EmbeddedThreading)
  | ({ kind: 'embedded'; dataDir: string } & EmbeddedThreading)
  | {
      kind: 'remote';
      queryUrl: string;
      updateUrl?: string;
      user?: string;
      password?: string;
      timeoutMs?: number;
    };

/** Where the embedded store runs. */
export interface EmbeddedThreading {
  /**
   * Run it on a worker thread of its own, beside this thread's work instead of between it: a
   * process that requests and receives Operations itself gets most from it (see
   * `store-thread.ts`). Default false: one thread, less memory, the shortest latency.
   */
  ownThread?: boolean;
}

/**
 * Opens the store a spec names: the embedded Oxigraph store (ephemeral for `memory`, durable
 * in `dataDir` for `embedded`, on a thread of its own with `ownThread`) or a remote SPARQL 1.1
 * Protocol endpoint.
 *
 * @example
 * const store = await openStore(parseStoreUrl(process.env.SM_STORE ?? 'memory'));
 */
export async function openStore(spec: StoreSpec): Promise<TripleStore> {
  switch (spec.kind) {
    // Oxigraph (WASM, ~14 MB resident) is loaded only by processes that use the embedded store.
    case 'memory':
    case 'embedded': {
      const options = spec.kind === 'embedded' ? { dataDir: spec.dataDir } : {};
      if (spec.ownThread === true) return (await import('./store-thread.js')).openEmbeddedStoreThread(options);
      return (await import('./embedded-store.js')).openEmbeddedStore(options);
    }
    case 'remote': {
      const { queryUrl, updateUrl, user, password, timeoutMs } = spec;
      return openRemoteStore({ queryUrl, updateUrl, user, password, timeoutMs });
    }
    default:
      throw new ValueError(`unknown store kind ${JSON.stringify((spec as { kind: unknown }).kind)}`);
  }
}

/** Where a store location points, before credentials and options are added. */
export type StoreLocation = { kind: 'memory' } | { kind: 'embedded'; dataDir: string } | { kind: 'remote'; url: URL };

/** A location naming a remote store: an http(s) or http+unix URL. */
export const REMOTE_URL = /^(?:https?|http\+unix):\/\//iu;

/**
 * The one reader of store location text, shared by every command and the sidecar config:
 * `memory`, an `http(s)` URL (a remote SPARQL query endpoint, userinfo allowed) or an `http+unix:`
 * one (an endpoint on a Unix socket, as `store serve --socket` prints it), a `file:` URL, or
 * a directory path (relative paths stay relative; callers resolve them).
 * @returns the location, or the problem with the text (it does not repeat the text, which may
 *   hold credentials).
 * @example parseStoreLocation('memory') // { kind: 'memory' }
 */
export function parseStoreLocation(location: string): StoreLocation | { problem: string } {
  const text = location.trim();
  if (!text) return { problem: 'is empty (expected "memory", an http(s) or http+unix URL, or a directory)' };
  if (text === 'memory') return { kind: 'memory' };
  if (REMOTE_URL.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return { problem: 'is not a valid URL' };
    }
    try {
      unixSocketOf(url);
    } catch (error) {
      return { problem: (error as ValueError).message };
    }
    return { kind: 'remote', url };
  }
  if (/^file:/iu.test(text)) {
    try {
      return { kind: 'embedded', dataDir: fileURLToPath(text) };
    } catch {
      return { problem: 'is not a usable file: URL (expected e.g. "file:///var/lib/sm")' };
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(text))
    return { problem: 'has an unsupported scheme (expected "memory", an http(s) or http+unix URL, or a directory)' };
  return { kind: 'embedded', dataDir: text };
}

/** Options of a remote store besides its URL, as the settings give them. */
export interface RemoteStoreSettings {
  updateUrl?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
  timeoutMs?: number | undefined;
}

/**
 * The remote spec of `url`: userinfo moved out of the URL, used only where `settings` name no
 * user or password; the update URL defaults to the query URL.
 */
export function remoteStoreSpec(url: URL, settings: RemoteStoreSettings): Extract<StoreSpec, { kind: 'remote' }> {
  const bare = new URL(url.href);
  const urlUser = bare.username ? decodeURIComponent(bare.username) : undefined;
  const urlPassword = bare.password ? decodeURIComponent(bare.password) : undefined;
  bare.username = '';
  bare.password = '';
  const queryUrl = bare.toString();
  const user = settings.user || urlUser;
  const password = settings.password || urlPassword;
  return {
    kind: 'remote',
    queryUrl,
    updateUrl: settings.updateUrl || queryUrl,
    ...(user !== undefined && { user }),
    ...(password !== undefined && { password }),
    ...(settings.timeoutMs !== undefined && { timeoutMs: settings.timeoutMs }),
  };
}

/**
 * Reads a store location as given on the command line ({@link parseStoreLocation}) and, for a
 * remote store, its options from the environment: `SPARQL_UPDATE_URL` (default the same URL),
 * basic-auth credentials from `SPARQL_USER` and `SPARQL_PASSWORD`, or from the file named by
 * `SPARQL_PASSWORD_FILE` (its first line), or from userinfo in the URL (moved out of it);
 * `SPARQL_TIMEOUT_MS` sets the per-request timeout.
 *
 * @param env where the `SPARQL_*` variables are read; default `process.env`.
 * @throws ValueError naming what is wrong (never a credential).
 * @example
 * parseStoreUrl('http://127.0.0.1:8890/sparql', { SPARQL_USER: 'sm', SPARQL_PASSWORD_FILE: '/run/secrets/sparql' })
 */
export function parseStoreUrl(url: string, env: NodeJS.ProcessEnv = process.env): StoreSpec {
  const location = parseStoreLocation(url);
  if ('problem' in location) {
    const shown = REMOTE_URL.test(url.trim()) || !/:\/\//u.test(url) ? '' : ` ${JSON.stringify(`${url.trim().split('://')[0]}://...`)}`;
    throw new ValueError(`store location${shown} ${location.problem}`);
  }
  if (location.kind !== 'remote') return location;
  return remoteStoreSpec(location.url, {
    updateUrl: env.SPARQL_UPDATE_URL,
    user: env.SPARQL_USER,
    password: env.SPARQL_PASSWORD || passwordOfFile(env.SPARQL_PASSWORD_FILE),
    timeoutMs: parseTimeout(env.SPARQL_TIMEOUT_MS),
  });
}

function passwordOfFile(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const read = readSecretFile(file);
  if ('problem' in read) throw new ValueError(`SPARQL_PASSWORD_FILE ${JSON.stringify(file)} ${read.problem}`);
  return read.secret;
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new ValueError(`SPARQL_TIMEOUT_MS must be a positive integer of milliseconds, got ${JSON.stringify(value)}`);
  }
  return ms;
}
