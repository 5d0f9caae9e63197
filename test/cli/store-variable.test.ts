/**
 * Every command reads the store from the same variable (`SM_STORE`, the table's `store.url`), and
 * the former `SIDECAR_STORE` still works with a deprecation warning.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BIN, buildCli, cli, logLines, ROOT } from './support/cli-process.js';

let dir: string;

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  dir = await mkdtemp(join(tmpdir(), 'sm-store-var-'));
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const R = 'https://example.org/plant#door1';
const COMMANDS: [string, string[]][] = [
  ['ontology load', ['ontology', 'load']],
  ['discover', ['discover', '--capability', 'svc:Capability']],
  ['status', ['status', '--resource', R]],
  ['request', ['request', '--capability', 'svc:Capability', '--operation-class', 'svc:Operation']],
  ['watchdog', ['watchdog', '--once']],
  ['start', ['start', '--resource', R]],
];
const BAD = 'ftp://kg.example/sparql';

describe('the store variable', () => {
  it.each(COMMANDS)('should be read from SM_STORE by %s', (_, args) => {
    const result = cli(args, { SM_STORE: BAD });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/unsupported scheme/u);
  });

  it.each(COMMANDS)('should still be read from SIDECAR_STORE by %s', (_, args) => {
    expect(cli(args, { SIDECAR_STORE: BAD }).stderr).toMatch(/unsupported scheme/u);
  });

  it('should prefer SM_STORE to SIDECAR_STORE, and the flag to both', () => {
    const args = ['discover', '--capability', 'svc:Capability'];
    expect(cli(args, { SIDECAR_STORE: BAD, SM_STORE: 'memory' }).stderr).not.toMatch(/unsupported scheme/u);
    expect(cli([...args, '--store', 'memory'], { SM_STORE: BAD }).stderr).not.toMatch(/unsupported scheme/u);
  });

  it('should name SM_STORE when no store is given', () => {
    const result = cli(['discover', '--capability', 'svc:Capability']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("required option '--store <url>' not specified (or set SM_STORE)");
  });

  it.each([
    ['ontology load', ['ontology', 'load']],
    ['watchdog', ['watchdog', '--once', '--port', '0']],
  ])('should log one deprecation warning when %s reads SIDECAR_STORE', (_, args) => {
    const result = cli(args, { SIDECAR_STORE: 'memory' });
    expect(result.status).toBe(0);
    const warnings = logLines(result.stderr).filter((l) => l.deprecated !== undefined);
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        deprecated: 'SIDECAR_STORE',
        use: 'SM_STORE',
        msg: 'SIDECAR_STORE is deprecated: use SM_STORE',
      }),
    ]);
  });

  it('should let start run on SIDECAR_STORE and SIDECAR_DEVICE_SOCKET, warning once for each', async () => {
    const env = { ...process.env, SIDECAR_STORE: 'memory', SIDECAR_DEVICE_SOCKET: join(dir, 'dev.sock'), SM_STORE: '' };
    const args = [
      BIN,
      'start',
      '--resource',
      R,
      '--port',
      '0',
      '--local-api-socket',
      join(dir, 'local.sock'),
      '--heartbeat-interval',
      'off',
    ];
    const child = spawn(process.execPath, args, { cwd: ROOT, env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      child.once('exit', (code) => reject(new Error(`start exited ${code}: ${stderr}`)));
    });
    expect(JSON.parse(started)).toMatchObject({ service: expect.any(String) });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const warnings = logLines(stderr).filter((l) => l.deprecated !== undefined);
    expect(warnings.map((w) => [w.deprecated, w.use])).toEqual([
      ['SIDECAR_STORE', 'SM_STORE'],
      ['SIDECAR_DEVICE_SOCKET', 'SIDECAR_DEVICE'],
    ]);
  }, 60_000);
});
