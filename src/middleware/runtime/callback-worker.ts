import { OperationQueueEmpty, RuntimeError, StoreError, ValueError } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import type { Claimed, ClaimBody } from '../operations/claim.js';
import type { MiddlewareContext } from './context.js';
import { backoffMs, sleep } from './loops.js';
import type { ClassScope } from '../options.js';
import { withTrace } from '../../tracing/trace-scope.js';

/** A work function registered with `registerCallback`: its return value is the Operation's result. */
export type OperationCallback = (claimed: Claimed) => unknown;

type Claim = (body: ClaimBody, scope?: ClassScope | null) => Promise<unknown>;

/**
 * The background pull-and-run of `registerCallback`: on each enqueue it drains the queue with
 * `claimNext`, one claim at a time, so no Operation runs twice and no two callbacks overlap.
 * Errors never escape: a failed callback was recorded as `failed` by the claim, a store error
 * is retried with backoff, anything else is logged.
 */
export class CallbackWorker {
  private callback: { fn: OperationCallback; scope: ClassScope | null | undefined } | undefined;
  private draining: Promise<void> | undefined;
  private readonly stopped = new AbortController();

  constructor(
    private readonly ctx: MiddlewareContext,
    private readonly claim: Claim,
  ) {
    // Work enqueued by other paths than a trigger (picked up again after a store outage) starts too.
    ctx.queue.onPush(() => this.kick());
  }

  /**
   * Registers the work function; Operations already queued start at once (when started).
   * @throws ValueError when `fn` is not a function; RuntimeError when one is registered already.
   */
  register(fn: OperationCallback, scope?: ClassScope | null): void {
    if (typeof fn !== 'function') throw new ValueError(`registerCallback needs a function, got ${typeof fn}`);
    if (this.callback) throw new RuntimeError('a callback is already registered on this instance');
    this.callback = { fn, scope };
    this.kick();
  }

  /** Starts draining when there is a callback, queued work and no drain running. */
  kick(): void {
    if (this.draining || !this.callback || this.ctx.phase !== 'started' || this.ctx.queue.size === 0) return;
    // Outside any trace: a drain kicked by a traced trigger runs other Operations too, each under its own.
    this.draining = withTrace(undefined, () => this.drain()).finally(() => {
      this.draining = undefined;
      // An enqueue between the drain's last check and here found it still running.
      this.kick();
    });
  }

  /** Stops taking new work (the claim in flight, if any, is left to stop()'s grace period). */
  stop(): void {
    this.stopped.abort();
  }

  private async drain(): Promise<void> {
    const { fn, scope } = this.callback!;
    let storeFailures = 0;
    while (this.ctx.phase === 'started' && this.ctx.queue.size > 0 && !this.stopped.signal.aborted) {
      try {
        await this.claim(async (claimed) => {
          claimed.result = await fn(claimed);
        }, scope);
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
