/**
 * Settings from several sources, merged by precedence with the source of every value kept, so
 * that an error can say whether a bad port came from the file, `SIDECAR_PORT` or a flag.
 *
 * A layer is a list of entries keyed by a path of at most two keys (`port`, `store.url`): the
 * object-valued settings (`store`, `device`, `localApi`, `http`, `outgoingTokens`, `log`) merge
 * key by key, everything else (lists and `outgoingTokens.byAddressFiles` included) is replaced
 * whole by a higher layer. Variables, flags, text kinds and exclusive groups come from the
 * settings table (`src/settings.ts`).
 */
import { delimiter } from 'node:path';
import { SETTING_ROWS, SETTINGS, type Setting } from '../settings.js';
import { CONFIG_KEYS, CONFIG_PATHS, OBJECT_KEYS, textKindOf } from './config-schema.js';
import { joinField, unknownKeyMessage, type ConfigIssue, type ConfigSource } from './config-issues.js';

/** A deprecated name that was used, and the name that replaces it. */
export interface Deprecation {
  /** The old variable, flag or config path. */
  readonly old: string;
  /** What to use instead. */
  readonly use: string;
}

/** One setting from one source. */
export interface Entry {
  path: readonly string[];
  value: unknown;
  source: ConfigSource;
}

/** Settings of one source, or the merged settings. */
export type Layer = Entry[];
/** Merged settings keyed by {@link pathKey}. */
export type Merged = Map<string, Entry>;

/** A map key for a path that no key text can forge (keys may hold dots or anything else). */
export const pathKey = (path: readonly string[]): string => JSON.stringify(path);

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The entries of a parsed config file (or any settings object) from `source`. */
export function layerOf(settings: Record<string, unknown>, source: ConfigSource): Layer {
  const layer: Layer = [];
  for (const [key, value] of Object.entries(settings)) {
    // `store: memory` is shorthand for `store: { url: memory }`.
    if (key === 'store' && typeof value === 'string') layer.push({ path: ['store', 'url'], value, source });
    else if (OBJECT_KEYS.includes(key) && isMapping(value)) {
      for (const [sub, v] of Object.entries(value)) layer.push({ path: [key, sub], value: v, source });
    } else layer.push({ path: [key], value, source });
  }
  return layer;
}

// Settings that exclude each other (one `exclusive` group of the table, another side): a higher
// layer setting one removes the others set lower, so `SIDECAR_DEVICE` replaces a file's
// `device.socket` instead of clashing with it.
const EXCLUSIVE: ReadonlyMap<string, readonly string[]> = new Map(
  SETTING_ROWS.flatMap(([path, s]) => {
    const mine: Setting['exclusive'] = s.exclusive;
    if (mine === undefined) return [];
    const others = SETTING_ROWS.filter(([, o]) => o.exclusive?.[0] === mine[0] && o.exclusive[1] !== mine[1]);
    return [[path, others.map(([p]) => p.split('.')[1]!)] as const];
  }),
);
// Credentials a file pairs with its own store URL: when a higher layer names another store they
// are dropped, so a password is never sent to an endpoint it was not written for. Credentials
// from the environment stay: like `SPARQL_*` for `--store`, they apply to whichever URL is chosen.
const STORE_CREDENTIALS = ['updateUrl', 'user', 'passwordFile', 'password'];

function dropsFor(entry: Entry, merged: Merged): string[] {
  const [head, sub] = entry.path;
  if (sub === undefined) {
    if (!OBJECT_KEYS.includes(head!)) return [];
    return [...merged.values()].filter((e) => e.path[0] === head && e.path.length === 2).map((e) => pathKey(e.path));
  }
  const drops = [pathKey([head!]), ...(EXCLUSIVE.get(`${head}.${sub}`) ?? []).map((s) => pathKey([head!, s]))];
  if (head === 'store' && sub === 'url') {
    for (const s of STORE_CREDENTIALS) {
      if (merged.get(pathKey(['store', s]))?.source.kind === 'file') drops.push(pathKey(['store', s]));
    }
  }
  return drops;
}

/** Merges layers, later ones winning, and keeps the source of each value. */
export function mergeLayers(layers: readonly Layer[]): Merged {
  const merged: Merged = new Map();
  for (const layer of layers) {
    for (const key of layer.flatMap((entry) => dropsFor(entry, merged))) merged.delete(key);
    for (const entry of layer) merged.set(pathKey(entry.path), entry);
  }
  return merged;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, not assignment: a key such as "__proto__" stays an (unknown) own key that
  // the schema reports, instead of changing the object's prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The merged settings as one object, for the schema. */
export function settingsOf(merged: Merged): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { path, value } of merged.values()) {
    const [head, sub] = path as [string, string | undefined];
    if (sub === undefined) define(out, head, value);
    else {
      if (!Object.hasOwn(out, head)) define(out, head, {});
      define(out[head] as Record<string, unknown>, sub, value);
    }
  }
  return out;
}

