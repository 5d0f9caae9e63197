import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import {
  DeviceAnswerError,
  DeviceError,
  DeviceTimeoutError,
  DeviceUnreachableError,
  openDevice,
  type DeviceClient,
} from '../../../../src/device/index.js';
import { ValueError } from '../../../../src/errors.js';
import { requestLines, socketDir, spawnBridge, type Bridge } from '../../support/bridge.js';
import { get, post } from '../../support/calls.js';
import { startTinyServer } from '../../support/tiny-server.js';

let sockets: Awaited<ReturnType<typeof socketDir>>;
beforeAll(async () => {
  sockets = await socketDir();
});
afterAll(async () => {
  await sockets.cleanup();
});

describe.each(['unix socket', 'tcp'] as const)('DeviceClient over %s to the mock bridge', (kind) => {
  let bridge: Bridge;
  let device: DeviceClient;

  beforeAll(async () => {
    bridge = await spawnBridge(kind === 'tcp' ? {} : { socket: sockets.path('door.sock') });
    device = openDevice(bridge.target);
  });
  afterAll(async () => {
    await device.close();
    await bridge.stop();
  });

  it('should describe the target as the URL or unix:<path>', () => {
    expect(device.description).toBe(bridge.target);
  });

  it('should POST JSON and return the parsed JSON answer, then read the state live', async () => {
    await expect(post(device, '/open', {}, 5000)).resolves.toEqual({ ok: true, door: 'open' });
    await expect(get(device, '/state/door', 5000)).resolves.toBe('open');
    await post(device, '/close', { speed: 1 }, 5000);
    await expect(get(device, '/state/door', 5000)).resolves.toBe('closed');
  });

  it('should return null for an empty 2xx body', async () => {
    await expect(post(device, '/reset', {}, 5000)).resolves.toBeNull();
  });

  it('should turn a 500 with a detail into a DeviceAnswerError that keeps status and detail', async () => {
    const err = await post(device, '/open', { fail: 'door jammed' }, 5000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceAnswerError);
    const answer = err as DeviceAnswerError;
    expect(answer).toBeInstanceOf(DeviceError);
    expect([answer.status, answer.code, answer.deviceStatus, answer.detail]).toEqual([502, 'SM_DEVICE_ANSWER', 500, 'door jammed']);
    expect(answer.bodyPreview).toBe('{"detail":"door jammed"}');
    expect(answer.message).toBe(`POST /open on device ${device.description} answered HTTP 500: door jammed`);
    expect(answer.call).toEqual({ target: device.description, method: 'POST', path: '/open' });
  });

  it('should report an unknown path as the device answering 404', async () => {
    const err = (await get(device, '/state/nothing', 5000).catch((e: unknown) => e)) as DeviceAnswerError;
    expect(err).toBeInstanceOf(DeviceAnswerError);
    expect(err.deviceStatus).toBe(404);
    expect(err.detail).toBe('a door bridge has no GET /state/nothing');
  });

  it('should fail a hung call with DeviceTimeoutError near its timeout and keep working', async () => {
    const started = Date.now();
    const err = (await post(device, '/open', { hang: true }, 300).catch((e: unknown) => e)) as DeviceTimeoutError;
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(DeviceTimeoutError);
    expect([err.status, err.code, err.timeoutMs]).toEqual([504, 'SM_DEVICE_TIMEOUT', 300]);
    expect(err.message).toContain(`POST /open on device ${device.description} got no answer within 300 ms`);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
    await expect(get(device, '/state/door', 5000)).resolves.toBe('closed');
  });

  it('should answer many concurrent calls over the pool', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(device, i % 2 ? '/open' : '/close', {}, 5000)));
    expect(answers.filter((a) => (a as { door: string }).door === 'open')).toHaveLength(10);
  });

  it('should let the bridge log every request it answered', () => {
    const logged = requestLines(bridge);
    expect(logged.some((l) => l.method === 'POST' && l.path === '/open' && l.status === 500)).toBe(true);
    expect(logged.some((l) => l.method === 'GET' && l.path === '/state/door' && l.status === 200)).toBe(true);
  });
});

