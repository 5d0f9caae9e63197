import {
  OperationDeadlineError,
  OperationQueueEmpty,
  OperationResolutionError,
  SemanticMiddlewareError,
  StoreError,
  TransitionConflictError,
  UnavailableError,
  ValueError,
} from '../../errors.js';
import type { Individual, PropertyInputs } from '../../ogm/ogm.js';
import { DeviceError } from '../../device/errors.js';
import { withoutStack } from '../../http/error-handler.js';
import type { Logger } from '../../lib/logger.js';
import { markOperationFailed, setOperationStatus } from '../../registration/operation-status.js';
import { FailureKind, OperationStatus } from '../../vocab/status.js';
import { sm } from '../../vocab/terms.js';
import { SHUTDOWN_REASON } from '../constants.js';
import type { MiddlewareContext } from '../runtime/context.js';
import { deadlinePassed, deadlineReason } from './deadline.js';
import { operationData, resultText, type DataValue } from './operation-data.js';
import { readOperation } from './operation-watch.js';
import type { ClassScope } from '../options.js';
import { recordDone, recordFailure } from './terminal-write.js';
import { resolveEntry } from './trigger.js';
import type { InFlight, QueueEntry } from '../runtime/work-queue.js';
import { childSpan, type TraceContext } from '../../tracing/trace-context.js';
import { callInTrace, traceLogger } from '../../tracing/trace-scope.js';
import { timedSpan } from '../../tracing/span-export.js';
import { claimedIndividual, claimExpectations, describedDeadline } from './operation-description.js';
import type { Outcome } from './outcome-channel.js';

/**
 * `claimNext`: the receiver side of an Operation's lifecycle. Pops the instance's FIFO queue,
 * moves the Operation to `running` (compare-and-set), re-fetches it under the fetch scope, runs
 * the body, and records `done` with provenance or `failed` with the error, its failure kind and
 * a failure snapshot (terminal-write.ts). A lifecycle is create + claim + terminal write; the
 * Workflow is known from the queue entry, so no extra resolution query is made. An Operation
 * whose `sm:deadline` has passed is failed (kind `deadline`) instead of run: before the claim
 * when its deadline is known from the trigger's read or from the requester's description (then
 * only if the graph holds that description), and after the claim against the value fetched
 * from the graph, right before the body would start.
 */

/** What the body of `claimNext` receives. */
export interface Claimed {
  readonly operationIri: string;
  /** The Operation as `ogm.fetch` read it, with the chains of the fetch scope followed. */
  readonly operation: Individual;
  /** The Operation's data fields as plain values (`svc:` fields by local name, others by IRI). */
  readonly data: Readonly<Record<string, DataValue | DataValue[]>>;
  /** The Workflow of this Service that runs it (written as `svc:executedByWorkflow`). */
  readonly workflowIri: string;
  /** Its registered name. */
  readonly workflowName: string;
  /**
   * Aborted when a caller cancels this Operation while it runs (the reason is an
   * OperationCancelledError; pass it on to the device call, whose abort stops it), or when
   * `stop()` gives up waiting for it. Either way it is failed, never `done`.
   */
  readonly signal: AbortSignal;
  /** The result to store as `svc:executionResult`; when left undefined, the body's return value is used. */
  result: unknown;
}

/** The body of `claimNext`. */
export type ClaimBody = (claimed: Claimed) => unknown;

/** A queue entry whose Workflow is known. */
type ResolvedEntry = QueueEntry & Required<Pick<QueueEntry, 'workflowIri' | 'workflowName'>>;

interface Taken {
  entry: ResolvedEntry;
  flight: InFlight;
  finish: () => void;
  /** The `sm:claimedAt` the claim wrote. */
  claimedAt: Date;
}

/**
 * The reason written when a claim's answer was lost and the Operation was found `running`
 * afterwards: the claim may have been this instance's, so the Operation is failed, never run
 * (nor run twice); a planner decides on re-dispatch.
 */
export const CLAIM_UNKNOWN_REASON = 'claim outcome unknown: the store failed while the operation was being claimed; not run';

/**
 * Pops entries until one is moved to `running`. An entry that lost (no longer queued) or cannot
 * be resolved is dropped with a log line and the next one is tried; a StoreError puts the entry
 * back at the head and is rethrown. A claim whose answer was lost may have applied: if its retry
 * finds the Operation `running`, the Operation is failed with {@link CLAIM_UNKNOWN_REASON}
 * instead of staying `running` with nobody to finish it.
 */