const RANK: Record<ConfigSource['kind'], number> = { default: 0, file: 1, env: 2, flag: 3 };

/**
 * The source of the value at `path`, else of the list or mapping holding it, else (for a value
 * that is missing or a rule about a whole mapping) of the highest-precedence setting in the same
 * mapping: `device: give either url or socket` is reported where `device.url` was set.
 */
export function sourceAt(merged: Merged, path: readonly string[]): ConfigSource | undefined {
  for (let n = path.length; n > 0; n--) {
    const entry = merged.get(pathKey(path.slice(0, n)));
    if (entry) return entry.source;
  }
  const near = [...merged.values()].filter((e) => e.path[0] === path[0] && e.source.kind !== 'default');
  return near.sort((a, b) => RANK[b.source.kind] - RANK[a.source.kind])[0]?.source;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/u;

/**
 * Reads the text of an environment variable or a string flag for the setting at `path`:
 * numbers, `true`/`false`/`1`/`0`, `off`/`null` (heartbeat) and path lists. Text that does not
 * parse is kept as text, so the schema reports it with its source (no silent coercion).
 */
export function parseText(path: readonly string[], text: string): unknown {
  const kind = textKindOf(path.join('.'));
  const t = text.trim();
  if (kind === 'nullableNumber' && /^(off|null)$/iu.test(t)) return null;
  if ((kind === 'number' || kind === 'nullableNumber') && NUMBER.test(t)) return Number(t);
  if (kind === 'boolean' && /^(true|1)$/iu.test(t)) return true;
  if (kind === 'boolean' && /^(false|0)$/iu.test(t)) return false;
  if (kind === 'list') return t.split(delimiter).filter((p) => p !== '');
  return text;
}

/** The known path a flag key names (`port`, `store.url`, `store` for `store.url`), if any. */
function flagPath(key: string): string[] | undefined {
  if (key === 'store') return ['store', 'url'];
  if (CONFIG_KEYS.top!.includes(key)) return [key];
  const [head, sub, ...rest] = key.split('.');
  const keys = CONFIG_KEYS[head ?? ''];
  if (rest.length === 0 && sub !== undefined && OBJECT_KEYS.includes(head!) && keys?.includes(sub)) return [head!, sub];
  return undefined;
}

/**
 * The entries of the flags object the CLI passes: keys are config paths (`port`, `store.url`,
 * `device.socket`), undefined values are skipped, string values are read like env text.
 */
export function flagLayer(flags: Readonly<Record<string, unknown>>, issues: ConfigIssue[]): Layer {
  const layer: Layer = [];
  for (const [key, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    const path = flagPath(key);
    const source: ConfigSource = { kind: 'flag', key };
    if (!path) {
      issues.push({ source, field: joinField(key.split('.')), message: unknownKeyMessage(key, CONFIG_PATHS) });
      continue;
    }
    layer.push({ path, value: typeof value === 'string' ? parseText(path, value) : value, source });
  }
  return layer;
}

const DEPRECATED_ENV: readonly (readonly [string, string, string])[] = SETTING_ROWS.flatMap(([path, s]) =>
  (s.deprecatedEnv ?? []).map((old) => [old, s.env!, path] as const),
);

/**
 * The settings the environment gives, each with its variable as source. A deprecated variable
 * counts when its replacement is unset, and is reported to `deprecations`.
 */
export function envLayer(env: NodeJS.ProcessEnv, deprecations: Deprecation[]): Layer {
  const layer: Layer = [];
  const add = (name: string, field: string): void => {
    const path = field.split('.');
    layer.push({ path, value: parseText(path, env[name]!), source: { kind: 'env', name } });
  };
  for (const [field, setting] of SETTING_ROWS) if (setting.env !== undefined && env[setting.env]) add(setting.env, field);
  for (const [old, use, field] of DEPRECATED_ENV) {
    if (!env[old] || env[use]) continue;
    add(old, field);
    deprecations.push({ old, use });
  }
  return layer;
}

/** The first directory of a systemd directory variable (it may list several, separated by ":"). */
export function systemdDirectory(env: NodeJS.ProcessEnv, name: 'STATE_DIRECTORY' | 'RUNTIME_DIRECTORY'): string | undefined {
  const first = env[name]?.split(':')[0];
  return first ? first : undefined;
}

/** How the setting at `path` is named in `source`: its variable, its flag, or the path itself. */
export function nameIn(source: ConfigSource | undefined, path: string): string {
  const setting = (SETTINGS as Record<string, Setting>)[path];
  if (source?.kind === 'env') return setting?.env ?? path;
  if (source?.kind === 'flag') return setting?.flag?.split(' ')[0] ?? path;
  return path;
}
