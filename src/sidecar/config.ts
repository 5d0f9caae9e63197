/**
 * Loads the sidecar's configuration: defaults < config file < environment < flags, then one
 * validation that lists every problem with its source and field. Every setting (schema, default,
 * variable, flag, secret, exclusive group) is a row of the settings table, `src/settings.ts`:
 * `config-schema.ts` derives the JSON Schema and variables from it, `config-layers.ts` reads the
 * sources, `config-resolve*.ts` resolve and check what needs more than a schema.
 *
 * Where things go when nothing is said: the state directory is `$STATE_DIRECTORY` (systemd's
 * `StateDirectory=`) or `./.data/<resource slug>`; the embedded store keeps its data in
 * `<state dir>/store` and the ontology is provisioned into it at start, so a first run needs
 * only `--resource`. The local API listens on `local.sock` in `$RUNTIME_DIRECTORY` (systemd's
 * `RuntimeDirectory=`) or else in the state directory. The daemon creates these directories.
 * Relative paths in a config file are relative to the file's directory; relative paths from the
 * environment or flags are relative to the working directory.
 */
import type { ErrorObject } from 'ajv';
import type { Logger } from '../lib/logger.js';
import { SETTING_ROWS, type Setting } from '../settings.js';
import type { SemanticMiddlewareOptions } from '../middleware/options.js';
import type { StoreSpec } from '../store/open-store.js';
import { readConfigFile } from './config-file.js';
import { configError, fieldOfPointer, joinField, showValue, ajvMessage, unknownKeyMessage, type ConfigIssue } from './config-issues.js';
import {
  envLayer,
  flagLayer,
  mergeLayers,
  pathKey,
  settingsOf,
  sourceAt,
  type Deprecation,
  type Layer,
  type Merged,
} from './config-layers.js';
import { resolveConfig } from './config-resolve.js';
import { storeKindOf } from './config-resolve-store.js';
import { CONFIG_KEYS, SECRET_PATHS } from './config-schema.js';
import { schemaErrors } from './config-validator.js';
import type { SidecarConfig, StoreConfig } from './config-types.js';

export type * from './config-types.js';
export type { Deprecation } from './config-layers.js';
export { LOG_LEVELS } from '../settings.js';
export { CONFIG_ENV_VARS, CONFIG_PATHS, formatEnvVars, SIDECAR_CONFIG_SCHEMA, type ConfigEnvVar } from './config-schema.js';
export { CURIE_PREFIXES } from './config-values.js';
export { resourceSlug, storeKindOf } from './config-resolve-store.js';

/** Options of {@link loadSidecarConfig}. */
export interface LoadSidecarConfigOptions {
  /** Config file (`.yaml`, `.yml` or `.json`); default `env.SIDECAR_CONFIG`, else none. */
  file?: string;
  /** Environment to read (see `CONFIG_ENV_VARS`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Settings from the command line, keyed by config path (`resource`, `port`, `store.url`,
   * `device.target`; `store` is short for `store.url`); undefined values are skipped and string
   * values are read like environment text. Default none.
   */
  flags?: Readonly<Record<string, unknown>>;
  /** `start` (default) needs a resource; `watchdog` refuses resource-only settings. */
  purpose?: 'start' | 'watchdog';
  /** Base of relative paths from the environment and flags; default `process.cwd()`. */
  cwd?: string;
  /** Told of every deprecated name used (to log with {@link warnDeprecated}); default: ignored. */
  onDeprecated?: (deprecation: Deprecation) => void;
}

function knownKeys(parts: readonly string[]): readonly string[] {
  const head = parts[0];
  return (head === undefined ? CONFIG_KEYS.top : CONFIG_KEYS[head]) ?? [];
}

