/**
 * Checks settings against the config file's JSON Schema. The sidecar runs ajv's standalone code
 * for it, generated at build time (`scripts/build-config-validator.mjs`) beside this module:
 * loading ajv and compiling the schema at every start cost about 190 ms of CPU, half the start-up
 * aim. Run from the TypeScript sources, where no generated module exists, the schema is compiled
 * here with the same options.
 */
import { existsSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { CONFIG_AJV_OPTIONS, GENERATED_VALIDATOR, SIDECAR_CONFIG_SCHEMA } from './config-schema.js';

async function loadValidator(): Promise<ValidateFunction> {
  const generated = new URL(`./${GENERATED_VALIDATOR}`, import.meta.url);
  if (existsSync(generated)) return ((await import(generated.href)) as { validate: ValidateFunction }).validate;
  const { Ajv } = await import('ajv');
  return new Ajv(CONFIG_AJV_OPTIONS).compile(SIDECAR_CONFIG_SCHEMA);
}

const validate = await loadValidator();

/**
 * Checks `settings` against the config schema; returns ajv's errors (empty when the shape is
 * valid). Turned into messages naming field and source by `config-issues.ts`.
 */
export function schemaErrors(settings: unknown): ErrorObject[] {
  return validate(settings) ? [] : [...(validate.errors ?? [])];
}
