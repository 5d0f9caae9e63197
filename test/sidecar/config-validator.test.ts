/**
 * The built sidecar checks its config with ajv's standalone validator generated at build time
 * (scripts/build-config-validator.mjs): it must judge every config exactly as ajv compiling the
 * schema does, and a process that loads it must not load ajv itself.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { CONFIG_AJV_OPTIONS, GENERATED_VALIDATOR, SIDECAR_CONFIG_SCHEMA } from '../../src/sidecar/config-schema.js';
import { ensureBuilt } from '../support/build.js';
import { ROOT } from '../support/sidecar-process.js';

const BUILT = join(ROOT, 'dist', 'sidecar');

/** The shipped configs and variants of them that break the schema in different ways. */
async function corpus(): Promise<unknown[]> {
  const dir = join(ROOT, 'config');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml'));
  const configs = await Promise.all(files.map(async (f) => parse(await readFile(join(dir, f), 'utf8')) as Record<string, unknown>));
  expect(configs.length).toBeGreaterThan(2);
  const broken = configs.flatMap((c) => [
    { ...c, unknownKey: 1 },
    { ...c, resource: 42 },
    { ...c, heartbeatInterval: -5 },
    { ...c, heartbeatInterval: 'soon', port: 1e9 },
    { ...c, store: { url: ['x'], surprise: true } },
    { ...c, workflows: 'none' },
  ]);
  return [...configs, ...broken, null, [], 'text', {}];
}

const shape = (errors: readonly ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('the generated config validator', () => {
  let generated: ValidateFunction;
  let compiled: ValidateFunction;

  beforeAll(async () => {
    await ensureBuilt();
    generated = ((await import(pathToFileURL(join(BUILT, GENERATED_VALIDATOR)).href)) as { validate: ValidateFunction }).validate;
    compiled = new Ajv(CONFIG_AJV_OPTIONS).compile(SIDECAR_CONFIG_SCHEMA);
  }, 300_000);

  it('should judge every config, valid or broken, as ajv compiling the schema does, with the same errors', async () => {
    let invalid = 0;
    for (const config of await corpus()) {
      const ok = compiled(config);
      expect(generated(config)).toBe(ok);
      expect(shape(generated.errors)).toEqual(shape(compiled.errors));
      if (!ok) invalid += 1;
    }
    expect(invalid).toBeGreaterThan(20);
  });

  it('should keep ajv itself out of a process that checks a config', async () => {
    const script = [
      "import { createRequire } from 'node:module';",
      `const { schemaErrors } = await import(${JSON.stringify(pathToFileURL(join(BUILT, 'config-validator.js')).href)});`,
      "if (schemaErrors({ surprise: 1 }).length === 0) throw new Error('an unknown key passed');",
      "const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('/node_modules/ajv/'));",
      'console.log(JSON.stringify(loaded));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    const loaded = JSON.parse(stdout) as string[];
    expect(loaded.every((path) => path.includes('/ajv/dist/runtime/'))).toBe(true);
  });
});
