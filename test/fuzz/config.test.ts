/**
 * Fuzzing the sidecar's configuration loader: hostile config files (YAML and JSON, any shape,
 * invalid UTF-8, deep nesting, alias bombs, odd keys), environment values and flags. The loader
 * resolves, or throws one ValueError that lists each problem with its source and field; never
 * another error, never a stack.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { ValueError } from '../../src/errors.js';
import { CONFIG_ENV_VARS, CONFIG_PATHS, loadSidecarConfig } from '../../src/sidecar/config.js';
import { configFixture } from '../sidecar/support/config-fixture.js';
import { caught, hostileText } from './support/hostile.js';
import { fuzzReport } from './support/runs.js';

const report = fuzzReport('test/fuzz/config.test.ts', 'none');
const { dir } = configFixture('sm-fuzz-config-');
const RESOURCE = 'https://example.org/plant#door1';

/** Loads and returns the error, checking its shape: a ValueError, one problem per line, no stack. */
async function loadError(options: Parameters<typeof loadSidecarConfig>[0]): Promise<string | undefined> {
  const error = await caught(() => loadSidecarConfig({ env: {}, cwd: dir, ...options }));
  if (error === undefined) return undefined;
  if (!(error instanceof ValueError))
    throw new Error(`expected a ValueError, got ${error instanceof Error ? error.stack : inspect(error)}`);
  const [head, ...lines] = error.message.split('\n');
  expect(head).toMatch(/^invalid sidecar configuration \(\d+ problems?\):$/u);
  for (const line of lines) {
    expect(line.startsWith('  - ')).toBe(true);
    expect(line).not.toMatch(/^\s+at /u);
  }
  return error.message;
}

const jsonish = fc.jsonValue({ maxDepth: 4 });
const knownKey = fc.constantFrom(
  ...CONFIG_PATHS.filter((p) => !p.includes('.')),
  'store',
  'device',
  'localApi',
  'log',
  'workflows',
  'states',
);
const oddKey = fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor', 'prototype', 'store.url', ''));
const settings = fc.dictionary(fc.oneof(knownKey, oddKey), fc.oneof(jsonish, hostileText), { maxKeys: 6 });

describe('loadSidecarConfig under hostile files', () => {
  it('should load or refuse any JSON or YAML settings object with a ValueError naming source and field', async () => {
    await report.check(
      'hostile config files',
      fc.asyncProperty(settings, fc.constantFrom('.json', '.yaml'), async (value, ext) => {
        const file = join(dir, `c-${randomUUID()}${ext}`);
        writeFileSync(file, JSON.stringify(value));
        const message = await loadError({ file, flags: { resource: RESOURCE } });
        if (message !== undefined) expect(message).toContain(`config file ${file}`);
      }),
      0.5,
    );
  }, 60_000);

  it('should refuse unreadable, malformed and abusive files with a ValueError naming the file', async () => {
    const texts: fc.Arbitrary<Buffer> = fc.oneof(
      hostileText.map((t) => Buffer.from(t)),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
      fc.constantFrom(
        Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80, 0x81]),
        Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`),
        Buffer.from(`${'a: '.repeat(1)}${'- '.repeat(5_000)}x`),
        Buffer.from(
          `a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`,
        ),
        Buffer.from('port: 1\nport: 2\n'),
        Buffer.from('port: !!js/function "function () {}"\n'),
        Buffer.from('\ufeffport: 8001\n'),
        Buffer.from('"just a string"'),
        Buffer.from('- a\n- b\n'),
      ),
    );
    await report.check(
      'malformed config files',
      fc.asyncProperty(texts, fc.constantFrom('.yaml', '.yml', '.json', '.toml', ''), async (bytes, ext) => {
        const file = join(dir, `m-${randomUUID()}${ext}`);
        writeFileSync(file, bytes);
        const message = await loadError({ file, flags: { resource: RESOURCE } });
        if (message !== undefined) expect(message).toContain(file);
      }),
      0.5,
    );
    const missing = await loadError({ file: join(dir, 'no-such.yaml'), flags: { resource: RESOURCE } });
    expect(missing).toContain('cannot be read: ENOENT');
  }, 60_000);
});

describe('loadSidecarConfig under hostile environment values and flags', () => {
  const settable = CONFIG_ENV_VARS.filter((v) => v.field !== undefined && !/PASSWORD|TOKEN/u.test(v.name));

  it('should refuse a hostile environment value with a ValueError naming the variable', async () => {
    await report.check(
      'hostile environment values',
      fc.asyncProperty(
        fc.constantFrom(...settable),
        hostileText.filter((t) => t !== '' && !t.includes('\u0000')),
        async (variable, text) => {
          const message = await loadError({ env: { [variable.name]: text }, flags: { resource: RESOURCE } });
          if (message !== undefined) expect(message).toContain(variable.name);
        },
      ),
    );
  }, 60_000);

  it('should refuse a hostile flag key or value with a ValueError naming it', async () => {
    const flags = fc.oneof(
      fc
        .tuple(
          fc.constantFrom(...CONFIG_PATHS.filter((p) => p !== 'resource' && !/password|token/iu.test(p))),
          fc.oneof(hostileText, jsonish),
        )
        .map(([k, v]) => ({ key: k, value: v })),
      fc
        .tuple(
          oddKey.filter((k) => !CONFIG_PATHS.includes(k) && k !== 'store'),
          hostileText,
        )
        .map(([k, v]) => ({ key: k, value: v })),
    );
    await report.check(
      'hostile flags',
      fc.asyncProperty(flags, async ({ key, value }) => {
        const message = await loadError({ flags: { resource: RESOURCE, [key]: value } });
        if (message !== undefined) expect(message).toContain('command line');
      }),
    );
  }, 60_000);
});
