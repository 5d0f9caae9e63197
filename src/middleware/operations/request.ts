import { TriggerDeliveryError, ValueError } from '../../errors.js';
import { mintOperationIri } from '../../iri/mint.js';
import { assertIri, preview } from '../../iri/validate.js';
import type { DispatchTarget, ResolveDispatchTargetOptions } from '../../registration/dispatch.js';
import type { Logger } from '../../lib/logger.js';
import { libraryCaller } from '../../lib/caller-identity.js';
import { assertCaller } from '../../registration/cancellation.js';
import { createOperation, revertOperation, type OperationData } from '../../registration/operations.js';
import type { MiddlewareContext } from '../runtime/context.js';
import { outgoingTokenFor } from '../surface/security-options.js';
import { parseDeadline } from './deadline.js';
import { errorText } from './operation-data.js';
import { declinedByReceiver, deliverTrigger } from './trigger-delivery.js';
import { sameTarget, type FoundTarget } from './dispatch-targets.js';
import { describeWritten } from './operation-description.js';
import { childSpan, formatTraceparent, newTrace, parseTraceparent, type TraceContext } from '../../tracing/trace-context.js';
import { callInTrace, currentTrace, traceLogger } from '../../tracing/trace-scope.js';
import { exportingSpans, timedSpan } from '../../tracing/span-export.js';

/**
 * `request`: the caller side of dispatch. Discovery first (what it found for the Capability class
 * is reused for `discoveryCacheMs`), then the caller's body fills the draft, then ONE create
 * writes the Operation and the receiver's event trigger is rung with what
 * was written (so the receiver claims it without reading it); if the trigger is not delivered the
 * Operation is reverted (nothing is left behind). Only a caller that will wait asks for the
 * outcome channel (its wait is then told the outcome instead of reading the store): keeping a
 * response open per Operation costs both sides CPU that nobody uses when nobody waits.
 */

/** Options of `mw.request`. */
export interface RequestOptions {
  /** Capability class to dispatch to (subclasses count). */
  capabilityClass: string;
  /** `cfc:Operation` or a subclass: the Operation's class. */
  operationClass: string;
  /** The Operation's IRI; default a fresh `mintOperationIri(operationClass)`. */
  operationIri?: string | null;
  /** Only a Service of this resource is chosen. */
  targetResource?: string | null;
  /**
   * `sm:deadline`: no receiver starts the Operation after this instant (a Date, or a date-time
   * text with its zone); one claimed later is failed with failure kind `deadline`. None when omitted.
   */
  deadline?: Date | string | null;
  /**
   * W3C `traceparent` of the caller's trace: the request, the receiver's run and its device call
   * continue it (the same trace id on their log lines and outgoing headers). Default: the trace
   * current in this process (a traced HTTP request), else a new trace; an invalid value is ignored.
   */
  traceparent?: string | null;
  /**
   * Who requests it, recorded as `sm:requestedBy`; default this instance's Service IRI, else its
   * resource IRI, else `library` (see `src/lib/caller-identity.ts`).
   */
  requestedBy?: string | null;
  /**
   * The caller will wait for the outcome (`waitForOperation`): the receiver is asked to announce it
   * on the trigger's response, so the wait reads nothing from the store. Default false: a plain
   * trigger, answered at once; a later wait then reads the store.
   */
  wait?: boolean | null;
}

/** The draft the body of `request` fills in. */
export interface OperationDraft {
  readonly operationIri: string;
  /** Domain fields written with the Operation: property IRIs or bare `svc:` local names -> values. */
  data: Record<string, OperationData[string]>;
  /**
   * Where the Operation goes, as discovery chose it (or remembered it, for up to
   * `discoveryCacheMs`). Should that receiver decline it when it is rung (refuse the connection,
   * or answer 503), the Operation, reverted, goes with the same data to the one discovery then finds.
   */
  readonly target: { readonly capabilityIri: string; readonly serviceIri: string; readonly address: string };
}

/** The body of `request`: fills `draft.data`; throwing aborts with nothing written. */
export type RequestBody = (draft: OperationDraft) => unknown;