async function take(ctx: MiddlewareContext, serviceIri: string): Promise<Taken> {
  for (;;) {
    const taken = ctx.queue.take();
    if (!taken) throw new OperationQueueEmpty(`no queued Operation in this instance's queue (Service <${serviceIri}>)`);
    const { entry, flight, finish } = taken;
    let resolved: ResolvedEntry | undefined;
    try {
      resolved =
        entry.workflowIri && entry.workflowName
          ? (entry as ResolvedEntry)
          : ((await resolveEntry(ctx, entry.operationIri, serviceIri)) as ResolvedEntry);
      const { described } = resolved;
      const deadline = resolved.deadline ?? (described && describedDeadline(described));
      // A deadline only the description gives fails the Operation only if the graph holds that description.
      const guard = resolved.deadline === undefined && described ? claimExpectations(described) : undefined;
      if (deadlinePassed(deadline)) await failPastDeadline(ctx, entry.operationIri, deadline, guard);
      const claimedAt = new Date();
      // Told what the Operation holds, the claim requires exactly that instead of reading it.
      if (described) ctx.ogm.rememberTypes(entry.operationIri, described.types, ctx.graphIri);
      const expect = described && claimExpectations(described);
      await setOperationStatus(ctx.ogm, {
        operationIri: entry.operationIri,
        status: OperationStatus.RUNNING,
        claimedAt,
        expect,
        ...ctx.graph,
      });
      flight.running = true;
      flight.runningSince = performance.now();
      entry.claimWaiter?.settle();
      if (flight.abort.aborted) await giveUp(ctx, entry.operationIri);
      return { entry: resolved, flight, finish, claimedAt };
    } catch (error) {
      finish();
      ctx.outcomes.settle(entry.operationIri, null);
      // A past deadline was recorded as the Operation's failure: the receiver has taken it.
      if (error instanceof OperationDeadlineError) entry.claimWaiter?.settle();
      else entry.claimWaiter?.settle(error instanceof Error ? error : new Error(String(error)));
      if (error instanceof StoreError) {
        // Retried whether or not the trigger's caller reverts: a retry then finds no queued Operation.
        ctx.queue.unshift(Object.assign({}, resolved ?? entry, { claimWaiter: undefined }, resolved && { claimSent: true }));
        throw error;
      }
      if (error instanceof UnavailableError) throw error;
      if (error instanceof OperationDeadlineError) continue;
      if (entry.claimSent && error instanceof TransitionConflictError) await failUnknownClaim(ctx, entry.operationIri);
      const level = error instanceof TransitionConflictError || error instanceof OperationResolutionError ? 'info' : 'error';
      ctx.logger[level]({ operation: entry.operationIri, err: error }, 'queue entry dropped: it cannot be claimed');
    }
  }
}

/** Fails an Operation whose lost claim may have applied, if it is `running` (a finished one stays as it is). */
async function failUnknownClaim(ctx: MiddlewareContext, operationIri: string): Promise<void> {
  const found = await readOperation(ctx.ogm, operationIri, ctx.graph).catch(() => null);
  if (found?.status !== OperationStatus.RUNNING) return;
  try {
    await markOperationFailed(ctx.ogm, operationIri, CLAIM_UNKNOWN_REASON, { kind: FailureKind.ERROR, ...ctx.graph });
    ctx.logger.warn({ operation: operationIri }, 'operation failed: its claim may have applied although the store did not answer; not run');
    ctx.record('failed', { operation: operationIri, reason: CLAIM_UNKNOWN_REASON });
  } catch (error) {
    ctx.logger.warn({ operation: operationIri, err: error }, 'an Operation whose claim may have applied could not be failed');
  }
}

/** Fails a queued Operation whose deadline passed before it was claimed, and drops it (OperationDeadlineError). */
async function failPastDeadline(
  ctx: MiddlewareContext,
  operationIri: string,
  deadline: Date,
  expectQueued: PropertyInputs | undefined,
): Promise<never> {
  const reason = deadlineReason(deadline);
  await markOperationFailed(ctx.ogm, operationIri, reason, { kind: FailureKind.DEADLINE, expectQueued, ...ctx.graph });
  ctx.logger.warn(
    { operation: operationIri, deadline: deadline.toISOString() },
    'operation failed: its deadline passed before it started; not run',
  );
  ctx.record('failed', { operation: operationIri, kind: FailureKind.DEADLINE, reason });
  throw new OperationDeadlineError(`Operation <${operationIri}>: ${reason}`);
}

/** A claim that won its compare-and-set after stop() gave up on it: fail it and stop there. */
async function giveUp(ctx: MiddlewareContext, operationIri: string): Promise<never> {
  await markOperationFailed(ctx.ogm, operationIri, SHUTDOWN_REASON, { kind: FailureKind.SHUTDOWN, ...ctx.graph }).catch((e: unknown) =>
    ctx.logger.warn({ operation: operationIri, err: e }, 'could not fail an Operation claimed during shutdown'),
  );
  throw new UnavailableError(`claimNext: the middleware stopped while Operation <${operationIri}> was being claimed; it was failed`);
}

