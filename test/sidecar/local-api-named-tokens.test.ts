import { afterEach, describe, expect } from '@jest/globals';
import { ValueError } from '../../src/errors.js';
import type { NamedToken } from '../../src/http/named-tokens.js';
import { startLocalApi, type LocalApi } from '../../src/sidecar/local-api.js';
import { sm } from '../../src/vocab/index.js';
import { readGraph, values } from '../faults/support/graph-audit.js';
import { rejection } from '../support/per-store.js';
import { logSink, middlewareSuite, OPEN_REQUEST } from '../middleware/support/harness.js';

/**
 * The loopback local API with named tokens: each caller's identity reaches the graph
 * (`sm:requestedBy`, `sm:cancelledBy`), `GET /operations/status` answers the audit fields, and
 * no token appears in a log line, an answer or the graph.
 */

const G = 'urn:test:sidecar:local-api-named-tokens';
const ALICE = 'alice-local-secret-0123456789';
const BOB = 'bob-local-secret-0123456789';
const TOKENS: NamedToken[] = [
  { name: 'alice', token: ALICE },
  { name: 'bob', token: BOB },
];

describe.each(['embedded', 'remote'] as const)('named tokens of the local API on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  let api: LocalApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  suite.onStore('should record who requested and who cancelled, answer the audit fields, and never show a token', async () => {
    const door = suite.controller({ heartbeatInterval: null });
    door.registerCallback(() => 'opened');
    await door.start();
    const { logger, lines } = logSink('debug');
    api = await startLocalApi({ middleware: door, listen: { port: 0, token: TOKENS }, logger, accessLogLevel: 'info' });
    const call = async (token: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${api!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    };

    const created = await call(ALICE, 'POST', '/operations', OPEN_REQUEST);
    expect(created.status).toBe(201);
    const { operation } = JSON.parse(created.text) as { operation: string };
    const done = await call(ALICE, 'GET', `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=20000`);
    const snapshot = JSON.parse(done.text) as Record<string, string>;
    expect(snapshot).toMatchObject({ status: 'done', requestedBy: 'token:alice' });
    const [createdAt, claimedAt, finishedAt] = [snapshot.createdAt, snapshot.claimedAt, snapshot.finishedAt].map((t) => Date.parse(t!));
    expect(claimedAt).toBeGreaterThanOrEqual(createdAt!);
    expect(finishedAt).toBeGreaterThanOrEqual(claimedAt!);

    const queued = await suite.queuedOp();
    const cancelled = await call(BOB, 'POST', '/operations/cancel', { operation: queued });
    expect(JSON.parse(cancelled.text)).toMatchObject({ outcome: 'cancelled', cancelledBy: 'token:bob' });
    const status = JSON.parse((await call(ALICE, 'GET', `/operations/status?iri=${encodeURIComponent(queued)}`)).text) as object;
    expect(status).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: 'token:bob', finishedAt: expect.any(String) });

    const refused = await call(`${ALICE}x`, 'POST', '/operations', OPEN_REQUEST);
    expect(refused.status).toBe(401);
    const index = await readGraph(suite.store!, G);
    expect(values(index, operation, sm.requestedBy)).toEqual(['token:alice']);
    expect(values(index, queued, sm.cancelledBy)).toEqual(['token:bob']);
    const served = lines().filter((line) => line.msg === 'request served');
    expect(served.map((line) => line.caller)).toEqual(expect.arrayContaining(['token:alice', 'token:bob']));
    const everything = [JSON.stringify(lines()), created.text, done.text, cancelled.text, refused.text, await suite.dump()].join('\n');
    for (const secret of [ALICE, BOB]) expect(everything).not.toContain(secret);
  });

  suite.onStore('should refuse a token limited to workflows, which the local API runs none of', async () => {
    const door = suite.controller({ heartbeatInterval: null });
    const limited = [{ name: 'alice', token: ALICE, workflows: ['open'] }];
    const error = await rejection(startLocalApi({ middleware: door, listen: { port: 0, token: limited }, logger: logSink().logger }));
    expect(error).toBeInstanceOf(ValueError);
    expect((error as Error).message).toMatch(/cannot be limited to workflows/u);
    expect((error as Error).message).not.toContain(ALICE);
  });
});
