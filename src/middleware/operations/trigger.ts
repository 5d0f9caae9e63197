import { OperationResolutionError, TransitionConflictError, UnavailableError } from '../../errors.js';
import { assertIri } from '../../iri/validate.js';
import { LIMITS } from '../../limits.js';
import { OperationStatus } from '../../vocab/status.js';
import type { MiddlewareContext } from '../runtime/context.js';
import type { TriggerAnswer } from '../surface/contract.js';
import { readOperationRoute } from './operation-route.js';
import { claimWaiter, type QueueEntry } from '../runtime/work-queue.js';
import type { TraceContext } from '../../tracing/trace-context.js';
import { traceField } from '../../tracing/trace-scope.js';
import { mintCapabilityIri, mintWorkflowIri } from '../../iri/mint.js';
import { describedCapability, type OperationDescription } from './operation-description.js';

/**
 * The receiver's event trigger (`POST /workflows/event_trigger/execute`): enqueues an existing,
 * `queued` Operation addressed to a Capability this Service realizes. A duplicate (already
 * queued or running here) is acknowledged without a query and never enqueued twice.
 */

/**
 * Resolves an Operation for this Service: the entry to enqueue, or the error that says why not.
 * One read query.
 */
export async function resolveEntry(ctx: MiddlewareContext, operationIri: string, serviceIri: string): Promise<QueueEntry> {
  const route = await readOperationRoute(ctx.ogm, operationIri, serviceIri, ctx.graph);
  if (route.statuses.length === 0) {
    throw new OperationResolutionError(`Operation <${operationIri}> does not exist (it has no svc:operationStatus in the graph)`);
  }
  if (route.statuses.length !== 1 || route.statuses[0] !== OperationStatus.QUEUED) {
    throw new TransitionConflictError(
      `Operation <${operationIri}> is not queued: its status is ${route.statuses.map((s) => `'${s}'`).join(', ')}`,
    );
  }
  for (const workflowIri of route.workflowIris) {
    const entry = ctx.registry.workflowByIri(serviceIri, workflowIri);
    if (entry) return { operationIri, workflowIri, workflowName: entry.name, ...(route.deadline && { deadline: route.deadline }) };
  }
  throw new TransitionConflictError(
    `Operation <${operationIri}> is not addressed to a Capability this Service <${serviceIri}> realizes: ` +
      'its cfc:implementsCapability is realized by none of the Workflows registered here',
  );
}

/**
 * The entry of a described Operation, from this instance's own registrations: the Workflow
 * registered under the name its Capability was minted from. No request; the claim's
 * compare-and-set confirms the description against the graph. It carries no deadline of its
 * own: a deadline only the description gives fails the Operation unclaimed by a compare-and-set
 * that requires the whole description, so a forged one fails nothing.
 */
function describedEntry(ctx: MiddlewareContext, operationIri: string, serviceIri: string, described: OperationDescription): QueueEntry {
  const capability = describedCapability(described);
  const resourceIri = ctx.resource('event trigger');
  for (const entry of ctx.registry.workflows.values()) {
    if (mintCapabilityIri(resourceIri, entry.name) !== capability) continue;
    return { operationIri, workflowIri: mintWorkflowIri(serviceIri, entry.name), workflowName: entry.name, described };
  }
  throw new TransitionConflictError(
    `Operation <${operationIri}> is not addressed to a Capability this Service <${serviceIri}> realizes: ` +
      `its described cfc:implementsCapability ${capability === undefined ? 'is not one IRI' : `<${capability}>`} is realized by none of the Workflows registered here`,
  );
}

/** What the event trigger asks of the instance's callback worker. */
export interface TriggerWorker {
  /** Starts claiming what is queued. */
  kick(): void;
  /** True when an Operation enqueued now would be claimed in the same step. */
  takesAtOnce(): boolean;
  /** About how long until an Operation enqueued now is claimed, in ms; undefined when not known. */
  expectedClaimWaitMs(): number | undefined;
}

/**
 * Handles one event trigger. With the requester's description of the Operation, the claim
 * requires exactly what was described instead of reading the Operation; and when the callback
 * worker would take it at once, the trigger answers only after the claim applied, which spares
 * the read: the claim is then the store request that tells whether the receiver can take the
 * Operation (a receiver that cannot reach its store must refuse the trigger, so that the caller
 * reverts). So does a busy worker whose recent pace says the claim comes within
 * `LIMITS.triggerClaimWaitMs`: the Operation is enqueued at once, in its place, and the trigger
 * waits for its claim, reading it only when the claim is later than twice that. Otherwise one
 * read resolves the Operation before it is enqueued.
 * @throws ValueError for a malformed IRI; UnavailableError (503) unless started, or in
 *   watchdog mode; OperationResolutionError (404) when no such Operation exists;
 *   TransitionConflictError (409) when it is not queued or not addressed to this Service, or does
 *   not hold what was described; StoreError when the store did not answer.
 */