/**
 * Claims the next queued Operation and runs `body` on it; see {@link Claimed}. Returns the
 * result recorded (`claimed.result`, else the body's return value). `onWritingDone` is called
 * when the body has succeeded and its `done` is about to be written (the callback worker frees
 * its runner then).
 * @throws OperationQueueEmpty when nothing claimable is queued.
 * @throws the body's error, after recording `failed` with the error message and a failure snapshot.
 * @throws TransitionConflictError when the terminal write lost its compare-and-set (the
 *   Operation was failed meanwhile, by a sweep or by a shutdown that gave up waiting).
 * @throws StoreError when the store fails during the claim (the entry stays at the head).
 */
export async function claimNext(
  ctx: MiddlewareContext,
  body: ClaimBody,
  scope?: ClassScope | null,
  onWritingDone?: () => void,
): Promise<unknown> {
  const resourceIri = ctx.resource('claimNext');
  if (typeof body !== 'function') throw new ValueError(`claimNext needs a body function, got ${typeof body}`);
  ctx.requireStarted('claimNext');
  const { serviceIri } = ctx.service('claimNext');
  const taken = await take(ctx, serviceIri);
  // The work continues the trace of the trigger that enqueued it, as a span of its own.
  const { trace: parent } = taken.entry;
  const trace = parent && childSpan(parent);
  const settled: { outcome: Outcome } = { outcome: null };
  try {
    const span = {
      name: 'operation',
      kind: 'consumer' as const,
      trace,
      attributes: { 'sm.operation': taken.entry.operationIri, 'sm.workflow': taken.entry.workflowName },
    };
    const claim = { taken, body, scope: scope ?? ctx.options.classScope, resourceIri, settled, trace, onWritingDone };
    return await timedSpan(span, () => run(ctx, claim));
  } finally {
    taken.finish();
    ctx.outcomes.settle(taken.entry.operationIri, settled.outcome);
  }
}

/** What one claim runs with. */
interface Run {
  taken: Taken;
  body: ClaimBody;
  scope: ClassScope | undefined;
  resourceIri: string;
  settled: { outcome: Outcome };
  trace: TraceContext | undefined;
  onWritingDone: (() => void) | undefined;
}

async function run(ctx: MiddlewareContext, { taken, body, scope, resourceIri, settled, trace, onWritingDone }: Run): Promise<unknown> {
  const { entry, flight } = taken;
  const log = traceLogger(ctx.logger, trace, { operation: entry.operationIri, workflow: entry.workflowName });
  ctx.record('claim', { operation: entry.operationIri, workflow: entry.workflowIri });
  let result: string | undefined;
  let claimed: Claimed | undefined;
  let deadline: Date | undefined;
  try {
    const operation = await claimedOperation(ctx, taken, scope);
    deadline = deadlineOf(operation);
    if (deadlinePassed(deadline)) throw new OperationDeadlineError(`Operation <${entry.operationIri}>: ${deadlineReason(deadline)}`);
    if (flight.cancel.aborted) throw flight.cancel.reason;
    claimed = Object.assign({}, entry, { operation, data: operationData(operation), signal: flight.signal, result: undefined });
    const returned: unknown = await callInTrace(trace, body, claimed);
    if (claimed.result === undefined) claimed.result = returned;
    result = resultText(claimed.result);
  } catch (error) {
    logFailure(log, error);
    settled.outcome = await recordFailure(ctx, taken, error, resourceIri, deadline);
    throw error;
  }
  onWritingDone?.();
  settled.outcome = await recordDone(ctx, taken, result ?? null, deadline);
  log.debug('operation done');
  ctx.record('done', { operation: entry.operationIri, workflow: entry.workflowIri });
  return claimed.result;
}

/**
 * The Operation as the claim left it: built from what the trigger described (the claim's
 * compare-and-set confirmed the graph holds exactly that), else read under the fetch scope (a
 * scope that follows chains always reads).
 */
async function claimedOperation(ctx: MiddlewareContext, { entry, claimedAt }: Taken, scope: ClassScope | undefined): Promise<Individual> {
  const follow = scope?.follow ?? [];
  if (entry.described && follow.length === 0) return claimedIndividual(entry.operationIri, entry.described, claimedAt);
  const operation = await ctx.ogm.fetch(entry.operationIri, { graph: ctx.graphIri, follow });
  if (!operation) throw new OperationResolutionError(`Operation <${entry.operationIri}> vanished from the graph after it was claimed`);
  return operation;
}

/**
 * A failed Operation in the log: a device failure (unreachable, timed out, an error answer) is
 * the plant's expected trouble, at warn without a stack; the product's other errors at warn; any
 * other error is a bug in the work function, at error with its stack.
 */
function logFailure(log: Logger, error: unknown): void {
  if (error instanceof DeviceError) log.warn({ err: withoutStack(error) }, 'operation failed');
  else if (error instanceof SemanticMiddlewareError) log.warn({ err: error }, 'operation failed');
  else log.error({ err: error }, 'operation failed');
}

/** The Operation's `sm:deadline` as fetched, if it has one. */
function deadlineOf(operation: Individual): Date | undefined {
  const value = operation.properties[sm.deadline]?.[0]?.value;
  return value === undefined ? undefined : new Date(value);
}
