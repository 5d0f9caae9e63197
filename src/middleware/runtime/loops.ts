import { LIMITS } from '../../limits.js';
import type { Logger } from '../../lib/logger.js';

/**
 * Background loops (heartbeat, sweep) that await their work, then sleep, under an AbortSignal:
 * never `setInterval(async ...)`, so one run never overlaps the next and `stop()` can await the
 * loop's end. A failing run is logged at warn with the error and retried with backoff; the loop
 * never dies silently.
 */

/** Options of {@link runLoop}. */
export interface LoopOptions {
  /** Name in log lines (`heartbeat`, `sweep`). */
  name: string;
  /** Time between successful runs, in milliseconds. */
  intervalMs: number;
  /** Run once at once (true) or sleep first (false). */
  immediate: boolean;
  signal: AbortSignal;
  logger: Logger;
  run: () => Promise<void>;
  /** Called with the error and the retry delay after a failed run (activity entries). */
  onError?: (error: unknown, retryMs: number) => void;
}

/**
 * Sleeps `ms`, or less when `signal` aborts; resolves true when it slept the whole time. The
 * timer is cleared on abort, so a stopped loop leaves no timer behind.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The wait before retry `attempt` (1, 2, ...): `LIMITS.loopBackoffInitialMs` doubling, capped
 * at `min(intervalMs, LIMITS.loopBackoffMaxMs)`, so a short interval retries at its own pace.
 */
export function backoffMs(attempt: number, intervalMs: number): number {
  const cap = Math.min(intervalMs, LIMITS.loopBackoffMaxMs);
  return Math.min(LIMITS.loopBackoffInitialMs * 2 ** Math.max(0, attempt - 1), cap);
}

/** Runs `options.run` until the signal aborts; resolves once the loop has ended. */
export async function runLoop(options: LoopOptions): Promise<void> {
  const { signal, logger, name } = options;
  let delay = options.immediate ? 0 : options.intervalMs;
  let failures = 0;
  while (!signal.aborted) {
    if (delay > 0 && !(await sleep(delay, signal))) break;
    try {
      await options.run();
      if (failures > 0) logger.info({ loop: name, failures }, `${name} recovered`);
      failures = 0;
      delay = options.intervalMs;
    } catch (error) {
      if (signal.aborted) break;
      failures += 1;
      delay = backoffMs(failures, options.intervalMs);
      logger.warn({ loop: name, err: error, failures, retryMs: delay }, `${name} failed; retrying`);
      options.onError?.(error, delay);
    }
  }
}
