import { OperationResolutionError, TransitionConflictError, UnavailableError } from '../../errors.js';
import { assertIri } from '../../iri/validate.js';
import { OperationStatus } from '../../vocab/status.js';
import type { MiddlewareContext } from '../runtime/context.js';
import type { TriggerAnswer } from '../surface/contract.js';
import { readOperationRoute } from './operation-route.js';
import type { QueueEntry } from '../runtime/work-queue.js';
import { currentTrace } from '../../tracing/trace-scope.js';
import { mintCapabilityIri, mintWorkflowIri } from '../../iri/mint.js';
import { describedCapability, describedDeadline, type OperationDescription } from './operation-description.js';

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
 * compare-and-set confirms the description against the graph.
 */
function describedEntry(ctx: MiddlewareContext, operationIri: string, serviceIri: string, described: OperationDescription): QueueEntry {
  const capability = describedCapability(described);
  const resourceIri = ctx.resource('event trigger');
  for (const entry of ctx.registry.workflows.values()) {
    if (mintCapabilityIri(resourceIri, entry.name) !== capability) continue;
    const deadline = describedDeadline(described);
    return {
      operationIri,
      workflowIri: mintWorkflowIri(serviceIri, entry.name),
      workflowName: entry.name,
      described,
      ...(deadline && { deadline }),
    };
  }
  throw new TransitionConflictError(
    `Operation <${operationIri}> is not addressed to a Capability this Service <${serviceIri}> realizes: ` +
      `its described cfc:implementsCapability ${capability === undefined ? 'is not one IRI' : `<${capability}>`} is realized by none of the Workflows registered here`,
  );
}

/**
 * Handles one event trigger; `onEnqueue` runs after an Operation was enqueued (it kicks the
 * callback worker), after one read; with the requester's description of the Operation, the
 * claim then requires exactly what was described instead of reading the Operation again.
 * @throws ValueError for a malformed IRI; UnavailableError (503) unless started, or in
 *   watchdog mode; OperationResolutionError (404) when no such Operation exists;
 *   TransitionConflictError (409) when it is not queued or not addressed to this Service.
 */
export async function handleTrigger(
  ctx: MiddlewareContext,
  operationIri: unknown,
  onEnqueue: () => void,
  described?: OperationDescription,
): Promise<TriggerAnswer> {
  const iri = assertIri(operationIri, 'operation_iri');
  if (ctx.options.mode !== 'resource') throw new UnavailableError(`a ${ctx.options.mode} instance has no event trigger`);
  ctx.requireStarted('event trigger');
  const answer: TriggerAnswer = { operation: iri, status: 'queued' };
  if (ctx.queue.has(iri)) return answer;
  const { serviceIri } = ctx.service('event trigger');
  // The read stays even with a description: a receiver that cannot reach its store must refuse
  // the trigger (the caller then reverts), not take work it cannot claim. The description still
  // spares the claim its read of the Operation.
  const route = await resolveEntry(ctx, iri, serviceIri);
  const entry = described ? { ...describedEntry(ctx, iri, serviceIri, described), deadline: route.deadline } : route;
  // Checked again after the read: the instance may have begun stopping, or a concurrent
  // trigger for the same Operation may have enqueued it meanwhile.
  ctx.requireStarted('event trigger');
  const trace = currentTrace();
  if (!ctx.queue.push(trace ? { ...entry, trace } : entry)) return answer;
  ctx.logger.debug({ operation: iri, workflow: entry.workflowName }, 'operation enqueued');
  ctx.record('trigger', { operation: iri, workflow: entry.workflowIri });
  onEnqueue();
  return answer;
}
