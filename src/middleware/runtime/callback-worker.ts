import { performance } from 'node:perf_hooks';
import { OperationQueueEmpty, RuntimeError, StoreError, ValueError } from '../../errors.js';
import { preview } from '../../iri/validate.js';
import { LIMITS } from '../../limits.js';
import type { Claimed, ClaimBody } from '../operations/claim.js';
import type { MiddlewareContext } from './context.js';
import { backoffMs, sleep } from './loops.js';
import type { ClassScope } from '../options.js';
import { callInTrace, currentTrace, traceAware, withTrace } from '../../tracing/trace-scope.js';

/** A work function registered with `registerCallback`: its return value is the Operation's result. */
export type OperationCallback = (claimed: Claimed) => unknown;

type Claim = (body: ClaimBody, scope: ClassScope | null | undefined, onWritingDone: () => void) => Promise<unknown>;

/** What a claim's race says when its callback succeeded before the claim ended. */
const WORK_DONE = Symbol('work done');

/** Options of `registerCallback`. */
export interface CallbackOptions {
  /**
   * Operations the callback may run at once (an integer from 1 to `LIMITS.maxCallbackConcurrency`);
   * default 1, one after the other. A callback that says more must be safe to run concurrently
   * (its device takes several calls at once): each Operation still runs exactly once, its claim,
   * run and terminal write stay in that order, and Operations are started in the order they were
   * enqueued, but they may finish in another. Either way, a callback that returned frees its
   * place at once: the next Operation may be claimed and started while the `done` is written.
   */
  concurrency?: number | null;
}

/**
 * The background pull-and-run of `registerCallback`: on each enqueue it drains the queue with
 * `claimNext`, one claim at a time per runner, with as many runners as the callback's
 * concurrency (one by default, so no two callbacks overlap). The queue hands each Operation to
 * one runner only, so no Operation runs twice. A runner whose callback succeeded claims the next
 * Operation while the `done` is written (the device is free; the write keeps its in-flight
 * record, which stop() waits for); a failure is recorded before the next claim, as its snapshot
 * reads the device's state. Errors never escape: a failed callback was recorded as `failed` by
 * the claim, a store error is retried with backoff, anything else is logged.
 */
export class CallbackWorker {
  private callback: { fn: OperationCallback; scope: ClassScope | null | undefined; concurrency: number } | undefined;
  private readonly runners = new Set<Promise<void>>();
  private readonly stopped = new AbortController();
  /** Settles once the callback of the last Operation taken has started, or its claim ended. */
  private lastStart: Promise<void> = Promise.resolve();
  /** How long a claim has recently kept a runner, in ms (a moving average); unknown before the first. */
  private claimMs: number | undefined;

  constructor(
    private readonly ctx: MiddlewareContext,
    private readonly claim: Claim,
  ) {
    // Work enqueued by other paths than a trigger (picked up again after a store outage) starts too.
    ctx.queue.onPush(() => this.kick());
  }

