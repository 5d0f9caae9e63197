import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeviceTimeoutError, DeviceUnreachableError, openDevice, type DeviceHealth } from '../../../../src/device/index.js';
import { ValueError } from '../../../../src/errors.js';
import { socketDir } from '../../support/bridge.js';
import { startTinyServer } from '../../support/tiny-server.js';

let sockets: Awaited<ReturnType<typeof socketDir>>;
beforeAll(async () => {
  sockets = await socketDir();
});
afterAll(async () => {
  await sockets.cleanup();
});

/** The health of the device at `target`, with the client closed again. */
async function healthOf(target: string, timeoutMs?: number): Promise<DeviceHealth> {
  const device = openDevice(target);
  try {
    return await device.health(timeoutMs === undefined ? {} : { timeoutMs });
  } finally {
    await device.close();
  }
}

describe('HTTP DeviceClient.health', () => {
  it.each(['tcp', 'unix socket'] as const)('should find a device over %s reachable, probing its base path with HEAD', async (kind) => {
    const seen: string[] = [];
    const server = await startTinyServer(
      (req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.writeHead(404).end();
      },
      kind === 'tcp' ? undefined : sockets.path('healthy.sock'),
    );
    try {
      const target = kind === 'tcp' ? `${server.target}/bridge` : server.target;
      const health = await healthOf(target);
      expect(health).toEqual({ reachable: true, ms: expect.any(Number) });
      expect(seen).toEqual([kind === 'tcp' ? 'HEAD /bridge/' : 'HEAD /']);
    } finally {
      await server.close();
    }
  });

  it('should report a missing socket file as unreachable with the ENOENT failure', async () => {
    const target = `unix:${sockets.path('missing.sock')}`;
    const health = await healthOf(target);
    expect(health.reachable).toBe(false);
    const { error } = health as Extract<DeviceHealth, { reachable: false }>;
    expect(error).toBeInstanceOf(DeviceUnreachableError);
    expect((error as DeviceUnreachableError).reasonCode).toBe('ENOENT');
    expect(error.message).toBe(
      `HEAD / on device ${target} failed: the socket file does not exist (ENOENT); is the device bridge running on ${target}?`,
    );
  });

  it('should report a refused port as unreachable', async () => {
    const server = await startTinyServer(() => undefined);
    await server.close();
    const health = (await healthOf(server.target)) as Extract<DeviceHealth, { reachable: false }>;
    expect([health.reachable, (health.error as DeviceUnreachableError).reasonCode]).toEqual([false, 'ECONNREFUSED']);
  });

  it('should report a device that does not answer within the timeout as unreachable', async () => {
    const server = await startTinyServer(() => undefined);
    try {
      const started = Date.now();
      const health = (await healthOf(server.target, 200)) as Extract<DeviceHealth, { reachable: false }>;
      expect(health.error).toBeInstanceOf(DeviceTimeoutError);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await server.close();
    }
  });

  it('should refuse a bad timeout', async () => {
    await expect(healthOf('http://127.0.0.1:9', 0)).rejects.toThrow(ValueError);
  });

  it('should probe a configured health path with GET and need a successful answer', async () => {
    let status = 503;
    const seen: string[] = [];
    const server = await startTinyServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":false}');
    }, sockets.path('health-path.sock'));
    const device = openDevice(server.target);
    try {
      // The device answers, but says it is not well: down, with the answer as the reason.
      const down = (await device.health({ path: '/health?deep=1' })) as Extract<DeviceHealth, { reachable: false }>;
      expect(down.reachable).toBe(false);
      expect(down.error.message).toMatch(/GET \/health\?deep=1 .*503/u);
      // Without a path the same answer counts as reachable, as before.
      expect((await device.health()).reachable).toBe(true);
      status = 200;
      expect(await device.health({ path: '/health?deep=1', timeoutMs: 1000 })).toEqual({ reachable: true, ms: expect.any(Number) });
      expect(seen).toEqual(['GET /health?deep=1', 'HEAD /', 'GET /health?deep=1']);
      for (const bad of ['health', '/../x', '/a b', '/x#y']) expect(() => device.health({ path: bad })).toThrow(ValueError);
    } finally {
      await device.close();
      await server.close();
    }
  });
});
