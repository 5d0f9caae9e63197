import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import {
  DeviceAnswerError,
  DeviceError,
  DeviceTimeoutError,
  DeviceUnreachableError,
  openDeviceTransport,
  type DeviceTarget,
  type DeviceTransport,
} from '../../src/device/index.js';
import { RuntimeError, ValueError } from '../../src/errors.js';
import { requestLines, socketDir, spawnBridge, type Bridge } from './support/bridge.js';
import { startTinyServer } from './support/tiny-server.js';

let sockets: Awaited<ReturnType<typeof socketDir>>;
beforeAll(async () => {
  sockets = await socketDir();
});
afterAll(async () => {
  await sockets.cleanup();
});

function describeTarget(target: DeviceTarget): string {
  return 'url' in target ? target.url : `unix:${target.socketPath}`;
}

describe.each(['unix socket', 'tcp'] as const)('DeviceTransport over %s to the mock bridge', (kind) => {
  let bridge: Bridge;
  let device: DeviceTransport;

  beforeAll(async () => {
    bridge = await spawnBridge(kind === 'tcp' ? {} : { socket: sockets.path('door.sock') });
    device = openDeviceTransport(bridge.target);
  });
  afterAll(async () => {
    await device.close();
    await bridge.stop();
  });

  it('should describe the target as the URL or unix:<path>', () => {
    expect(device.description).toBe(describeTarget(bridge.target));
  });

  it('should POST JSON and return the parsed JSON answer, then read the state live', async () => {
    await expect(device.request({ method: 'POST', path: '/open', body: {}, timeoutMs: 5000 })).resolves.toEqual({ ok: true, door: 'open' });
    await expect(device.request({ method: 'GET', path: '/state/door', timeoutMs: 5000 })).resolves.toBe('open');
    await device.request({ method: 'POST', path: '/close', body: { speed: 1 }, timeoutMs: 5000 });
    await expect(device.request({ method: 'GET', path: '/state/door', timeoutMs: 5000 })).resolves.toBe('closed');
  });

  it('should return null for an empty 2xx body', async () => {
    await expect(device.request({ method: 'POST', path: '/reset', timeoutMs: 5000 })).resolves.toBeNull();
  });

  it('should turn a 500 with a detail into a DeviceAnswerError that keeps status and detail', async () => {
    const err = await device
      .request({ method: 'POST', path: '/open', body: { fail: 'door jammed' }, timeoutMs: 5000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceAnswerError);
    const answer = err as DeviceAnswerError;
    expect(answer).toBeInstanceOf(DeviceError);
    expect([answer.status, answer.code, answer.deviceStatus, answer.detail]).toEqual([502, 'SM_DEVICE_ANSWER', 500, 'door jammed']);
    expect(answer.bodyPreview).toBe('{"detail":"door jammed"}');
    expect(answer.message).toBe(`POST /open on device ${device.description} answered HTTP 500: door jammed`);
    expect(answer.call).toEqual({ target: device.description, method: 'POST', path: '/open' });
  });

  it('should report an unknown path as the device answering 404', async () => {
    const err = (await device
      .request({ method: 'GET', path: '/state/nothing', timeoutMs: 5000 })
      .catch((e: unknown) => e)) as DeviceAnswerError;
    expect(err).toBeInstanceOf(DeviceAnswerError);
    expect(err.deviceStatus).toBe(404);
    expect(err.detail).toBe('a door bridge has no GET /state/nothing');
  });

  it('should fail a hung call with DeviceTimeoutError near its timeout and keep working', async () => {
    const started = Date.now();
    const err = (await device
      .request({ method: 'POST', path: '/open', body: { hang: true }, timeoutMs: 300 })
      .catch((e: unknown) => e)) as DeviceTimeoutError;
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(DeviceTimeoutError);
    expect([err.status, err.code, err.timeoutMs]).toEqual([504, 'SM_DEVICE_TIMEOUT', 300]);
    expect(err.message).toContain(`POST /open on device ${device.description} got no answer within 300 ms`);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
    await expect(device.request({ method: 'GET', path: '/state/door', timeoutMs: 5000 })).resolves.toBe('closed');
  });

  it('should answer many concurrent calls over the pool', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => device.request({ method: 'POST', path: i % 2 ? '/open' : '/close', body: {}, timeoutMs: 5000 })),
    );
    expect(answers.filter((a) => (a as { door: string }).door === 'open')).toHaveLength(10);
  });

  it('should let the bridge log every request it answered', () => {
    const logged = requestLines(bridge);
    expect(logged.some((l) => l.method === 'POST' && l.path === '/open' && l.status === 500)).toBe(true);
    expect(logged.some((l) => l.method === 'GET' && l.path === '/state/door' && l.status === 200)).toBe(true);
  });
});

