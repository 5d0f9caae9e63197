/**
 * Two sidecars in this process (door1 receives, robot1 requests through its local API) on a
 * served store, door1's device a loopback server that records the headers of every call: the
 * caller's trace reaches the device and the log lines of both sides on every path a sidecar
 * serves, and the sidecars never carry it with an AsyncLocalStorage (which would put a hook on
 * every promise of the process).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadSidecarConfig } from '../../src/sidecar/config.js';
import { startSidecar, type Sidecar } from '../../src/sidecar/daemon.js';
import { parseTraceparent } from '../../src/tracing/trace-context.js';
import { carriedTraces, traceLogMixin } from '../../src/tracing/trace-scope.js';
import { plant } from '../../src/vocab/index.js';
import { DOOR1_CONFIG, ROBOT1_CONFIG } from '../e2e/support/cell.js';
import { startStore } from '../e2e/support/daemons.js';
import { unixRequest } from '../e2e/support/unix-http.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const traceparent = (parent: string): string => `00-${TRACE}-${parent}-01`;

type Line = Record<string, unknown> & { msg: string };

function sink(): { logger: pino.Logger; lines: () => Line[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const lines = (): Line[] =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
  return { logger: pino({ level: 'debug', mixin: traceLogMixin }, stream), lines };
}

const group = new ProcessGroup();
const calls: { path: string; headers: IncomingHttpHeaders }[] = [];
let device: Server;
let dir: string;
let door: Sidecar;
let robot: Sidecar;
const doorLog = sink();
const robotLog = sink();

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'sm-trace-scope-'));
  const store = await startStore(group, ['--memory', '--provision']);
  device = createServer((req, res) => {
    calls.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/state/door' ? '"closed"' : '{"ok":true}'),
    );
  });
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.1', resolve));
  const deviceUrl = `http://127.0.0.1:${(device.address() as AddressInfo).port}`;
  const start = async (file: string, name: string, logger: pino.Logger) =>
    startSidecar(
      await loadSidecarConfig({
        file,
        env: {},
        flags: {
          store: store.url,
          port: 0,
          'device.target': deviceUrl,
          'localApi.socket': join(dir, `${name}.sock`),
          'log.accessLevel': 'info',
        },
      }),
      { logger },
    );
  door = await start(DOOR1_CONFIG, 'door1', doorLog.logger);
  robot = await start(ROBOT1_CONFIG, 'robot1', robotLog.logger);
}, 120_000);

afterAll(async () => {
  await robot?.stop();
  await door?.stop();
  device?.closeAllConnections();
  device?.close();
  await group.cleanup();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

describe('the trace in sidecars', () => {
  it("should carry a local API request's trace to the device and both sides' log lines, without an AsyncLocalStorage", async () => {
    const posted = await unixRequest(join(dir, 'robot1.sock'), 'POST', '/operations', {
      headers: { traceparent: traceparent('00f067aa0ba902b7') },
      body: { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, wait: true },
    });
    expect(posted.status).toBe(201);
    const { operation } = posted.json as { operation: string };
    const status = await unixRequest(
      join(dir, 'robot1.sock'),
      'GET',
      `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=10000`,
    );
    expect(status.json).toMatchObject({ status: 'done' });

    const run = calls.find((c) => c.path === '/open')!;
    expect(parseTraceparent(run.headers.traceparent as string)?.traceId).toBe(TRACE);
    const traced = (lines: Line[], msg: string) => lines.filter((l) => l.msg === msg).map((l) => l.traceId);
    expect(traced(robotLog.lines(), 'operation requested')).toEqual([TRACE]);
    for (const msg of ['operation enqueued', 'operation done']) expect(traced(doorLog.lines(), msg)).toEqual([TRACE]);
    // The device's health probes are no part of it.
    expect(
      doorLog
        .lines()
        .filter((l) => l.msg === 'device call' && l.path === '/open')
        .map((l) => l.traceId),
    ).toEqual([TRACE]);
    expect(carriedTraces()).toBe(false);
  });

  it("should carry a direct workflow call's and state read's trace to the device and the access log, without an AsyncLocalStorage", async () => {
    const before = calls.length;
    for (const [method, path] of [
      ['POST', '/workflows/open/execute'],
      ['GET', '/state/door'],
    ] as const) {
      const answer = await fetch(`${door.middleware.address!}${path}`, {
        method,
        headers: { traceparent: traceparent('b7ad6b7169203331'), ...(method === 'POST' && { 'content-type': 'application/json' }) },
        ...(method === 'POST' && { body: '{}' }),
      });
      expect(answer.status).toBe(200);
    }
    expect(calls.slice(before).map((c) => [c.path, parseTraceparent(c.headers.traceparent as string)?.traceId])).toEqual([
      ['/open', TRACE],
      ['/state/door', TRACE],
    ]);
    const served = doorLog.lines().filter((l) => l.msg === 'request served' && (l.req as { url: string }).url !== undefined);
    expect(served.slice(-2).map((l) => [(l.req as { url: string }).url, l.traceId])).toEqual([
      ['/workflows/open/execute', TRACE],
      ['/state/door', TRACE],
    ]);
    expect(carriedTraces()).toBe(false);
  });
});
