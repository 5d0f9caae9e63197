import { OperationCancelledError, OperationDeadlineError, StoreError, TransitionConflictError } from '../../errors.js';
import { DeviceError } from '../../device/errors.js';
import { LIMITS } from '../../limits.js';
import { SHUTDOWN_REASON } from '../constants.js';
import { cancelReason } from '../../registration/cancellation.js';
import { recordTerminalStatus, type RecordTerminalStatusOptions } from '../../registration/operation-status.js';
import { FailureKind, OperationStatus } from '../../vocab/status.js';
import { sm } from '../../vocab/terms.js';
import type { MiddlewareContext } from '../runtime/context.js';
import { backoffMs, sleep } from '../runtime/loops.js';
import type { InFlight, QueueEntry } from '../runtime/work-queue.js';
import { failureSnapshot } from './failure-state.js';
import { errorText } from './operation-data.js';
import { readOperation, type OperationSnapshot } from './operation-watch.js';

/**
 * The terminal writes of a claim: `done` with provenance, or `failed` with the reason, the kind
 * of failure and a snapshot. A store outage delays them (retried until the store answers, or
 * stop() gives up), never drops them. A cancel requested while the work ran wins over its outcome:
 * the `done` (or other failure) write then loses its compare-and-set, and the Operation is
 * failed with kind `cancelled` instead, so a cancel that was acknowledged is never followed by `done`.
 */

/** What a claim ran: its queue entry with the Workflow known, and its in-flight record. */
export interface Flight {
  entry: Required<Pick<QueueEntry, 'operationIri' | 'workflowIri' | 'workflowName'>> & Pick<QueueEntry, 'described'>;
  flight: InFlight;
  /** The `sm:claimedAt` the claim wrote, for the outcome announced to the waiter. */
  claimedAt?: Date;
}

/** The failure kind of an error a claim body (or the claim itself) ended with. */
export function failureKindOf(error: unknown, flight: InFlight): FailureKind {
  if (error instanceof OperationCancelledError || flight.cancel.aborted) return FailureKind.CANCELLED;
  if (flight.abort.aborted) return FailureKind.SHUTDOWN;
  if (error instanceof OperationDeadlineError) return FailureKind.DEADLINE;
  if (error instanceof DeviceError) return FailureKind.DEVICE;
  return FailureKind.ERROR;
}

/**
 * Runs a terminal write until it applies: the device has run the Operation, so a store outage
 * must delay its outcome, not drop it (that would leave it `running` until a restart fails it
 * as orphaned). A StoreError is retried with the loops' backoff until stop() gives up on the
 * flight. An attempt whose answer was lost may have applied: a conflict after a failed attempt
 * that finds the status already written counts as applied.
 */
async function persistTerminal(ctx: MiddlewareContext, flight: InFlight, options: RecordTerminalStatusOptions): Promise<void> {
  const operation = flight.operationIri;
  for (let attempt = 1; ; attempt++) {
    try {
      await recordTerminalStatus(ctx.ogm, options);
      return;
    } catch (error) {
      if (attempt > 1 && error instanceof TransitionConflictError) {
        const found = await readOperation(ctx.ogm, operation, ctx.graph).catch(() => null);
        if (found?.status === options.status) return;
      }
      if (!(error instanceof StoreError) || flight.abort.aborted) throw error;
      const retryMs = backoffMs(attempt, LIMITS.loopBackoffMaxMs);
      ctx.logger.warn(
        { operation, err: error, attempt, retryMs },
        `the '${options.status}' outcome could not be written; retrying until the store answers`,
      );
      if (!(await sleep(retryMs, flight.abort.signal))) throw error;
    }
  }
}

/**
 * Writes `outcome`; when it loses to a cancel requested meanwhile, fails the Operation with kind
 * `cancelled` instead and throws OperationCancelledError. Returns normally when `outcome` applied.
 */
async function writeUnlessCancelled(
  ctx: MiddlewareContext,
  { entry, flight }: Flight,
  outcome: Omit<RecordTerminalStatusOptions, 'operationIri' | 'workflowIri'>,
  note: string,
): Promise<void> {
  const base = { operationIri: entry.operationIri, workflowIri: entry.workflowIri, ...ctx.graph };
  try {
    await persistTerminal(ctx, flight, Object.assign({}, base, outcome));
    return;
  } catch (error) {
    if (!(error instanceof TransitionConflictError)) throw error;
    const found = await readOperation(ctx.ogm, entry.operationIri, ctx.graph);
    if (found?.status !== OperationStatus.RUNNING || found.cancelRequested === undefined) throw error;
    const by = found.cancelledBy ?? 'an unnamed caller';
    const reason = `${cancelReason(by, 'running')}${note}`;
    await persistTerminal(
      ctx,
      flight,
      Object.assign({}, base, { status: OperationStatus.FAILED, result: reason, failureKind: FailureKind.CANCELLED }),
    );
    ctx.record('failed', { operation: entry.operationIri, workflow: entry.workflowIri, kind: FailureKind.CANCELLED, cancelledBy: by });
    throw new OperationCancelledError(`Operation <${entry.operationIri}> ${reason}`, by, { cause: error });
  }
}