  /**
   * Registers the work function; Operations already queued start at once (when started).
   * @throws ValueError when `fn` is not a function or the concurrency is not an integer in range;
   *   RuntimeError when one is registered already.
   */
  register(fn: OperationCallback, scope?: ClassScope | null, options?: CallbackOptions | null): void {
    if (typeof fn !== 'function') throw new ValueError(`registerCallback needs a function, got ${typeof fn}`);
    const concurrency = options?.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > LIMITS.maxCallbackConcurrency)
      throw new ValueError(`concurrency must be an integer from 1 to ${LIMITS.maxCallbackConcurrency}, got ${preview(concurrency)}`);
    if (this.callback) throw new RuntimeError('a callback is already registered on this instance');
    this.callback = { fn, scope, concurrency };
    this.kick();
  }

  /** Starts runners while there is a callback, queued work and room for one more. */
  kick(): void {
    while (this.callback && this.runners.size < this.callback.concurrency && this.ctx.phase === 'started' && this.ctx.queue.size > 0) {
      // Outside any trace: a drain kicked by a traced trigger runs other Operations too, each under its own.
      const runner: Promise<void> = withTrace(undefined, () => this.drain()).finally(() => {
        this.runners.delete(runner);
        // An enqueue between the runner's last check and here found it still running.
        this.kick();
      });
      this.runners.add(runner);
    }
  }

  /**
   * True when an Operation enqueued now would be claimed at once, in the enqueuing step: a
   * callback is registered with a runner free, and nothing is queued before it.
   */
  takesAtOnce(): boolean {
    return (
      this.callback !== undefined &&
      this.runners.size < this.callback.concurrency &&
      this.ctx.phase === 'started' &&
      this.ctx.queue.size === 0 &&
      !this.stopped.signal.aborted
    );
  }

  /**
   * About how long until an Operation enqueued now is claimed, in ms, from the recent pace of the
   * runners: undefined when no callback would claim it, or when no claim has been timed yet.
   */
  expectedClaimWaitMs(): number | undefined {
    if (this.callback === undefined || this.ctx.phase !== 'started' || this.stopped.signal.aborted) return undefined;
    if (this.claimMs === undefined) return undefined;
    return Math.ceil((this.ctx.queue.size + 1) / this.callback.concurrency) * this.claimMs;
  }

  /** Stops taking new work (the claims in flight, if any, are left to stop()'s grace period). */
  stop(): void {
    this.stopped.abort();
  }

  /** Folds one claim's duration into the moving average (weight 1/4, so a change of pace shows within a few claims). */
  private timeClaim(ms: number): void {
    this.claimMs = this.claimMs === undefined ? ms : this.claimMs + (ms - this.claimMs) / 4;
  }

  private async drain(): Promise<void> {
    const { fn, scope } = this.callback!;
    let storeFailures = 0;
    // The first claim takes its Operation before this returns, so kick() sees the queue shrink.
    while (this.ctx.phase === 'started' && this.ctx.queue.size > 0 && !this.stopped.signal.aborted) {
      // Claims taken in queue order may win their compare-and-set in another: each callback waits
      // until the one taken before it has started (or its claim ended), so they start in queue order.
      const before = this.lastStart;
      let started!: () => void;
      this.lastStart = new Promise<void>((resolve) => (started = resolve));
      try {
        const body = traceAware(async (claimed: Claimed) => {
          const trace = currentTrace();
          await before;
          started();
          claimed.result = await callInTrace(trace, fn, claimed);
        });
        const claimStarted = performance.now();
        const timed = (): void => this.timeClaim(performance.now() - claimStarted);
        let workDone!: () => void;
        const worked = new Promise<typeof WORK_DONE>((resolve) => (workDone = () => resolve(WORK_DONE)));
        const claim = this.claim(body, scope, workDone).finally(started);
        const first = await Promise.race([claim, worked]).then(
          (value) => (timed(), value),
          (error: unknown) => {
            if (!(error instanceof OperationQueueEmpty)) timed();
            throw error;
          },
        );
        // What the `done` write ends with was logged by it (a lost compare-and-set) or is a shutdown's.
        if (first === WORK_DONE)
          claim.catch((error: unknown) => this.ctx.logger.debug({ err: error }, 'callback worker: the done write ended with an error'));
        storeFailures = 0;
      } catch (error) {
        if (error instanceof OperationQueueEmpty) break;
        if (error instanceof StoreError) {
          storeFailures += 1;
          const wait = backoffMs(storeFailures, LIMITS.loopBackoffMaxMs);
          this.ctx.logger.warn({ err: error, retryMs: wait }, 'callback worker: store error while claiming; retrying');
          await sleep(wait, this.stopped.signal);
        } else {
          this.ctx.logger.debug({ err: error }, 'callback worker: claim ended with an error (recorded)');
        }
      }
    }
  }
}