describe('DeviceClient when the device is not there', () => {
  it('should report a refused TCP connection as DeviceUnreachableError naming the target', async () => {
    const server = await startTinyServer(() => undefined);
    await server.close();
    const device = openDevice(server.target);
    const err = (await post(device, '/open', {}, 2000).catch((e: unknown) => e)) as DeviceUnreachableError;
    await device.close();
    expect(err).toBeInstanceOf(DeviceUnreachableError);
    expect([err.status, err.code, err.reasonCode]).toEqual([502, 'SM_DEVICE_UNREACHABLE', 'ECONNREFUSED']);
    expect(err.message).toBe(
      `POST /open on device ${device.description} failed: connection refused (ECONNREFUSED); is the device bridge running on ${device.description}?`,
    );
  });

  it('should report a missing socket file as DeviceUnreachableError (ENOENT)', async () => {
    const device = openDevice(`unix:${sockets.path('missing.sock')}`);
    const err = (await get(device, '/state/door', 2000).catch((e: unknown) => e)) as DeviceUnreachableError;
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
    const device = openDevice(first.target);
    await expect(post(device, '/open', {}, 5000)).resolves.toEqual({ ok: true, door: 'open' });
    const started = Date.now();
    const pending = post(device, '/close', { hang: true }, 10_000).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await first.stop('SIGKILL');
    const err = (await pending) as DeviceUnreachableError;
    expect(err).toBeInstanceOf(DeviceUnreachableError);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err.message).toContain('did the bridge crash?');
    // The killed bridge left its socket file behind: nobody listens on it.
    const stale = (await get(device, '/state/door', 2000).catch((e: unknown) => e)) as DeviceUnreachableError;
    expect(stale.reasonCode).toBe('ECONNREFUSED');
    const second = await spawnBridge({ socket });
    await expect(get(device, '/state/door', 5000)).resolves.toBe('closed');
    await device.close();
    await second.stop();
  });
});

describe('DeviceClient lifecycle and checks', () => {
  it('should reuse keep-alive connections for sequential calls', async () => {
    const server = await startTinyServer((_req, res) => res.setHeader('content-type', 'application/json').end('1'));
    const device = openDevice(server.target);
    for (let i = 0; i < 10; i += 1) await get(device, '/x', 2000);
    // The agent may open a second connection while the first is still being released.
    expect(server.connections()).toBeLessThanOrEqual(2);
    await device.close();
    await server.close();
  });

  it('should refuse a bad path, method or timeout when the call is prepared, and a body that is not JSON, before sending anything', async () => {
    const server = await startTinyServer((_req, res) => res.end('1'));
    const device = openDevice(server.target);
    const form = { label: 'workflow "open"', path: '/open', timeoutMs: 100 };
    expect(() => device.reader({ ...form, path: 'state/door' })).toThrow('workflow "open" path "state/door" is not an absolute path');
    expect(() => device.invoker({ ...form, path: '//evil.example/x' })).toThrow(ValueError);
    expect(() => device.invoker({ ...form, method: 'GET' })).toThrow(
      'workflow "open" has method "GET"; device workflows are called with POST',
    );
    expect(() => device.reader({ ...form, method: 'POST' })).toThrow('workflow "open" has method "POST"; device states are read with GET');
    expect(() => device.reader({ ...form, timeoutMs: 0 })).toThrow('timeoutMs 0 is not a positive whole number of milliseconds');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(post(device, '/x', cyclic, 100)).rejects.toThrow(`the body of POST /x for device ${device.description} is not JSON`);
    await expect(post(device, '/x', { n: 10n }, 100)).rejects.toThrow(ValueError);
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
    const device = openDevice(server.target, { logger: pino({ level: 'debug' }, sink) });
    await get(device, '/ok', 2000);
    await get(device, '/bad', 2000).catch(() => undefined);
    await device.close();
    await server.close();
    expect(lines.map((l) => [l.device, l.method, l.path, l.outcome, l.msg])).toEqual([
      [device.description, 'GET', '/ok', 200, 'device call'],
      [device.description, 'GET', '/bad', 'SM_DEVICE_ANSWER', 'device call'],
    ]);
    expect(typeof lines[0]!.ms).toBe('number');
  });
});
