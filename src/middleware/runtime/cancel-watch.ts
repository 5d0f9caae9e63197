import { OperationCancelledError } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import { cancelRequestsQuery } from '../../queries/operations.js';
import { namedNode } from '../../store/terms.js';
import type { MiddlewareContext } from './context.js';
import type { InFlight } from './work-queue.js';

/**
 * The receiver's side of cancelling a running Operation. A cancel is recorded in the graph
 * (`sm:cancelRequested`, by compare-and-set), not sent to the receiver: the caller may not reach
 * the receiver, and the graph is what both sides read anyway. The receiver reads it for the
 * Operations it is running, on an interval (`LIMITS.cancelWatchMs`, one query, none while
 * nothing has run for a full interval), and aborts their `claimed.signal`; the claim then fails the Operation with
 * failure kind `cancelled`. While the receiver's store link is down it cannot learn of the
 * cancel, nor write an outcome: a `done` written later loses to the cancel all the same.
 */

/**
 * Aborts the work of the Operation `flight` runs, for a cancel by `by`; true when this call
 * aborted it (false when it was aborted already).
 */
export function cancelFlight(ctx: MiddlewareContext, flight: InFlight, by: string): boolean {
  if (flight.cancel.aborted) return false;
  const error = new OperationCancelledError(`Operation <${flight.operationIri}> was cancelled by ${by} while it ran`, by);
  flight.cancel.abort(error);
  ctx.logger.info({ operation: flight.operationIri, cancelledBy: by }, 'running operation cancelled: its work is being stopped');
  ctx.record('cancel', { operation: flight.operationIri, cancelledBy: by, status: 'running' });
  return true;
}

/** One look at the graph for cancels of this instance's running Operations; aborts the ones found. */
export async function watchCancels(ctx: MiddlewareContext): Promise<void> {
  // Work that started less than one interval ago is not asked about yet: most Operations finish
  // sooner, and a quick one then costs no request beyond its own writes.
  const startedBefore = performance.now() - LIMITS.cancelWatchMs;
  const running = ctx.queue
    .flights()
    .filter((f) => f.running && f.runningSince !== undefined && f.runningSince <= startedBefore && !f.cancel.aborted);
  if (running.length === 0) return;
  const rows = await ctx.ogm.db.select(
    cancelRequestsQuery(
      ctx.graphIri,
      running.map((f) => namedNode(f.operationIri)),
    ),
  );
  for (const row of rows) {
    const flight = running.find((f) => f.operationIri === row.op?.value);
    if (flight) cancelFlight(ctx, flight, row.cb?.value ?? 'an unnamed caller');
  }
}
