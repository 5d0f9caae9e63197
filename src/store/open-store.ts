import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ValueError } from '../errors.js';
import { openRemoteStore } from './remote-store.js';
import type { TripleStore } from './triple-store.js';

/** Which store to open; see {@link parseStoreUrl} for the text form used by flags and env. */
export type StoreSpec =
  | { kind: 'memory' }
  | { kind: 'embedded'; dataDir: string }
  | {
      kind: 'remote';
      queryUrl: string;
      updateUrl?: string;
      user?: string;
      password?: string;
      timeoutMs?: number;
    };

/**
 * Opens the store a spec names: the embedded Oxigraph store (ephemeral for `memory`, durable
 * in `dataDir` for `embedded`) or a remote SPARQL 1.1 Protocol endpoint.
 *
 * @example
 * const store = await openStore(parseStoreUrl(process.env.SM_STORE ?? 'memory'));
 */
export async function openStore(spec: StoreSpec): Promise<TripleStore> {
  switch (spec.kind) {
    // Oxigraph (WASM, ~14 MB resident) is loaded only by processes that use the embedded store.
    case 'memory':
      return (await import('./embedded-store.js')).openEmbeddedStore({});
    case 'embedded':
      return (await import('./embedded-store.js')).openEmbeddedStore({ dataDir: spec.dataDir });
    case 'remote': {
      const { kind: _kind, ...options } = spec;
      return openRemoteStore(options);
    }
    default:
      throw new ValueError(`unknown store kind ${JSON.stringify((spec as { kind: unknown }).kind)}`);
  }
}

/**
 * Reads a store location as given on the command line or in config:
 * - `memory`: an ephemeral embedded store;
 * - an `http:` or `https:` URL: a remote SPARQL endpoint (the query URL). The update URL is
 *   `SPARQL_UPDATE_URL` or the same URL; basic-auth credentials come from `SPARQL_USER` and
 *   `SPARQL_PASSWORD`, or from the file named by `SPARQL_PASSWORD_FILE` (its first line), or from
 *   userinfo in the URL (moved out of it); `SPARQL_TIMEOUT_MS` sets the per-request timeout;
 * - anything else (a path, or a `file:` URL): the data directory of a durable embedded store.
 *
 * @param env where the `SPARQL_*` variables are read; default `process.env`.
 * @example
 * parseStoreUrl('http://127.0.0.1:8890/sparql', { SPARQL_USER: 'sm', SPARQL_PASSWORD_FILE: '/run/secrets/sparql' })
 */
export function parseStoreUrl(url: string, env: NodeJS.ProcessEnv = process.env): StoreSpec {
  const text = url.trim();
  if (!text) throw new ValueError('store location is empty (expected "memory", an http(s) URL or a directory)');
  if (text === 'memory') return { kind: 'memory' };
  if (/^https?:\/\//iu.test(text)) return remoteSpec(text, env);
  if (/^file:/iu.test(text)) {
    try {
      return { kind: 'embedded', dataDir: fileURLToPath(text) };
    } catch (cause) {
      throw new ValueError(`store location ${JSON.stringify(text)} is not a usable file: URL`, { cause });
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(text)) {
    const scheme = JSON.stringify(`${text.split('://')[0]}://...`);
    throw new ValueError(`store location ${scheme} has an unsupported scheme (expected http(s) or file)`);
  }
  return { kind: 'embedded', dataDir: text };
}

function remoteSpec(text: string, env: NodeJS.ProcessEnv): StoreSpec {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new ValueError('store URL is not a valid URL', { cause });
  }
  const urlUser = url.username ? decodeURIComponent(url.username) : undefined;
  const urlPassword = url.password ? decodeURIComponent(url.password) : undefined;
  url.username = '';
  url.password = '';
  const queryUrl = url.toString();
  const user = env.SPARQL_USER || urlUser;
  const password = env.SPARQL_PASSWORD || readPasswordFile(env.SPARQL_PASSWORD_FILE) || urlPassword;
  const timeoutMs = parseTimeout(env.SPARQL_TIMEOUT_MS);
  return {
    kind: 'remote',
    queryUrl,
    updateUrl: env.SPARQL_UPDATE_URL || queryUrl,
    ...(user !== undefined && { user }),
    ...(password !== undefined && { password }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

function readPasswordFile(file: string | undefined): string | undefined {
  if (!file) return undefined;
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new ValueError(`SPARQL_PASSWORD_FILE ${JSON.stringify(file)} cannot be read: ${code}`, { cause });
  }
  // Secret files usually end with a newline that is not part of the password.
  return content.split(/\r?\n/u)[0] ?? '';
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new ValueError(`SPARQL_TIMEOUT_MS must be a positive integer of milliseconds, got ${JSON.stringify(value)}`);
  }
  return ms;
}