function valueAt(settings: unknown, parts: readonly string[]): unknown {
  let value = settings;
  for (const part of parts) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

function ajvIssue(error: ErrorObject, settings: unknown, merged: Merged): ConfigIssue {
  const parts = fieldOfPointer(error.instancePath) === '' ? [] : error.instancePath.split('/').slice(1);
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  const child = params.additionalProperty ?? params.missingProperty;
  const path = child === undefined ? parts : [...parts, child];
  const source = sourceAt(merged, path);
  const where = { ...(source && { source }), field: joinField(path) };
  const secret = error.keyword === 'additionalProperties' ? SECRET_PATHS.get(path.join('.')) : undefined;
  if (secret !== undefined) return { ...where, message: secret };
  if (error.keyword === 'additionalProperties') return { ...where, message: unknownKeyMessage(child!, knownKeys(parts)) };
  if (error.keyword === 'required') return { ...where, message: 'is required' };
  return { ...where, message: ajvMessage(error), got: showValue(valueAt(settings, parts), where.field) };
}

/**
 * Every secret written in the config file itself, refused with the file setting to use instead.
 * Checked on the file's own layer, before merging: a higher layer naming the same secret's file
 * (`SIDECAR_HTTP_TOKEN_FILE`) would otherwise drop the inline one without a word.
 */
function inlineSecretIssues(layer: Layer): ConfigIssue[] {
  return layer.flatMap(({ path, source }) => {
    const message = SECRET_PATHS.get(path.join('.'));
    return message === undefined ? [] : [{ source, field: joinField(path), message }];
  });
}

/**
 * The settings the schema sees: a secret from the environment is resolved, not a file key, and
 * one from the file is reported by {@link inlineSecretIssues} already.
 */
function schemaView(merged: Merged): Record<string, unknown> {
  const view = new Map(merged);
  for (const path of SECRET_PATHS.keys()) {
    const key = pathKey(path.split('.'));
    const kind = view.get(key)?.source.kind;
    if (kind === 'env' || kind === 'file') view.delete(key);
  }
  return settingsOf(view);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Loads, merges, validates and resolves the sidecar's configuration.
 *
 * @returns a deeply frozen {@link SidecarConfig}: IRIs expanded, paths absolute, defaults filled.
 * @throws ValueError listing every problem, one per line, as
 *   `<source>: <field>: <what is wrong> (got <value>)`; secrets are never shown.
 * @example
 * const config = await loadSidecarConfig({ file: 'config/door1.yaml', flags: { port: 8001 } });
 * const store = await openStore(storeSpecOf(config.store));
 */
export async function loadSidecarConfig(options: LoadSidecarConfigOptions = {}): Promise<SidecarConfig> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const issues: ConfigIssue[] = [];
  // Defaults are not a layer: the resolvers fall back to the table's (some depend on other settings).
  const layers: Layer[] = [];
  const deprecations: Deprecation[] = [];
  const file = options.file ?? (env.SIDECAR_CONFIG || undefined);
  if (file !== undefined) {
    const read = await readConfigFile(file, cwd);
    // A file that cannot be read or parsed says nothing reliable about the rest: stop here.
    if (read.issues.length > 0) throw configError(read.issues);
    issues.push(...inlineSecretIssues(read.layer));
    layers.push(read.layer);
  }
  layers.push(envLayer(env, deprecations), flagLayer(options.flags ?? {}, issues));
  const merged = mergeLayers(layers);
  const settings = schemaView(merged);
  for (const error of schemaErrors(settings)) issues.push(ajvIssue(error, settings, merged));
  const config = await resolveConfig({ merged, issues, cwd, env, purpose: options.purpose ?? 'start', deprecations });
  if (issues.length > 0 || !config) throw configError(issues);
  for (const deprecation of deprecations) options.onDeprecated?.(deprecation);
  return deepFreeze(config);
}

/**
 * What `openStore` needs for the configured store.
 * @example const store = await openStore(storeSpecOf(config.store));
 */
export function storeSpecOf(store: StoreConfig): StoreSpec {
  const kind = storeKindOf(store);
  if (kind === 'memory') return { kind };
  if (kind === 'embedded') return { kind, dataDir: store.url };
  return {
    kind,
    queryUrl: store.url,
    ...(store.updateUrl !== undefined && { updateUrl: store.updateUrl }),
    ...(store.user !== undefined && { user: store.user }),
    ...(store.password !== undefined && { password: store.password }),
    ...(store.timeoutMs !== undefined && { timeoutMs: store.timeoutMs }),
  };
}

/**
 * The security options of `config` for `new SemanticMiddleware(...)`: the surface's token and
 * TLS, and the outgoing tokens. Every field is null when not configured.
 * @example new SemanticMiddleware({ ...otherOptions, ...securityOptionsOf(config) });
 */
export function securityOptionsOf(
  config: SidecarConfig,
): Required<Pick<SemanticMiddlewareOptions, 'httpToken' | 'outgoingTokens' | 'tls'>> {
  const out = config.outgoingTokens;
  const outgoing = out?.default !== undefined || out?.byAddress !== undefined;
  return {
    httpToken: config.http?.token ?? null,
    tls: config.http?.tls ?? null,
    outgoingTokens: outgoing
      ? { ...(out.default !== undefined && { default: out.default }), ...(out.byAddress !== undefined && { byAddress: out.byAddress }) }
      : null,
  };
}

const REDACTED = '[redacted]';

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A secret value made log-safe: a mapping keyed by address keeps its keys, anything else is replaced whole. */
function redacted(value: unknown, setting: Setting): unknown {
  if ('additionalProperties' in setting.schema && isMapping(value)) return Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED]));
  return REDACTED;
}

/**
 * A log-safe summary of `config`: every setting, the store's kind added, every secret of the
 * settings table (the store password, the local API and HTTP tokens, the TLS key, the outgoing
 * tokens) replaced by `[redacted]`.
 * @example logger.info({ config: describeConfig(config) }, 'configuration loaded');
 */
export function describeConfig(config: SidecarConfig): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  for (const [path, setting] of SETTING_ROWS) {
    const [head, key] = path.split('.') as [string, string | undefined];
    const section = copy[head];
    if (setting.secret !== undefined && key !== undefined && isMapping(section) && section[key] !== undefined) {
      section[key] = redacted(section[key], setting);
    }
  }
  return { ...copy, store: { kind: storeKindOf(config.store), ...(copy.store as object) } };
}

const warned = new Set<string>();

/**
 * Logs that a deprecated name was used, once per name and process: a pino warning naming the
 * old name and the one to use.
 * @example loadSidecarConfig({ onDeprecated: (d) => warnDeprecated(logger, d) })
 */
export function warnDeprecated(logger: Pick<Logger, 'warn'>, deprecation: Deprecation): void {
  if (warned.has(deprecation.old)) return;
  warned.add(deprecation.old);
  logger.warn({ deprecated: deprecation.old, use: deprecation.use }, `${deprecation.old} is deprecated: use ${deprecation.use}`);
}
