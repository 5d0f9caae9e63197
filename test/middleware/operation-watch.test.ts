import { describe, expect } from '@jest/globals';
import { mintOperationIri, mintServiceIri, mintWorkflowIri } from '../../src/iri/index.js';
import { OperationResolutionError, OperationTimeoutError, readOperation, waitForOperation } from '../../src/middleware/index.js';
import { markOperationFailed, recordTerminalStatus, setOperationStatus } from '../../src/registration/index.js';
import { OGM } from '../../src/ogm/index.js';
import { literal, type Term } from '../../src/store/terms.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { plant } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { middlewareSuite } from './support/harness.js';

const G = 'urn:test:middleware:operation-watch';
const WORKFLOW = mintWorkflowIri(mintServiceIri(plant.door1, 'http://127.0.0.1:8301'), 'open');

describe.each(['embedded', 'remote'] as const)('reading and awaiting Operations on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const { queuedOp } = suite;

  onStore('should read an Operation in any status, and nothing for an absent one', async () => {
    const ogm = suite.newOgm();
    expect(await readOperation(ogm, mintOperationIri(plant.OpenDoorOperation))).toBeNull();
    const op = await queuedOp();
    expect(await readOperation(ogm, op)).toEqual({ operationIri: op, status: 'queued', createdAt: expect.any(Date) });
    await setOperationStatus(ogm, { operationIri: op, status: 'running' });
    const at = new Date('2026-01-02T03:04:05.000Z');
    await recordTerminalStatus(ogm, {
      operationIri: op,
      workflowIri: WORKFLOW,
      status: 'failed',
      result: 'boom',
      failureState: '{"id":"x"}',
      timestamp: at,
    });
    const snapshot = await readOperation(ogm, op);
    expect(snapshot).toEqual({
      operationIri: op,
      status: 'failed',
      result: 'boom',
      failureState: '{"id":"x"}',
      failureKind: 'error',
      workflowIri: WORKFLOW,
      timestamp: at,
      // The audit fields: when it was created and claimed, finished when its provenance says.
      createdAt: expect.any(Date),
      claimedAt: expect.any(Date),
      finishedAt: at,
    });
    expect(snapshot!.claimedAt!.getTime()).toBeGreaterThanOrEqual(snapshot!.createdAt!.getTime());
  });

  onStore('should wait for the terminal status, time out with a 504, and refuse an absent Operation', async () => {
    const ogm = suite.newOgm();
    const op = await queuedOp();
    const started = Date.now();
    const timeout = await rejection(waitForOperation(ogm, op, { timeoutMs: 200 }));
    expect(timeout).toBeInstanceOf(OperationTimeoutError);
    expect((timeout as OperationTimeoutError).status).toBe(504);
    expect((timeout as Error).message).toContain("still 'queued' after 200 ms");
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const waiting = waitForOperation(ogm, op, { timeoutMs: 10_000 });
    await markOperationFailed(suite.newOgm(), op, 'no longer needed');
    expect(await waiting).toMatchObject({ status: 'failed', result: 'no longer needed' });
    expect(await rejection(waitForOperation(ogm, mintOperationIri(plant.OpenDoorOperation), { timeoutMs: 100 }))).toBeInstanceOf(
      OperationResolutionError,
    );
  });

  onStore('should take an announced outcome without reading, read when none comes in time, and stop when its signal aborts', async () => {
    const ogm = suite.newOgm();
    const op = await queuedOp();
    const announced = { operationIri: op, status: 'done' as const, result: '"opened"' };
    // The store still says queued: the answer can only have come from the announcement.
    expect(await waitForOperation(ogm, op, { timeoutMs: 5_000, outcome: Promise.resolve(announced) })).toBe(announced);
    // An announcement that says nothing: the store is read, and the wait goes on there.
    await markOperationFailed(suite.newOgm(), op, 'no longer needed');
    expect(await waitForOperation(ogm, op, { timeoutMs: 5_000, outcome: Promise.resolve(null) })).toMatchObject({ status: 'failed' });
    // One that never comes: the store is read once the timeout is up, not before.
    const other = await queuedOp();
    const silent = new Promise<null>(() => undefined);
    const started = Date.now();
    expect(await rejection(waitForOperation(ogm, other, { timeoutMs: 150, outcome: silent }))).toBeInstanceOf(OperationTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    // Aborted while waiting for it: the signal's reason, at once.
    const controller = new AbortController();
    const reason = new Error('the client went away');
    const waiting = waitForOperation(ogm, other, { timeoutMs: 10_000, outcome: silent, signal: controller.signal });
    const abortedAt = Date.now();
    setTimeout(() => controller.abort(reason), 20);
    expect(await rejection(waiting)).toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(2_000);
    // Aborted before: refused without waiting.
    expect(await rejection(waitForOperation(ogm, other, { timeoutMs: 10_000, outcome: silent, signal: controller.signal }))).toBe(reason);
  });
});

describe('awaiting an Operation on a store whose reads may tear', () => {
  const op = mintOperationIri(plant.OpenDoorOperation);
  /** A store answering each outcome read with the next of `answers` (the last one from then on). */
  function storeAnswering(answers: Record<string, Term>[][], readsMayTear: boolean): TripleStore & { reads: number } {
    const store = {
      description: 'scripted store',
      requestCount: 0,
      readsMayTear,
      reads: 0,
      select: () => Promise.resolve(answers[Math.min(store.reads++, answers.length - 1)]!),
    };
    return store as unknown as TripleStore & { reads: number };
  }
  const running = [{ st: literal('running') }];
  // Read while the terminal write committed: the long failure state not yet seen.
  const torn = [{ st: literal('failed'), res: literal('door jammed') }];
  const whole = [{ st: literal('failed'), res: literal('door jammed'), fs: literal('{"id":"door1"}') }];

  it('should return a terminal snapshot only once two reads in a row agree', async () => {
    const store = storeAnswering([running, torn, whole], true);
    const snapshot = await waitForOperation(new OGM({ store, graph: G }), op, { timeoutMs: 5_000 });
    expect(snapshot).toMatchObject({ status: 'failed', result: 'door jammed', failureState: '{"id":"door1"}' });
    // running, torn, whole, whole again.
    expect(store.reads).toBe(4);
  });

  it('should read a terminal status until two reads agree, a status in flight once, and give up after five', async () => {
    const confirmed = storeAnswering([torn, whole], true);
    expect(await readOperation(new OGM({ store: confirmed, graph: G }), op)).toMatchObject({ failureState: '{"id":"door1"}' });
    expect(confirmed.reads).toBe(3);
    const inFlight = storeAnswering([running, torn], true);
    expect(await readOperation(new OGM({ store: inFlight, graph: G }), op)).toMatchObject({ status: 'running' });
    expect(inFlight.reads).toBe(1);
    // A store that never answers the same twice: the last read, after five.
    let n = 0;
    const changing = storeAnswering([], true);
    changing.select = () => Promise.resolve([{ st: literal('done'), res: literal(String(n++)) }]);
    expect(await readOperation(new OGM({ store: changing, graph: G }), op)).toMatchObject({ status: 'done', result: '4' });
  });

  it('should take the first terminal read on a store whose reads never tear', async () => {
    const store = storeAnswering([running, whole], false);
    expect(await waitForOperation(new OGM({ store, graph: G }), op, { timeoutMs: 5_000 })).toMatchObject({
      failureState: '{"id":"door1"}',
    });
    expect(store.reads).toBe(2);
  });
});