/**
 * Dispatches one Operation; returns its IRI once the receiver acknowledged the trigger. The
 * freshest reachable Service wins (heartbeat within `stalenessThreshold` preferred), as
 * discovery found it at most `discoveryCacheMs` ago; a remembered receiver that declines the
 * Operation (refuses the connection, or answers 503) is replaced by the one discovery finds
 * then, and any failed trigger makes the next request ask discovery again. On a
 * timeout the receiver may have enqueued (even claimed) the Operation already; it is reverted
 * all the same, as the spec says, so the receiver's claim or terminal write then fails (logged).
 * @throws OperationResolutionError when no reachable Service realizes the Capability (before the body runs).
 * @throws the body's error (nothing written).
 * @throws TriggerDeliveryError when the receiver did not take the trigger: the Operation was
 *   reverted, or, when the message says it could not be reverted, it stays in the graph (the
 *   caller's store link failed too, or the receiver had taken it) and may still run.
 * @throws ValueError / ValidationError / OntologyGroundTruthError for bad input, a past or
 *   malformed deadline included (nothing written).
 */
export function request(ctx: MiddlewareContext, options: RequestOptions, body?: RequestBody): Promise<string> {
  const given = parseTraceparent(options?.traceparent);
  const current = currentTrace();
  // Within a traced call, a span of its own only when spans are exported (the trigger then names it as the receiver's parent).
  const trace = given ? childSpan(given) : current === undefined ? newTrace() : exportingSpans() ? childSpan(current) : current;
  return timedSpan({ name: 'request', kind: 'producer', trace }, () => dispatch(ctx, options, body, trace));
}

async function dispatch(
  ctx: MiddlewareContext,
  options: RequestOptions,
  body: RequestBody | undefined,
  trace: TraceContext,
): Promise<string> {
  ctx.requireNotStopped('request');
  if (typeof options !== 'object' || options === null) throw new ValueError(`request options must be an object, got ${preview(options)}`);
  if (body !== undefined && typeof body !== 'function') throw new ValueError(`request body must be a function, got ${typeof body}`);
  const capabilityClass = assertIri(options.capabilityClass, 'capabilityClass');
  const operationClass = assertIri(options.operationClass, 'operationClass');
  const operationIri = options.operationIri == null ? mintOperationIri(operationClass) : assertIri(options.operationIri, 'operationIri');
  const deadline = options.deadline == null ? null : parseDeadline(options.deadline, 'deadline');
  if (options.wait != null && typeof options.wait !== 'boolean')
    throw new ValueError(`wait must be a boolean, got ${preview(options.wait)}`);
  const wait = options.wait === true;
  const requestedBy = assertCaller(
    options.requestedBy ?? libraryCaller(ctx.serviceIri, ctx.options.resourceIri ?? undefined),
    'requestedBy',
  );
  // Checked here, before it names an entry of the discovery cache.
  const targetResource = options.targetResource == null ? null : assertIri(options.targetResource, 'targetResource');
  const discovery = { targetResource, freshWithinSeconds: ctx.options.stalenessThreshold, ...ctx.graph };
  const found = await ctx.targets.find(ctx.ogm, capabilityClass, discovery);
  const draft: OperationDraft = { operationIri, data: {}, target: publicTarget(found.target) };
  // The caller's body runs in the request's trace (its log lines carry it).
  if (body) await callInTrace(trace, body, draft);
  const log = traceLogger(ctx.logger, trace, { operation: operationIri });
  const wanted: Wanted = {
    operationIri,
    operationClass,
    capabilityClass,
    discovery,
    data: draft.data,
    deadline,
    requestedBy,
    wait,
    trace,
    log,
  };
  const target = await deliver(ctx, wanted, found);
  log.debug({ requestedBy, receiver: target.serviceIri }, 'operation requested');
  ctx.record('request', { operation: operationIri, service: target.serviceIri, capability: target.capabilityIri, requestedBy });
  return operationIri;
}

/** What one request writes and asks of its receiver, whichever receiver that is. */
interface Wanted {
  operationIri: string;
  operationClass: string;
  capabilityClass: string;
  discovery: ResolveDispatchTargetOptions;
  data: OperationDraft['data'];
  deadline: Date | null;
  requestedBy: string;
  wait: boolean;
  trace: TraceContext;
  log: Logger;
}