export async function handleTrigger(
  ctx: MiddlewareContext,
  operationIri: unknown,
  worker: TriggerWorker,
  described?: OperationDescription,
  trace?: TraceContext,
): Promise<TriggerAnswer> {
  const iri = assertIri(operationIri, 'operation_iri');
  if (ctx.options.mode !== 'resource') throw new UnavailableError(`a ${ctx.options.mode} instance has no event trigger`);
  ctx.requireStarted('event trigger');
  const answer: TriggerAnswer = { operation: iri, status: 'queued' };
  if (ctx.queue.has(iri)) return answer;
  const { serviceIri } = ctx.service('event trigger');
  if (described && worker.takesAtOnce()) {
    const { waiter, claimed } = claimWaiter();
    try {
      if (enqueue(ctx, Object.assign(describedEntry(ctx, iri, serviceIri, described), { claimWaiter: waiter }), worker, trace))
        await claimed;
    } catch (error) {
      throw await whyNotClaimed(ctx, iri, serviceIri, error);
    }
    return answer;
  }
  if (described && (worker.expectedClaimWaitMs() ?? Infinity) <= LIMITS.triggerClaimWaitMs) {
    const { waiter, claimed } = claimWaiter();
    const entry = Object.assign(describedEntry(ctx, iri, serviceIri, described), { claimWaiter: waiter });
    if (!enqueue(ctx, entry, worker, trace)) return answer;
    try {
      if (await claimedWithin(claimed, 2 * LIMITS.triggerClaimWaitMs)) return answer;
    } catch (error) {
      throw await whyNotClaimed(ctx, iri, serviceIri, error);
    }
    // Late: the read tells, as it would have at once. The entry stays in its place; should the
    // Operation not be what was described, its claim's compare-and-set fails and drops it.
    try {
      await resolveEntry(ctx, iri, serviceIri);
    } catch (error) {
      if (await takenHere(ctx, iri, claimed)) return answer;
      throw error;
    }
    return answer;
  }
  const route = await resolveEntry(ctx, iri, serviceIri);
  // Checked again after the read: the instance may have begun stopping, or a concurrent
  // trigger for the same Operation may have enqueued it meanwhile.
  ctx.requireStarted('event trigger');
  const deadline = route.deadline && { deadline: route.deadline };
  enqueue(ctx, described ? Object.assign(describedEntry(ctx, iri, serviceIri, described), deadline) : route, worker, trace);
  return answer;
}

/**
 * Whether this instance took the Operation after all: it no longer waits in the queue, and its
 * claim applied. A read that follows such a claim finds it no longer queued, which is no refusal.
 */
function takenHere(ctx: MiddlewareContext, operationIri: string, claimed: Promise<void>): Promise<boolean> {
  if (ctx.queue.isQueued(operationIri)) return Promise.resolve(false);
  return claimed.then(
    () => true,
    () => false,
  );
}

/**
 * True once `claimed` resolves within `ms`, false when it has not by then (a later rejection is
 * then nobody's to answer: it settles nothing); rejects when the claim failed in time.
 */
function claimedWithin(claimed: Promise<void>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), ms);
    claimed.then(
      () => (clearTimeout(timer), resolve(true)),
      // A ClaimWaiter rejects with an Error only.
      (error: Error) => (clearTimeout(timer), reject(error)),
    );
  });
}

/** Enqueues an entry under the trigger's trace and kicks the worker; false when it was queued already. */
function enqueue(ctx: MiddlewareContext, entry: QueueEntry, worker: TriggerWorker, trace: TraceContext | undefined): boolean {
  if (!ctx.queue.push(trace ? Object.assign({}, entry, { trace }) : entry)) return false;
  ctx.logger.debug({ operation: entry.operationIri, workflow: entry.workflowName, ...traceField(trace) }, 'operation enqueued');
  ctx.record('trigger', { operation: entry.operationIri, workflow: entry.workflowIri });
  worker.kick();
  return true;
}

/**
 * The error a trigger answers when the claim it waited for did not apply. A lost compare-and-set
 * says only that the graph differs from the description: one read then tells whether the
 * Operation is missing, not queued or not addressed here, as the trigger without a claim would.
 */
async function whyNotClaimed(ctx: MiddlewareContext, operationIri: string, serviceIri: string, error: unknown): Promise<unknown> {
  if (!(error instanceof TransitionConflictError)) return error;
  try {
    await resolveEntry(ctx, operationIri, serviceIri);
  } catch (reason) {
    return reason;
  }
  return new TransitionConflictError(
    `Operation <${operationIri}> does not hold what its requester described with the trigger (a class or value differs); it was not claimed`,
  );
}