/**
 * What a terminal write stored, as {@link readOperation} would read it right after; null when
 * the receiver does not know all of it (an Operation claimed without its description): the
 * waiter then reads the store.
 */
function written(
  { entry, claimedAt }: Flight,
  outcome: Omit<RecordTerminalStatusOptions, 'operationIri' | 'workflowIri'>,
  deadline: Date | undefined,
): OperationSnapshot | null {
  if (entry.described === undefined || claimedAt === undefined || !outcome.timestamp) return null;
  const snapshot: OperationSnapshot = { operationIri: entry.operationIri, status: outcome.status, workflowIri: entry.workflowIri };
  if (outcome.result != null) snapshot.result = outcome.result;
  if (outcome.failureState != null) snapshot.failureState = outcome.failureState;
  snapshot.timestamp = outcome.timestamp;
  if (outcome.failureKind) snapshot.failureKind = outcome.failureKind;
  if (deadline) snapshot.deadline = deadline;
  // The audit fields: the requester's from the description, the claim's and this write's times.
  const requestedBy = entry.described.properties[sm.requestedBy]?.[0]?.value;
  const createdAt = entry.described.properties[sm.createdAt]?.[0]?.value;
  if (requestedBy !== undefined) snapshot.requestedBy = requestedBy;
  if (createdAt !== undefined) snapshot.createdAt = new Date(createdAt);
  snapshot.claimedAt = claimedAt;
  snapshot.finishedAt = outcome.timestamp;
  return snapshot;
}

/**
 * Records `done` with the result and returns what it stored (null when it does not know all of
 * it); a cancel requested meanwhile makes it `failed` (kind `cancelled`) and throws.
 */
export async function recordDone(
  ctx: MiddlewareContext,
  taken: Flight,
  result: string | null,
  deadline?: Date,
): Promise<OperationSnapshot | null> {
  const outcome = { status: OperationStatus.DONE, result, timestamp: new Date() };
  try {
    await writeUnlessCancelled(ctx, taken, outcome, '; the work had finished before the cancel reached it');
    return written(taken, outcome, deadline);
  } catch (error) {
    if (error instanceof TransitionConflictError) {
      const why = taken.flight.abort.aborted ? 'it was failed at shutdown' : 'it was moved meanwhile (swept?)';
      ctx.logger.warn({ operation: taken.entry.operationIri, err: error }, `late terminal write lost its compare-and-set: ${why}`);
    }
    throw error;
  }
}

/**
 * Records `failed` with the reason, the failure kind and the snapshot, and returns what it stored
 * (null when a cancel decided the outcome, or it could not be recorded); a failure to record is
 * logged, never thrown over the body's error. A cancelled flight is recorded with the cancel's
 * reason, and one stop() gave up on with the shutdown reason, whatever error its aborted work ended with.
 */
export async function recordFailure(
  ctx: MiddlewareContext,
  taken: Flight,
  error: unknown,
  resourceIri: string,
  deadline?: Date,
): Promise<OperationSnapshot | null> {
  const { entry, flight } = taken;
  const kind = failureKindOf(error, flight);
  const cancel: unknown = flight.cancel.reason;
  const reason =
    cancel instanceof OperationCancelledError
      ? cancelReason(cancel.cancelledBy ?? 'an unnamed caller', 'running')
      : // stop() fails the flight it gave up on with the same reason: whichever write lands first, it reads alike.
        kind === FailureKind.SHUTDOWN
        ? SHUTDOWN_REASON
        : errorText(error);
  try {
    const failureState = await failureSnapshot(ctx.ogm, resourceIri, ctx.registry.states.values(), ctx.logger);
    const outcome = { status: OperationStatus.FAILED, result: reason, failureState, failureKind: kind, timestamp: new Date() };
    await writeUnlessCancelled(ctx, taken, outcome, '');
    ctx.record('failed', { operation: entry.operationIri, workflow: entry.workflowIri, kind, error: reason });
    // A cancelled Operation holds who cancelled it too: its waiter reads that from the store.
    return kind === FailureKind.CANCELLED ? null : written(taken, outcome, deadline);
  } catch (recordError) {
    if (!(recordError instanceof OperationCancelledError))
      ctx.logger.warn({ operation: entry.operationIri, err: recordError }, 'the failure could not be recorded');
    return null;
  }
}
