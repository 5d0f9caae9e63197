import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeviceAnswerError, openDevice } from '../../src/device/index.js';
import { BRIDGE, requestLines, socketDir, spawnBridge } from './support/bridge.js';
import { get, post } from './support/calls.js';

let sockets: Awaited<ReturnType<typeof socketDir>>;
beforeAll(async () => {
  sockets = await socketDir();
});
afterAll(async () => {
  await sockets.cleanup();
});

function bridgeSync(args: string[]) {
  return spawnSync(process.execPath, [BRIDGE, ...args], { encoding: 'utf8', timeout: 10_000 });
}

describe('mock PLC bridge', () => {
  it('should print its listening port for --port 0 and one JSON line per request', async () => {
    const bridge = await spawnBridge({ kind: 'conveyor' });
    expect(bridge.lines[0]).toMatchObject({
      event: 'listening',
      kind: 'conveyor',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    const device = openDevice(bridge.target);
    await expect(post(device, '/move', { distance: 2.5, operation: 'urn:op:1' }, 5000)).resolves.toEqual({
      ok: true,
      belt: { position: 2.5 },
      operation: 'urn:op:1',
    });
    await expect(get(device, '/state/belt', 5000)).resolves.toEqual({
      position: 2.5,
      running: false,
    });
    const bad = (await post(device, '/move', { distance: 'far' }, 5000).catch((e: unknown) => e)) as DeviceAnswerError;
    expect([bad.deviceStatus, bad.detail]).toEqual([400, 'distance must be a number, got "far"']);
    const wrong = (await get(device, '/move', 5000).catch((e: unknown) => e)) as DeviceAnswerError;
    expect(wrong.deviceStatus).toBe(405);
    await device.close();
    expect(await bridge.stop()).toBe(0);
    expect(requestLines(bridge).map((l) => [l.method, l.path, l.status])).toEqual([
      ['POST', '/move', 200],
      ['GET', '/state/belt', 200],
      ['POST', '/move', 400],
      ['GET', '/move', 405],
    ]);
    expect(requestLines(bridge).every((l) => typeof l.ms === 'number' && typeof l.time === 'string')).toBe(true);
    expect(requestLines(bridge).map((l) => l.operation)).toEqual(['urn:op:1', undefined, undefined, undefined]);
    expect(bridge.lines.at(-1)).toMatchObject({ event: 'stopped', signal: 'SIGTERM' });
  });

  it('should log no request with --quiet but still its listening and stopped lines', async () => {
    const bridge = await spawnBridge({ kind: 'door', args: ['--quiet'] });
    const device = openDevice(bridge.target);
    await expect(post(device, '/open', {}, 5000)).resolves.toEqual({ ok: true, door: 'open' });
    await expect(get(device, '/state/door', 5000)).resolves.toBe('open');
    await device.close();
    expect(await bridge.stop()).toBe(0);
    expect(bridge.lines.map((l) => l.event)).toEqual(['listening', 'stopped']);
  });

  it('should exit 0 on SIGTERM with a hung request in flight and remove its socket', async () => {
    const socket = sockets.path('term.sock');
    const bridge = await spawnBridge({ socket });
    expect(existsSync(socket)).toBe(true);
    const device = openDevice(bridge.target);
    const pending = post(device, '/open', { hang: true }, 10_000).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    expect(await bridge.stop('SIGTERM')).toBe(0);
    expect(existsSync(socket)).toBe(false);
    expect(((await pending) as { code: string }).code).toBe('SM_DEVICE_UNREACHABLE');
    expect(requestLines(bridge)).toEqual([expect.objectContaining({ method: 'POST', path: '/open', status: null })]);
    await device.close();
  });

  it('should replace a stale socket file but refuse one a live bridge listens on', async () => {
    const socket = sockets.path('stale.sock');
    const dead = await spawnBridge({ socket });
    await dead.stop('SIGKILL');
    expect(existsSync(socket)).toBe(true);
    const live = await spawnBridge({ socket, kind: 'robot' });
    const second = bridgeSync(['--kind', 'door', '--socket', socket]);
    expect(second.status).toBe(2);
    expect(second.stderr).toContain(`another process is listening on ${socket}`);
    const device = openDevice(live.target);
    await expect(get(device, '/state/gripper', 5000)).resolves.toBe('empty');
    await device.close();
    expect(await live.stop()).toBe(0);
  });

  it('should refuse to replace a file that is not a socket', () => {
    const path = sockets.path('plain.txt');
    writeFileSync(path, 'keep me');
    const result = bridgeSync(['--kind', 'door', '--socket', path]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('exists and is not a socket');
    expect(existsSync(path)).toBe(true);
  });

  it("should say that the socket's directory is missing and how to create it", () => {
    const dir = sockets.path('no-such-dir');
    const result = bridgeSync(['--kind', 'door', '--socket', `${dir}/door1.sock`]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`the socket's directory ${dir} does not exist`);
    expect(result.stderr).toContain(`mkdir -p ${dir}`);
    expect(result.stderr).not.toContain('EACCES');
  });

  it.each([
    [['--socket', '/tmp/x.sock'], '--kind must be door, robot or conveyor, got undefined'],
    [['--kind', 'lathe', '--port', '0'], '--kind must be door, robot or conveyor, got "lathe"'],
    [['--kind', 'door'], 'give exactly one of --socket and --port'],
    [['--kind', 'door', '--port', '70000'], '--port must be 0..65535'],
    [['--kind', 'door', '--port', '0', '--fail-rate', '2'], '--fail-rate must be between 0 and 1'],
    [['--kind', 'door', '--port', '0', '--delay-ms=-1'], '--delay-ms must be a whole number >= 0'],
    [['--kind', 'door', '--port', '0', '--bogus'], "Unknown option '--bogus'"],
  ])('should exit 2 with usage for %j', (args, message) => {
    const result = bridgeSync(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: node bridge.mjs');
  });

  it('should fail every workflow call with --fail-rate 1 but still serve state', async () => {
    const bridge = await spawnBridge({ kind: 'door', args: ['--fail-rate', '1'] });
    const device = openDevice(bridge.target);
    const err = (await post(device, '/open', {}, 5000).catch((e: unknown) => e)) as DeviceAnswerError;
    expect([err.deviceStatus, err.detail]).toEqual([500, 'injected failure (fail-rate 1)']);
    await expect(get(device, '/state/door', 5000)).resolves.toBe('closed');
    await device.close();
    await bridge.stop();
  });

  it('should take about --delay-ms to answer a workflow', async () => {
    const bridge = await spawnBridge({ kind: 'door', args: ['--delay-ms', '250'] });
    const device = openDevice(bridge.target);
    const started = Date.now();
    await post(device, '/open', {}, 5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    await device.close();
    await bridge.stop();
  });

  it('should print its usage with --help', () => {
    const result = bridgeSync(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--kind        which device to simulate');
  });
});
