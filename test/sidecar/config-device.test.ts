import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { warnDeprecated, type Deprecation, type LoadSidecarConfigOptions } from '../../src/sidecar/config.js';
import { configFixture } from './support/config-fixture.js';

const fixture = configFixture('sm-config-device-');
const { dir } = fixture;
const write = (name: string, text: string): string => fixture.write(name, text);
const load = (options?: LoadSidecarConfigOptions): ReturnType<typeof fixture.load> => fixture.load(options);
const problems = (options: LoadSidecarConfigOptions): Promise<string[]> => fixture.problems(options);
const R = 'https://example.org/plant#door1';

async function loadNoting(options: LoadSidecarConfigOptions): Promise<{ target?: string; deprecations: Deprecation[] }> {
  const deprecations: Deprecation[] = [];
  const config = await load({ ...options, onDeprecated: (d) => deprecations.push(d) });
  return { ...(config.device && { target: config.device.target }), deprecations };
}

describe('device.target', () => {
  it.each([
    ['unix:/run/device/door1.sock', 'unix:/run/device/door1.sock'],
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000'],
    ['https://plc.local:8443/api', 'https://plc.local:8443/api'],
  ])('should take %j from SIDECAR_DEVICE, a flag and a file alike', async (given, target) => {
    const file = write(`device-${target.length}.yaml`, `resource: ${R}\ndevice: { target: "${given}" }\n`);
    expect((await load({ env: { SIDECAR_DEVICE: given }, flags: { resource: R } })).device).toMatchObject({ target });
    expect((await load({ flags: { resource: R, 'device.target': given } })).device).toMatchObject({ target });
    expect((await load({ file })).device).toMatchObject({ target });
  });

  it('should make a relative unix: path absolute, against the file or the working directory', async () => {
    const file = write('sub/rel.yaml', `resource: ${R}\ndevice: { target: "unix:dev.sock" }\n`);
    expect((await load({ file, cwd: '/' })).device?.target).toBe(`unix:${join(dir, 'sub', 'dev.sock')}`);
    expect((await load({ env: { SIDECAR_DEVICE: 'unix:run/d.sock' }, flags: { resource: R } })).device?.target).toBe(
      `unix:${join(dir, 'run', 'd.sock')}`,
    );
  });

  it('should refuse an unusable target, naming its source and field', async () => {
    const [ftp] = await problems({ env: { SIDECAR_DEVICE: 'ftp://plc:21' }, flags: { resource: R } });
    expect(ftp).toMatch(
      /^environment SIDECAR_DEVICE: device\.target: is not a usable device target \(expected unix:\/path\/to\.sock or http\(s\):\/\/host:port\)/u,
    );
    const [empty] = await problems({ flags: { resource: R, 'device.target': 'unix:' } });
    expect(empty).toMatch(/^command line: device\.target: /u);
    const [long] = await problems({ flags: { resource: R, 'device.target': `unix:/${'x'.repeat(200)}.sock` } });
    expect(long).toMatch(/^command line: device\.target: is not a usable device target .*longer than 107 bytes/u);
  });

  it('should refuse credentials in the target without showing them', async () => {
    const lines = await problems({ flags: { resource: R, 'device.target': 'http://user:hunter2-secret@127.0.0.1:9000' } });
    expect(lines).toEqual([
      'command line: device.target: must not hold credentials (user:password@) (got "http://<credentials>@127.0.0.1:9000")',
    ]);
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('should refuse two targets given by one source', async () => {
    expect(await problems({ flags: { resource: R, 'device.target': 'unix:/run/a.sock', 'device.url': 'http://127.0.0.1:9' } })).toEqual([
      'command line: device: give one of device.target, device.url, not several (device.target is the one to use)',
    ]);
  });

  it('should let a higher layer replace a lower one whatever the form', async () => {
    const file = write('legacy.yaml', `resource: ${R}\ndevice: { socket: /run/d.sock }\n`);
    expect((await loadNoting({ file, env: { SIDECAR_DEVICE: 'http://127.0.0.1:9' } })).target).toBe('http://127.0.0.1:9');
  });
});

describe('deprecated names', () => {
  it.each([
    [{ env: { SIDECAR_DEVICE_URL: 'http://127.0.0.1:9' } }, 'http://127.0.0.1:9', { old: 'SIDECAR_DEVICE_URL', use: 'SIDECAR_DEVICE' }],
    [{ env: { SIDECAR_DEVICE_SOCKET: '/run/d.sock' } }, 'unix:/run/d.sock', { old: 'SIDECAR_DEVICE_SOCKET', use: 'SIDECAR_DEVICE' }],
    [{ flags: { 'device.url': 'http://127.0.0.1:9' } }, 'http://127.0.0.1:9', { old: '--device-url', use: '--device' }],
    [{ flags: { 'device.socket': '/run/d.sock' } }, 'unix:/run/d.sock', { old: '--device-socket', use: '--device' }],
  ])('should still read %j as the device target, and report it as deprecated', async (options, target, deprecation) => {
    const given: LoadSidecarConfigOptions = options;
    const result = await loadNoting({ ...given, flags: { resource: R, ...given.flags } });
    expect(result).toEqual({ target, deprecations: [deprecation] });
  });

  it('should report device.url and device.socket in a file as deprecated', async () => {
    const file = write('old.yaml', `resource: ${R}\ndevice: { url: "http://127.0.0.1:9" }\n`);
    expect(await loadNoting({ file })).toEqual({
      target: 'http://127.0.0.1:9',
      deprecations: [{ old: 'device.url', use: 'device.target' }],
    });
  });

  it('should read SIDECAR_STORE when SM_STORE is unset, and report it as deprecated', async () => {
    const deprecations: Deprecation[] = [];
    const onDeprecated = (d: Deprecation): number => deprecations.push(d);
    const old = await load({ env: { SIDECAR_STORE: 'memory' }, flags: { resource: R }, onDeprecated });
    expect([old.store.url, deprecations]).toEqual(['memory', [{ old: 'SIDECAR_STORE', use: 'SM_STORE' }]]);
    const both = await load({ env: { SIDECAR_STORE: '/srv/old', SM_STORE: 'memory' }, flags: { resource: R }, onDeprecated });
    expect([both.store.url, deprecations]).toHaveLength(2);
    expect(both.store.url).toBe('memory');
    expect(deprecations).toHaveLength(1);
  });

  it('should log each deprecated name once, as a pino warning naming the old and the new name', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino(sink);
    const deprecation = { old: 'SIDECAR_TEST_ONLY_OLD', use: 'SIDECAR_TEST_ONLY_NEW' };
    warnDeprecated(logger, deprecation);
    warnDeprecated(logger, deprecation);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      deprecated: 'SIDECAR_TEST_ONLY_OLD',
      use: 'SIDECAR_TEST_ONLY_NEW',
      msg: 'SIDECAR_TEST_ONLY_OLD is deprecated: use SIDECAR_TEST_ONLY_NEW',
    });
  });
});

describe('device health settings', () => {
  it('should default the probe interval and leave the health path unset', async () => {
    expect((await load({ flags: { resource: R, 'device.target': 'unix:/run/d.sock' } })).device).toEqual({
      target: 'unix:/run/d.sock',
      timeoutMs: 10_000,
      healthIntervalMs: 5_000,
    });
  });

  it.each(['health', '/../admin', '/a b', '/x#y', 'http://elsewhere/health'])(
    'should refuse the health path %j, naming it',
    async (path) => {
      const lines = await problems({
        env: { SIDECAR_DEVICE_HEALTH_PATH: path },
        flags: { resource: R, 'device.target': 'unix:/run/d.sock' },
      });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^environment SIDECAR_DEVICE_HEALTH_PATH: device\.healthPath: /u);
    },
  );

  it.each([0, -5, 1.5, 2 ** 31])('should refuse the probe interval %j', async (ms) => {
    const file = write(`interval-${String(ms)}.yaml`, `resource: ${R}\ndevice: { target: unix:/run/d.sock, healthIntervalMs: ${ms} }\n`);
    const lines = await problems({ file });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/device\.healthIntervalMs: /u);
  });
});