/**
 * Creates the Operation for the target discovery found and rings its trigger; resolves with the
 * receiver that took it. A remembered receiver that declined it (nothing answers at its address
 * any more, or it answered 503: it is stopping, or its device is down) may be one a fresh
 * discovery would not offer: the Operation was reverted, so it goes once more, to where
 * discovery points now, unless that is the same receiver. Any failed trigger makes the next
 * request read the graph.
 * @throws the trigger's error once the Operation was reverted, and what createAndRing throws.
 */
async function deliver(ctx: MiddlewareContext, wanted: Wanted, found: FoundTarget): Promise<DispatchTarget> {
  const { capabilityClass, discovery } = wanted;
  const failure = await createAndRing(ctx, wanted, found.target);
  if (failure === undefined) return found.target;
  ctx.targets.forget(capabilityClass, discovery.targetResource, found.target);
  if (!found.remembered || !declinedByReceiver(failure)) throw failure;
  // Forgotten above, so this reads the graph, or shares a read that another request declined
  // by the same receiver started meanwhile.
  const now = (await ctx.targets.find(ctx.ogm, capabilityClass, discovery)).target;
  if (sameTarget(now, found.target)) throw failure;
  wanted.log.info(
    { gone: found.target.serviceIri, receiver: now.serviceIri },
    'the remembered receiver declined the Operation; requesting from the one discovery finds now',
  );
  const again = await createAndRing(ctx, wanted, now);
  if (again === undefined) return now;
  ctx.targets.forget(capabilityClass, discovery.targetResource, now);
  throw again;
}

function publicTarget(target: DispatchTarget): OperationDraft['target'] {
  return Object.freeze({ capabilityIri: target.capabilityIri, serviceIri: target.serviceIri, address: target.serviceAddress });
}

/**
 * Creates the Operation addressed to `target`'s Capability and rings its event trigger. Resolves
 * undefined once delivered, or with the trigger's error once the Operation was reverted.
 * @throws the create's error (nothing written); TriggerDeliveryError when the trigger failed and
 *   the revert failed too (the Operation stays in the graph and may still run).
 */
async function createAndRing(ctx: MiddlewareContext, wanted: Wanted, target: DispatchTarget): Promise<Error | undefined> {
  const { operationIri, operationClass, data, deadline, requestedBy, log } = wanted;
  const created = {
    operationIri,
    operationClass,
    capabilityIri: target.capabilityIri,
    data,
    deadline,
    requestedBy,
    createdAt: new Date(),
    ...ctx.graph,
  };
  const written = await createOperation(ctx.ogm, created);
  try {
    const token = outgoingTokenFor(ctx.options.outgoingTokens, target.serviceAddress);
    const traceparent = formatTraceparent(wanted.trace);
    const delivery = { traceparent, description: describeWritten(written), outcome: wanted.wait, ...(token !== undefined && { token }) };
    const { outcome, close } = await deliverTrigger(ctx.fetch, target.serviceAddress, operationIri, delivery);
    if (outcome && close) ctx.awaited.expect(operationIri, outcome, close);
    return undefined;
  } catch (error) {
    log.warn({ err: error, receiver: target.serviceIri }, 'event trigger not delivered; reverting the Operation');
    try {
      await revertOperation(ctx.ogm, created);
      ctx.record('reverted', { operation: operationIri, service: target.serviceIri, error: errorText(error) });
    } catch (revertError) {
      log.error({ err: revertError, receiver: target.serviceIri }, 'the Operation could not be reverted');
      // The caller must not read "not delivered" as "nothing happened" and dispatch again.
      throw new TriggerDeliveryError(
        `${errorText(error)}; the Operation <${operationIri}> could not be reverted (${errorText(revertError)}) and stays in the graph: ` +
          'its receiver may still run it, so follow it instead of dispatching it again',
        { cause: error },
      );
    }
    return error instanceof Error ? error : new TriggerDeliveryError(errorText(error));
  }
}
