import { afterEach, describe, expect } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { workflowProxy, operationRunner, type WorkflowDeclaration } from '../../src/device/proxy.js';
import type { DeviceClient } from '../../src/device/client.js';
import { openDevice } from '../../src/device/registry.js';
import type { SemanticMiddleware } from '../../src/middleware/index.js';
import type { Logger } from '../../src/lib/logger.js';
import { REDACTED } from '../../src/http/access-log.js';
import { parseTraceparent } from '../../src/tracing/trace-context.js';
import { traceLogMixin } from '../../src/tracing/trace-scope.js';
import { plant } from '../../src/vocab/index.js';
import { startLocalApi } from '../../src/sidecar/local-api.js';
import { middlewareSuite, OPEN, OPEN_REQUEST, until } from '../middleware/support/harness.js';

const G = 'urn:test:tracing:propagation';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TOKEN = 'trace-test-token-5f1c0a9e';

type Line = Record<string, unknown> & { level: number; msg: string };

/** A logger as the product builds them (the trace mixin on), writing parsed NDJSON into memory. */
function sink(level = 'debug'): { logger: Logger; lines: () => Line[]; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const text = (): string => chunks.join('');
  const lines = (): Line[] =>
    text()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Line);
  return { logger: pino({ level, mixin: traceLogMixin }, stream), lines, text };
}

/** A loopback HTTP device that records the headers of every call and answers `{"ok": true}`. */
async function recordingDevice(): Promise<{ url: string; calls: IncomingHttpHeaders[]; server: Server }> {
  const calls: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    calls.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server };
}

/** A device target nothing listens on. */
async function deadTarget(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const DECL: WorkflowDeclaration = { ...OPEN, path: '/open', timeoutMs: 2000 };

describe('trace context from request to device call', () => {
  const suite = middlewareSuite('embedded', G);
  const { onStore } = suite;

  const devices: DeviceClient[] = [];
  afterEach(() => Promise.all(devices.splice(0).map((d) => d.close())));

  /** door1's receiver, proxying `open` to `target` for direct calls and for claimed Operations. */
  async function receiver(target: string, log: Logger, setup?: (door: SemanticMiddleware) => void) {
    const device = openDevice(target, { logger: log });
    devices.push(device);
    const door = suite.create({ resourceIri: plant.door1, serviceClass: plant.ControllerService, logger: log });
    door.workflow(OPEN, workflowProxy(device, DECL));
    door.registerCallback(operationRunner(device, [DECL]));
    setup?.(door);
    await door.start();
    return door;
  }

  async function caller(log: Logger) {
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null, logger: log });
    await robot.start();
    return robot;
  }

  onStore("should carry the trace id given to request into the caller's, the receiver's and the device call's log lines", async () => {
    const device = await recordingDevice();
    try {
      const [callerLog, receiverLog] = [sink(), sink()];
      await receiver(device.url, receiverLog.logger);
      const robot = await caller(callerLog.logger);
      const op = await robot.request({ ...OPEN_REQUEST, traceparent: `00-${TRACE}-${PARENT}-01` });
      expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
      const traced = (lines: Line[]): string[] => lines.filter((l) => l.traceId === TRACE).map((l) => l.msg);
      expect(traced(callerLog.lines())).toContain('operation requested');
      expect(traced(receiverLog.lines())).toEqual(expect.arrayContaining(['operation enqueued', 'device call', 'operation done']));
      // The device got the same trace with the receiver's own span as parent.
      expect(device.calls).toHaveLength(1);
      const sent = parseTraceparent(device.calls[0]!.traceparent);
      expect(sent).toMatchObject({ traceId: TRACE, flags: '01' });
      expect(sent!.spanId).not.toBe(PARENT);
      // Work outside the trace (heartbeats, registration) carries no trace id.
      expect(receiverLog.lines().find((l) => l.msg === 'operation done' && l.traceId !== TRACE)).toBeUndefined();
    } finally {
      device.server.closeAllConnections();
      device.server.close();
    }
  });

  onStore("should continue the traceparent of the local API's POST /operations, and log its access without the token", async () => {
    const device = await recordingDevice();
    const callerLog = sink('debug');
    const api = await startLocalApi({
      middleware: await caller(callerLog.logger),
      listen: { port: 0, token: TOKEN },
      logger: callerLog.logger,
      accessLogLevel: 'info',
    });
    try {
      await receiver(device.url, sink().logger);
      const posted = await fetch(`${api.url}/operations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, traceparent: `00-${TRACE}-${PARENT}-01`, 'content-type': 'application/json' },
        body: JSON.stringify(OPEN_REQUEST),
      });
      expect(posted.status).toBe(201);
      await until(() => device.calls.length === 1, 'the device call');
      expect(parseTraceparent(device.calls[0]!.traceparent)?.traceId).toBe(TRACE);
      const lines = callerLog.lines();
      expect(lines.find((l) => l.msg === 'operation requested')?.traceId).toBe(TRACE);
      expect(lines.find((l) => l.msg === 'request served')).toMatchObject({ traceId: TRACE, res: { statusCode: 201 } });
      expect(callerLog.text()).not.toContain(TOKEN);
    } finally {
      await api.close();
      device.server.closeAllConnections();
      device.server.close();
    }
  });

  onStore('should ignore an invalid traceparent and start a new trace, never failing the request', async () => {
    const device = await recordingDevice();
    try {
      const [callerLog, receiverLog] = [sink(), sink()];
      const door = await receiver(device.url, receiverLog.logger);
      const robot = await caller(callerLog.logger);
      const op = await robot.request({ ...OPEN_REQUEST, traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` });
      expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
      const sent = parseTraceparent(device.calls[0]!.traceparent);
      expect(sent).toBeDefined();
      const requested = callerLog.lines().find((l) => l.msg === 'operation requested')!;
      expect(requested.traceId).toBe(sent!.traceId);
      // A direct workflow call with a malformed header is served under a new trace too.
      const direct = await fetch(`${door.address!}/workflows/open/execute`, {
        method: 'POST',
        headers: { traceparent: 'not-a-trace', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(direct.status).toBe(200);
      expect(parseTraceparent(device.calls[1]!.traceparent)?.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(parseTraceparent(device.calls[1]!.traceparent)?.traceId).not.toBe(sent!.traceId);
    } finally {
      device.server.closeAllConnections();
      device.server.close();
    }
  });

  onStore('should log a device that does not answer at warn without a stack, and a fault at error with its stack', async () => {
    const log = sink();
    const door = await receiver(await deadTarget(), log.logger, (mw) =>
      mw.workflow({ capabilityClass: plant.DoorClosingCapability, workflowClass: plant.CloseDoorWorkflow, name: 'broken' }, () => {
        throw new TypeError('a bug');
      }),
    );
    const robot = await caller(sink().logger);
    const op = await robot.request(OPEN_REQUEST);
    expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'failed' });
    expect((await fetch(`${door.address!}/workflows/open/execute`, { method: 'POST' })).status).toBe(502);
    expect((await fetch(`${door.address!}/workflows/broken/execute`, { method: 'POST' })).status).toBe(500);
    const lines = log.lines();
    const failed = lines.find((l) => l.msg === 'operation failed')!;
    expect(failed.level).toBe(40);
    expect(failed.err).toMatchObject({ type: 'DeviceUnreachableError' });
    expect((failed.err as { stack?: unknown }).stack).toBeFalsy();
    expect(failed.traceId).toMatch(/^[0-9a-f]{32}$/);
    const requestFailures = lines.filter((l) => l.msg === 'request failed');
    expect(requestFailures.map((l) => [l.path, l.level, !(l.err as { stack?: string }).stack])).toEqual([
      ['/workflows/open/execute', 40, true],
      ['/workflows/broken/execute', 50, false],
    ]);
  });
});

