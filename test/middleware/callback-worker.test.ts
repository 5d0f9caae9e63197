import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { OperationQueueEmpty } from '../../src/errors.js';
import { createLogger } from '../../src/lib/logger.js';
import { LIMITS } from '../../src/limits.js';
import { CallbackWorker } from '../../src/middleware/runtime/callback-worker.js';
import type { MiddlewareContext } from '../../src/middleware/runtime/context.js';
import { WorkQueue } from '../../src/middleware/runtime/work-queue.js';
import { until } from './support/harness.js';

/**
 * The worker's estimate of when an Operation enqueued now is claimed, which decides whether a
 * busy receiver's trigger waits for the claim or reads the Operation: a real queue, and a claim
 * that takes the head entry and holds its runner for `claimMs`.
 */
function workerWith(claimMs: () => number) {
  const queue = new WorkQueue();
  const ctx = { queue, phase: 'started', logger: createLogger({ level: 'silent' }) } as unknown as MiddlewareContext;
  let claims = 0;
  const claim = async (): Promise<void> => {
    const taken = queue.take();
    if (!taken) throw new OperationQueueEmpty('nothing queued');
    await sleep(claimMs());
    taken.finish();
    claims += 1;
  };
  const worker = new CallbackWorker(ctx, claim);
  const push = (n: number): void => {
    for (let i = 0; i < n; i++) queue.push({ operationIri: `urn:test:op:${Math.random()}` });
  };
  return { worker, queue, ctx, push, claims: () => claims };
}

describe('CallbackWorker.expectedClaimWaitMs', () => {
  it('should know no estimate before a claim was timed, nor without a callback, nor once stopped', async () => {
    const { worker, push, claims } = workerWith(() => 20);
    expect(worker.expectedClaimWaitMs()).toBeUndefined();
    worker.register(() => 'done');
    expect(worker.expectedClaimWaitMs()).toBeUndefined();
    push(1);
    await until(() => claims() === 1, 'one claim');
    expect(worker.expectedClaimWaitMs()).toBeGreaterThanOrEqual(19);
    worker.stop();
    expect(worker.expectedClaimWaitMs()).toBeUndefined();
  });

  it('should scale the recent pace by the queue ahead and the concurrency', async () => {
    const { worker, queue, push, claims } = workerWith(() => 30);
    worker.register(() => 'done', undefined, { concurrency: 2 });
    push(2);
    await until(() => claims() === 2, 'two claims');
    // Nothing queued: about one claim's time.
    const one = worker.expectedClaimWaitMs()!;
    expect(one).toBeGreaterThanOrEqual(29);
    push(5);
    await new Promise((resolve) => setImmediate(resolve));
    // The two runners took two; with three ahead, the next one is claimed in the second round.
    expect(queue.size).toBe(3);
    expect(worker.expectedClaimWaitMs()).toBeCloseTo(2 * one, 5);
    await until(() => claims() === 7, 'all claims');
    worker.stop();
  });

  it('should follow a change of pace within a few claims', async () => {
    let ms = 5;
    const { worker, push, claims } = workerWith(() => ms);
    worker.register(() => 'done');
    push(3);
    await until(() => claims() === 3, 'three quick claims');
    expect(worker.expectedClaimWaitMs()!).toBeLessThanOrEqual(LIMITS.triggerClaimWaitMs);
    ms = 200;
    push(4);
    await until(() => claims() === 7, 'four slow claims', 10_000);
    // Well past the trigger's budget after four (each moves the average a quarter of the way).
    expect(worker.expectedClaimWaitMs()!).toBeGreaterThan(4 * LIMITS.triggerClaimWaitMs);
    worker.stop();
  });
});
