/**
 * Resolves the store settings: where the graph lives (embedded data directory by default,
 * `memory`, or a remote endpoint with its update URL and credentials), whether the ontology is
 * provisioned at start, and the extra ontology files.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { ONTOLOGY_FILE_EXTENSIONS } from '../ontology/formats.js';
import { defaultOf } from '../settings.js';
import { parseStoreLocation, REMOTE_URL, remoteStoreSpec } from '../store/open-store.js';
import { pathKey, systemdDirectory } from './config-layers.js';
import type { StoreConfig } from './config-types.js';
import { absolutePath, httpUrlProblem, readSecret, report, at, textAt, type ResolveContext } from './config-values.js';
import { UNIX_SOCKET_SCHEME } from '../store/remote-endpoint.js';

/**
 * A directory name for a resource: its local name made file-safe plus 8 hex of the IRI's hash,
 * so `plant#door1` gives `door1-<hash>` and two resources with one local name never collide.
 */
export function resourceSlug(resource: string): string {
  const local = resource.split(/[#/:]/u).at(-1) ?? '';
  const safe =
    local
      .replace(/[^A-Za-z0-9._-]/gu, '-')
      .replace(/^[.-]+/u, '')
      .slice(0, 40) || 'resource';
  return `${safe}-${createHash('sha256').update(resource).digest('hex').slice(0, 8)}`;
}

/** `$STATE_DIRECTORY` (systemd), else `./.data/<slug>`: home of the default store and socket. */
export function stateDirectory(ctx: ResolveContext, resource: string | undefined): string {
  const slug = ctx.purpose === 'watchdog' ? 'watchdog' : resource === undefined ? 'default' : resourceSlug(resource);
  return systemdDirectory(ctx.env, 'STATE_DIRECTORY') ?? resolve(ctx.cwd, '.data', slug);
}

/** Which store a resolved {@link StoreConfig} names. */
export function storeKindOf(store: StoreConfig): 'memory' | 'embedded' | 'remote' {
  if (store.url === 'memory') return 'memory';
  return REMOTE_URL.test(store.url) ? 'remote' : 'embedded';
}

const REMOTE_ONLY = ['updateUrl', 'user', 'passwordFile', 'password', 'timeoutMs'];

function location(ctx: ResolveContext, stateDir: string): { url: string; remote?: URL } | undefined {
  const raw = textAt(ctx, ['store', 'url']);
  if (raw === undefined) return { url: join(stateDir, 'store') };
  const where = parseStoreLocation(raw);
  if ('problem' in where) return void report(ctx, ['store', 'url'], where.problem, raw);
  if (where.kind === 'memory') return { url: 'memory' };
  if (where.kind === 'embedded') return { url: absolutePath(ctx, ['store', 'url'], where.dataDir) };
  // parseStoreLocation checked an http+unix URL's socket; an http(s) one is checked as every URL setting is.
  const problem =
    where.url.protocol === UNIX_SOCKET_SCHEME
      ? undefined
      : httpUrlProblem(raw.trim().replace(/\/\/[^/?#]*@/u, '//'), 'http://127.0.0.1:8890/sparql');
  if (problem) return void report(ctx, ['store', 'url'], problem, raw);
  return { url: raw.trim(), remote: where.url };
}

function refuseRemoteOnly(ctx: ResolveContext): void {
  for (const key of REMOTE_ONLY) {
    const entry = ctx.merged.get(pathKey(['store', key]));
    // SPARQL_* variables are ambient (shared with other commands): ignored for a local store.
    if (entry && entry.source.kind !== 'env') {
      report(ctx, ['store', key], 'only applies to a remote (http/https) store');
    }
  }
}

function remoteStore(ctx: ResolveContext, url: URL): StoreConfig {
  const updateUrl = textAt(ctx, ['store', 'updateUrl']);
  const updateProblem = updateUrl === undefined ? undefined : httpUrlProblem(updateUrl, 'http://127.0.0.1:8890/sparql');
  if (updateProblem) report(ctx, ['store', 'updateUrl'], updateProblem, updateUrl);
  const passwordFile = textAt(ctx, ['store', 'passwordFile']);
  const absolute = passwordFile === undefined ? undefined : absolutePath(ctx, ['store', 'passwordFile'], passwordFile);
  const given = textAt(ctx, ['store', 'password']);
  const timeoutMs = at(ctx, ['store', 'timeoutMs']);
  const spec = remoteStoreSpec(url, {
    updateUrl,
    user: textAt(ctx, ['store', 'user']),
    password: given || (absolute && readSecret(ctx, ['store', 'passwordFile'], absolute)),
    timeoutMs: typeof timeoutMs === 'number' ? timeoutMs : defaultOf('store.timeoutMs'),
  });
  return {
    url: spec.queryUrl,
    updateUrl: spec.updateUrl!,
    ...(spec.user !== undefined && { user: spec.user }),
    ...(absolute !== undefined && { passwordFile: absolute }),
    ...(spec.password !== undefined && { password: spec.password }),
    timeoutMs: spec.timeoutMs!,
  };
}

/** The store: `<state dir>/store` unless `store.url` says otherwise. */
export function resolveStore(ctx: ResolveContext, stateDir: string): StoreConfig | undefined {
  const where = location(ctx, stateDir);
  if (!where) return undefined;
  if (where.remote) return remoteStore(ctx, where.remote);
  refuseRemoteOnly(ctx);
  return { url: where.url };
}

/**
 * `provisionOntology` and the checked `ontologyFiles`. Default: true for an embedded or memory
 * store, or when ontology files are listed (listing them asks for them to be loaded); false for
 * a remote store, whose ontology is usually loaded once with `semantic-sidecar ontology load`.
 */
export async function resolveOntology(
  ctx: ResolveContext,
  store: StoreConfig | undefined,
): Promise<{ provisionOntology: boolean; ontologyFiles: string[] }> {
  const given = at(ctx, ['provisionOntology']);
  const list = at(ctx, ['ontologyFiles']);
  const files = Array.isArray(list) ? list : [];
  const remote = store !== undefined && storeKindOf(store) === 'remote';
  const provisionOntology = typeof given === 'boolean' ? given : !remote || files.length > 0;
  if (files.length > 0 && !provisionOntology) {
    report(
      ctx,
      ['ontologyFiles'],
      'are listed but provisionOntology is false: remove one of them, or load the files with "semantic-sidecar ontology load"',
    );
  }
  const ontologyFiles: string[] = [];
  for (const [i, file] of files.entries()) {
    if (typeof file !== 'string') continue;
    const path = ['ontologyFiles', String(i)];
    const absolute = absolutePath(ctx, ['ontologyFiles'], file);
    ontologyFiles.push(absolute);
    if (!ONTOLOGY_FILE_EXTENSIONS.includes(extname(file).toLowerCase())) {
      report(ctx, path, `has an unknown RDF extension (expected one of ${ONTOLOGY_FILE_EXTENSIONS.join(', ')})`, file);
      continue;
    }
    await access(absolute, constants.R_OK).catch((error: NodeJS.ErrnoException) =>
      report(ctx, path, `cannot be read: ${error.code ?? 'error'}`, absolute),
    );
  }
  return { provisionOntology, ontologyFiles };
}