describe('DeviceTransport when the device is not there', () => {
  it('should report a refused TCP connection as DeviceUnreachableError naming the target', async () => {
    const server = await startTinyServer(() => undefined);
    await server.close();
    const device = openDeviceTransport(server.target);
    const err = (await device
      .request({ method: 'POST', path: '/open', body: {}, timeoutMs: 2000 })
      .catch((e: unknown) => e)) as DeviceUnreachableError;
    await device.close();
    expect(err).toBeInstanceOf(DeviceUnreachableError);
    expect([err.status, err.code, err.reasonCode]).toEqual([502, 'SM_DEVICE_UNREACHABLE', 'ECONNREFUSED']);
    expect(err.message).toBe(
      `POST /open on device ${device.description} failed: connection refused (ECONNREFUSED); is the device bridge running on ${device.description}?`,
    );
  });

  it('should report a missing socket file as DeviceUnreachableError (ENOENT)', async () => {
    const device = openDeviceTransport({ socketPath: sockets.path('missing.sock') });
    const err = (await device
      .request({ method: 'GET', path: '/state/door', timeoutMs: 2000 })
      .catch((e: unknown) => e)) as DeviceUnreachableError;
    await device.close();
    expect(err).toBeInstanceOf(DeviceUnreachableError);
    expect(err.reasonCode).toBe('ENOENT');
    expect(err.message).toContain(
      `the socket file does not exist (ENOENT); is the device bridge running on unix:${sockets.path('missing.sock')}?`,
    );
  });

  it('should survive the bridge dying mid-request, then reach a restarted bridge on the same socket', async () => {
    const socket = sockets.path('dies.sock');
    const first = await spawnBridge({ socket });
    const device = openDeviceTransport(first.target);
    await expect(device.request({ method: 'POST', path: '/open', body: {}, timeoutMs: 5000 })).resolves.toEqual({ ok: true, door: 'open' });
    const started = Date.now();
    const pending = device.request({ method: 'POST', path: '/close', body: { hang: true }, timeoutMs: 10_000 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await first.stop('SIGKILL');
    const err = (await pending) as DeviceUnreachableError;
    expect(err).toBeInstanceOf(DeviceUnreachableError);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err.message).toContain('did the bridge crash?');
    // The killed bridge left its socket file behind: nobody listens on it.
    const stale = (await device
      .request({ method: 'GET', path: '/state/door', timeoutMs: 2000 })
      .catch((e: unknown) => e)) as DeviceUnreachableError;
    expect(stale.reasonCode).toBe('ECONNREFUSED');
    const second = await spawnBridge({ socket });
    await expect(device.request({ method: 'GET', path: '/state/door', timeoutMs: 5000 })).resolves.toBe('closed');
    await device.close();
    await second.stop();
  });
});

describe('DeviceTransport lifecycle and checks', () => {
  it('should reuse keep-alive connections for sequential calls', async () => {
    const server = await startTinyServer((_req, res) => res.setHeader('content-type', 'application/json').end('1'));
    const device = openDeviceTransport(server.target);
    for (let i = 0; i < 10; i += 1) await device.request({ method: 'GET', path: '/x', timeoutMs: 2000 });
    // The agent may open a second connection while the first is still being released.
    expect(server.connections()).toBeLessThanOrEqual(2);
    await device.close();
    await server.close();
  });

  it('should refuse requests after close with a RuntimeError, and close twice quietly', async () => {
    const device = openDeviceTransport({ url: 'http://127.0.0.1:9' });
    await device.close();
    await device.close();
    await expect(device.request({ method: 'GET', path: '/state/door', timeoutMs: 100 })).rejects.toThrow(RuntimeError);
  });

  it('should refuse a bad path or timeout before sending anything', async () => {
    const server = await startTinyServer((_req, res) => res.end('1'));
    const device = openDeviceTransport(server.target);
    await expect(device.request({ method: 'GET', path: 'state/door', timeoutMs: 100 })).rejects.toThrow(
      'device path "state/door" is not an absolute path',
    );
    await expect(device.request({ method: 'GET', path: '//evil.example/x', timeoutMs: 100 })).rejects.toThrow(ValueError);
    await expect(device.request({ method: 'GET', path: '/x', timeoutMs: 0 })).rejects.toThrow(
      'timeoutMs 0 is not a positive whole number of milliseconds',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(device.request({ method: 'POST', path: '/x', body: cyclic, timeoutMs: 100 })).rejects.toThrow(
      `the body of POST /x for device ${device.description} is not JSON`,
    );
    await expect(device.request({ method: 'POST', path: '/x', body: 10n, timeoutMs: 100 })).rejects.toThrow(ValueError);
    expect(server.connections()).toBe(0);
    await device.close();
    await server.close();
  });

  it('should log one debug line per call with method, path, outcome and ms', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const server = await startTinyServer((req, res) => res.writeHead(req.url === '/bad' ? 500 : 200).end('{}'));
    const device = openDeviceTransport(server.target, { logger: pino({ level: 'debug' }, sink) });
    await device.request({ method: 'GET', path: '/ok', timeoutMs: 2000 });
    await device.request({ method: 'GET', path: '/bad', timeoutMs: 2000 }).catch(() => undefined);
    await device.close();
    await server.close();
    expect(lines.map((l) => [l.device, l.method, l.path, l.outcome, l.msg])).toEqual([
      [device.description, 'GET', '/ok', 200, 'device call'],
      [device.description, 'GET', '/bad', 'SM_DEVICE_ANSWER', 'device call'],
    ]);
    expect(typeof lines[0]!.ms).toBe('number');
  });
});
