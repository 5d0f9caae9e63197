import { describe, expect, it } from '@jest/globals';
import { LIMITS } from '../../src/limits.js';
import { backoffMs, runLoop, sleep } from '../../src/middleware/runtime/loops.js';
import { claimWaiter, WorkQueue } from '../../src/middleware/runtime/work-queue.js';
import { logSink } from './support/harness.js';

describe('background loops', () => {
  it('should double the backoff from the initial wait up to min(interval, max)', () => {
    expect(backoffMs(1, 60_000)).toBe(LIMITS.loopBackoffInitialMs);
    expect(backoffMs(2, 60_000)).toBe(LIMITS.loopBackoffInitialMs * 2);
    expect(backoffMs(30, 60_000)).toBe(LIMITS.loopBackoffMaxMs);
    expect(backoffMs(1, 100)).toBe(100);
    expect(backoffMs(5, 1_500)).toBe(1_500);
  });

  it('should await each run before sleeping, retry failures, and end when aborted', async () => {
    const sink = logSink();
    const abort = new AbortController();
    const runs: number[] = [];
    let active = 0;
    let overlapped = false;
    const errors: unknown[] = [];
    const loop = runLoop({
      name: 'test',
      intervalMs: 10,
      immediate: true,
      signal: abort.signal,
      logger: sink.logger,
      onError: (e) => errors.push(e),
      run: async () => {
        overlapped ||= active > 0;
        active += 1;
        runs.push(Date.now());
        await sleep(15);
        active -= 1;
        if (runs.length === 2) throw new Error('store down');
        if (runs.length === 4) abort.abort();
      },
    });
    await loop;
    expect(runs).toHaveLength(4);
    expect(overlapped).toBe(false);
    expect(errors).toHaveLength(1);
    const warn = sink.lines().find((l) => l.level === 40)!;
    expect(warn).toMatchObject({ loop: 'test', failures: 1, retryMs: 10, msg: 'test failed; retrying' });
    expect(sink.lines().some((l) => l.msg === 'test recovered')).toBe(true);
  });

  it('should cut a sleep short on abort', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const slept = sleep(10_000, abort.signal);
    abort.abort();
    expect(await slept).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('the work queue', () => {
  it('should be FIFO, refuse duplicates while queued or in flight, and put a head back', () => {
    const q = new WorkQueue();
    expect(q.push({ operationIri: 'urn:op:1' })).toBe(true);
    expect(q.push({ operationIri: 'urn:op:2' })).toBe(true);
    expect(q.push({ operationIri: 'urn:op:1' })).toBe(false);
    const first = q.take()!;
    expect(first.entry.operationIri).toBe('urn:op:1');
    expect(q.has('urn:op:1')).toBe(true);
    expect(q.push({ operationIri: 'urn:op:1' })).toBe(false);
    first.finish();
    expect(q.has('urn:op:1')).toBe(false);
    const second = q.take()!;
    second.finish();
    q.unshift(second.entry);
    expect(q.snapshot()).toEqual(['urn:op:2']);
    q.clear(new Error('stopping'));
    expect(q.take()).toBeUndefined();
  });

  it('should tell a waiting trigger why its entry was dropped unclaimed, once', async () => {
    const q = new WorkQueue();
    const { waiter, claimed } = claimWaiter();
    q.push({ operationIri: 'urn:op:1', claimWaiter: waiter });
    q.clear(new Error('stopping'));
    waiter.settle();
    await expect(claimed).rejects.toThrow('stopping');
  });

  it("should abort an in-flight Operation's work by the first of its shutdown and cancel, with that reason", () => {
    const q = new WorkQueue();
    q.push({ operationIri: 'urn:op:1' });
    q.push({ operationIri: 'urn:op:2' });
    const { flight: first } = q.take()!;
    const earlySignal = first.cancel.signal;
    const cancelled = new Error('cancelled by a test');
    first.cancel.abort(cancelled);
    first.abort.abort(new Error('shutdown'));
    first.cancel.abort(new Error('again'));
    expect([first.signal.aborted, first.signal.reason]).toEqual([true, cancelled]);
    expect([first.cancel.aborted, first.cancel.reason, earlySignal.reason]).toEqual([true, cancelled, cancelled]);
    expect(first.cancel.signal.reason).toBe(cancelled); // a signal asked for after the abort
    expect(first.abort.aborted).toBe(true);

    const { flight: second } = q.take()!;
    expect([second.signal.aborted, second.abort.aborted, second.cancel.aborted]).toEqual([false, false, false]);
    second.abort.abort();
    expect(second.signal.reason).toBeInstanceOf(DOMException);
    expect((second.signal.reason as DOMException).name).toBe('AbortError');
    expect(second.abort.signal.reason).toBe(second.signal.reason);
    expect(second.cancel.aborted).toBe(false);
  });
});
