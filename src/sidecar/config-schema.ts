/**
 * What the sidecar derives from the settings table (`src/settings.ts`): the JSON Schema of a
 * config file and the ajv options it is checked with (`config-validator.ts`), the keys known at
 * each level, the environment variables and how their text is read.
 *
 * The schema checks shapes and ranges only; what needs more (IRIs and CURIEs, names, URLs,
 * paths, cross-field rules) is checked by the resolvers in `config-resolve*.ts`.
 */
import type { Options, SchemaObject } from 'ajv';
import { OTHER_ENV_VARS, SETTING_ROWS, SETTINGS, type Setting, type SettingPath } from '../settings.js';

const childrenOf = (head: string): (readonly [SettingPath, Setting])[] =>
  SETTING_ROWS.filter(([path, s]) => path.startsWith(`${head}.`) && s.secret === undefined);
const isMapping = (path: string): boolean => !path.includes('.') && SETTING_ROWS.some(([p]) => p.startsWith(`${path}.`));

function propertySchema(path: string, setting: Setting): SchemaObject {
  const own = { ...setting.schema, description: setting.description };
  if (!isMapping(path)) return own;
  const properties = Object.fromEntries(childrenOf(path).map(([p, s]) => [p.slice(path.length + 1), propertySchema(p, s)]));
  return { ...own, properties, additionalProperties: false };
}

const TOP = SETTING_ROWS.filter(([path, s]) => !path.includes('.') && s.secret === undefined);

/** The JSON Schema of a config file (and of the merged file, environment and flag settings). */
export const SIDECAR_CONFIG_SCHEMA: SchemaObject = Object.freeze({
  $id: 'https://w3id.org/semantic-middleware/schema/sidecar-config.json',
  title: 'semantic-sidecar configuration',
  description: 'settings of one semantic-sidecar process',
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(TOP.map(([path, s]) => [path, propertySchema(path, s)])),
});

const itemKeys = (path: 'workflows' | 'states'): readonly string[] => Object.keys(SETTINGS[path].schema.items.properties);

/** Keys allowed at the top level, inside each mapping and in list items (for suggestions and flags). */
export const CONFIG_KEYS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  top: TOP.map(([path]) => path),
  ...Object.fromEntries(
    TOP.filter(([path]) => isMapping(path)).map(([path]) => [path, childrenOf(path).map(([p]) => p.slice(path.length + 1))]),
  ),
  workflows: itemKeys('workflows'),
  states: itemKeys('states'),
});

/** Settings whose value is a mapping merged key by key. */
export const OBJECT_KEYS: readonly string[] = Object.freeze(TOP.filter(([path]) => isMapping(path)).map(([path]) => path));

/** Every setting a flag key can name: top-level keys and `<mapping>.<key>` paths. */
export const CONFIG_PATHS: readonly string[] = Object.freeze([
  ...CONFIG_KEYS.top!,
  ...OBJECT_KEYS.flatMap((head) => CONFIG_KEYS[head]!.map((sub) => `${head}.${sub}`)),
]);

/** The settings of the table that a config file may not hold, and what to do instead. */
export const SECRET_PATHS: ReadonlyMap<string, string> = new Map(
  SETTING_ROWS.flatMap(([path, s]) => (s.secret === undefined ? [] : [[path, s.secret] as const])),
);

/** One environment variable: the setting it sets (if any) and what it means. */
export interface ConfigEnvVar {
  readonly name: string;
  /** Config path it sets (`store.url`), or undefined for variables that are not settings. */
  readonly field?: string;
  readonly description: string;
}

/**
 * Every environment variable the sidecar reads, deprecated names included. Precedence: flags >
 * environment > config file > defaults. Empty values count as unset.
 */
export const CONFIG_ENV_VARS: readonly ConfigEnvVar[] = Object.freeze([
  OTHER_ENV_VARS[0]!,
  ...SETTING_ROWS.flatMap(([field, s]) => [
    ...(s.env === undefined ? [] : [{ name: s.env, field, description: s.description }]),
    ...(s.deprecatedEnv ?? []).map((name) => ({ name, field, description: `deprecated: use ${s.env}` })),
  ]),
  ...OTHER_ENV_VARS.slice(1),
]);

/**
 * {@link CONFIG_ENV_VARS} as aligned `NAME  description` lines, for `--help`.
 * @example program.addHelpText('after', `\nEnvironment:\n${formatEnvVars()}\n`)
 */
export function formatEnvVars(indent = '  '): string {
  const width = Math.max(...CONFIG_ENV_VARS.map((v) => v.name.length));
  return CONFIG_ENV_VARS.map((v) => `${indent}${v.name.padEnd(width)}  ${v.description}`).join('\n');
}

/** How environment and flag text is read for a setting, from the type of its schema. */
export type TextKind = 'number' | 'nullableNumber' | 'boolean' | 'list' | 'text';

/** The {@link TextKind} of the setting at `path`. */
export function textKindOf(path: string): TextKind {
  const schema = (SETTINGS as Record<string, Setting>)[path]?.schema;
  const type = JSON.stringify(schema?.type);
  if (type === '["number","null"]') return 'nullableNumber';
  if (type === '"integer"' || type === '"number"') return 'number';
  if (type === '"boolean"') return 'boolean';
  return type === '"array"' ? 'list' : 'text';
}

/** The module of ajv's standalone validator, generated at build time beside `config-validator.js` in `dist/sidecar/`. */
export const GENERATED_VALIDATOR = 'config-validate.generated.js';

/** How {@link SIDECAR_CONFIG_SCHEMA} is checked: all errors at once, no coercion, no defaults injected. */
export const CONFIG_AJV_OPTIONS: Readonly<Options> = Object.freeze({
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  coerceTypes: false,
  useDefaults: false,
});

const code = (text: string): string => `\`${text}\``;
const cell = (text: string): string => text.replace(/\|/gu, '\\|');

function defaultCell(setting: Setting): string {
  if (setting.defaultText !== undefined) return setting.defaultText;
  if (!('default' in setting)) return 'none';
  return typeof setting.default === 'string' ? code(setting.default) : String(setting.default);
}

function envCell(setting: Setting): string {
  if (setting.env === undefined) return '';
  const old = (setting.deprecatedEnv ?? []).map(code);
  return old.length === 0 ? code(setting.env) : `${code(setting.env)} (deprecated: ${old.join(', ')})`;
}

/**
 * The reference table of every setting (environment variable, flag, default, meaning) as
 * Markdown, for `config/README.md`; a test checks the README holds exactly this.
 */
export function settingsReference(): string {
  const rows = SETTING_ROWS.filter(([, s]) => s.secret === undefined || s.env !== undefined).map(([path, s]) => {
    const flag = s.flag === undefined ? '' : `${code(s.flag.split(' ')[0]!)} (${s.commands!.join(', ')})`;
    const meaning = s.secret === undefined ? s.description : `${s.description}; a secret: environment only`;
    return `| ${code(path)} | ${envCell(s)} | ${flag} | ${cell(defaultCell(s))} | ${cell(meaning)} |`;
  });
  const others = OTHER_ENV_VARS.map((v) => `| ${code(v.name)} | ${v.description} |`);
  return [
    '| setting | environment | flag | default | meaning |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '| variable | meaning |',
    '| --- | --- |',
    ...others,
  ].join('\n');
}