describe('access logs', () => {
  const suite = middlewareSuite('embedded', `${G}:access`);
  const { onStore } = suite;

  async function door(accessLogLevel: 'info' | 'debug' | undefined, log: Logger) {
    const mw = suite.create({
      resourceIri: plant.door1,
      serviceClass: plant.ControllerService,
      logger: log,
      httpToken: TOKEN,
      ...(accessLogLevel && { accessLogLevel }),
    });
    mw.workflow(OPEN, () => 'opened');
    await mw.start();
    return mw;
  }

  onStore('should log one line per request at the configured level with its trace id, and never the token', async () => {
    const log = sink('info');
    const mw = await door('info', log.logger);
    const headers = { authorization: `Bearer ${TOKEN}`, traceparent: `00-${TRACE}-${PARENT}-01`, cookie: `session=${TOKEN}` };
    expect((await fetch(`${mw.address!}/workflows/open/execute`, { method: 'POST', headers })).status).toBe(200);
    expect((await fetch(`${mw.address!}/activity?token=x`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const access = log.lines().filter((l) => l.msg === 'request served');
    expect(access.map((l) => [l.level, (l.req as { url: string }).url, (l.res as { statusCode: number }).statusCode])).toEqual([
      [30, '/workflows/open/execute', 200],
      [30, '/activity?token=x', 401],
    ]);
    expect(access[0]!.traceId).toBe(TRACE);
    expect((access[0]!.req as { headers: Record<string, string> }).headers).toMatchObject({ authorization: REDACTED, cookie: REDACTED });
    expect(log.text()).not.toContain(TOKEN);
  });

  onStore('should write no access line at the default level under an info logger', async () => {
    const log = sink('info');
    const mw = await door(undefined, log.logger);
    expect(
      (await fetch(`${mw.address!}/workflows/open/execute`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
    expect(log.lines().filter((l) => l.req !== undefined)).toEqual([]);
    const debug = sink('debug');
    const verbose = await door(undefined, debug.logger);
    await fetch(`${verbose.address!}/healthz`);
    expect(
      debug
        .lines()
        .filter((l) => l.msg === 'request served')
        .map((l) => l.level),
    ).toEqual([20]);
  });
});
