import { ValidationError, ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { OGM, PropertyInputs } from '../ogm/ogm.js';
import { operationStatusesQuery } from '../queries/operations.js';
import { FailureKind, isFailureKind, OperationStatus } from '../vocab/status.js';
import { sm, svc } from '../vocab/terms.js';
import { checkOptions, graphOf, type GraphOption } from './classes.js';
import { checkDate } from './services.js';
import { priorStatuses, transitionConflict } from './transitions.js';

/** Options of {@link setOperationStatus}. */
export interface SetOperationStatusOptions extends GraphOption {
  operationIri: string;
  /** The new status. Only `running` (from `queued`) is written here; see OPERATION_TRANSITIONS. */
  status: OperationStatus;
  /** `sm:claimedAt`, written in the same update; now when omitted. */
  claimedAt?: Date | null;
  /**
   * Property -> the values the Operation must hold besides its status for the claim to apply,
   * checked in the same compare-and-set (a receiver that was told what the Operation holds claims
   * it without reading it first). None when omitted.
   */
  expect?: PropertyInputs | null;
}

/** Options of {@link recordTerminalStatus}. */
export interface RecordTerminalStatusOptions extends GraphOption {
  operationIri: string;
  /** The Workflow that ran the Operation (`svc:executedByWorkflow`). */
  workflowIri: string;
  status: typeof OperationStatus.DONE | typeof OperationStatus.FAILED;
  /** Result of the domain work, or the error message (`svc:executionResult`); none when omitted. */
  result?: string | null;
  /** JSON snapshot of the resource (`svc:failureState`); only with status `failed`. */
  failureState?: string | null;
  /** `sm:failureKind`; only with status `failed`, where it defaults to `error`. */
  failureKind?: FailureKind | null;
  /** `svc:executionTimestamp` and `sm:finishedAt`; now when omitted. */
  timestamp?: Date | null;
}

/** Options of {@link markOperationFailed}. */
export interface MarkOperationFailedOptions extends GraphOption {
  /** `svc:executionTimestamp` and `sm:finishedAt`; now when omitted (one sweep may pass one time for all). */
  timestamp?: Date | null;
  /** `sm:failureKind`, written next to the reason; default `error`. */
  kind?: FailureKind | null;
  /**
   * Property -> the values the Operation must hold besides its status. When given, the failure
   * applies only to a `queued` Operation that holds exactly those values (a receiver failing,
   * unread, an Operation whose passed deadline its requester described: a description the
   * graph does not hold fails nothing). None when omitted.
   */
  expectQueued?: PropertyInputs | null;
}

/**
 * Moves an Operation from `queued` to `running` (the claim) in one compare-and-set commit: the
 * write applies only if the Operation holds exactly the status `queued`, so of several
 * concurrent claimers exactly one wins. `sm:claimedAt` is written in the same update; with
 * `expect`, the write applies only if the Operation also holds exactly those values. Costs one
 * request (plus one type read when the OGM has not seen the Operation yet).
 * @throws ValueError for an unknown status or one this function may not write (`done` and
 *   `failed` need provenance: use recordTerminalStatus or markOperationFailed; nothing returns to
 *   `queued`), or a malformed IRI.
 * @throws TransitionConflictError when the Operation was not `queued` (the claim was lost, or
 *   the Operation does not exist), naming the status found.
 * @example await setOperationStatus(ogm, { operationIri, status: 'running' })
 */
export async function setOperationStatus(ogm: OGM, options: SetOperationStatusOptions): Promise<void> {
  checkOptions(options, 'setOperationStatus');
  const iri = assertIri(options.operationIri, 'operationIri');
  const from = priorStatuses('setOperationStatus', options.status);
  const claimedAt = checkDate(options.claimedAt ?? new Date(), 'claimedAt');
  const expect = options.expect ?? {};
  if (typeof expect !== 'object' || Array.isArray(expect) || Object.hasOwn(expect, svc.operationStatus))
    throw new ValueError(`expect must be an object of property -> values other than the status, got ${preview(expect)}`);
  // A queued Operation was never claimed: guarding on that spares the commit matching old values.
  await transition(
    ogm,
    iri,
    options.status,
    from,
    { [sm.claimedAt]: claimedAt },
    graphOf(ogm, options),
    Object.assign({}, expect, { [sm.claimedAt]: [] }),
  );
}

/**
 * Moves a `running` Operation to `done` or `failed` together with its provenance, in one
 * compare-and-set commit: `svc:operationStatus`, `svc:executedByWorkflow`,
 * `svc:executionTimestamp`, `sm:finishedAt` (the same instant), `svc:executionResult` and, when
 * failed, `svc:failureState` and `sm:failureKind`. The write applies only while the Operation
 * holds none of these yet, so the stored outcome is exactly this call's, never mixed with another
 * writer's. A cancel requested
 * meanwhile (`sm:cancelRequested`) wins: the write then applies only with failure kind
 * `cancelled`, so a cancel that was acknowledged is never followed by `done`. One request.
 * @throws ValueError for a status other than `done`/`failed`, a failure state or kind given with
 *   `done`, an unknown kind, or a malformed IRI.
 * @throws TransitionConflictError when the Operation was not `running` (for example it was
 *   already failed by markOperationFailed), or a cancel of it was requested, naming what was found.
 * @example await recordTerminalStatus(ogm, { operationIri, workflowIri, status: 'done', result: '"opened"' })
 */
export async function recordTerminalStatus(ogm: OGM, options: RecordTerminalStatusOptions): Promise<void> {
  checkOptions(options, 'recordTerminalStatus');
  const iri = assertIri(options.operationIri, 'operationIri');
  const workflow = assertIri(options.workflowIri, 'workflowIri');
  const from = priorStatuses('recordTerminalStatus', options.status);
  const failed = options.status === OperationStatus.FAILED;
  if (!failed && (options.failureState != null || options.failureKind != null)) {
    throw new ValueError(`a failure state or kind is written only with status 'failed', not '${options.status}' (Operation <${iri}>)`);
  }
  const kind = failed ? checkKind(options.failureKind, iri) : undefined;
  const finishedAt = checkDate(options.timestamp ?? new Date(), 'timestamp');
  const provenance: PropertyInputs = {
    [svc.executedByWorkflow]: workflow,
    [svc.executionTimestamp]: finishedAt,
    [sm.finishedAt]: finishedAt,
    [svc.executionResult]: options.result ?? [],
    [svc.failureState]: (failed ? options.failureState : undefined) ?? [],
    [sm.failureKind]: kind ?? [],
  };
  // Only a terminal transition writes the provenance, and nothing leaves a terminal status, so a
  // running Operation holds none of it: guarding on that makes the commit insert it without a
  // delete pattern per property (each one doubles the SQL Virtuoso makes of it, see commitUpdate,
  // and costs the store a join), and a write that finds any of it set loses its compare-and-set.
  const unset = Object.fromEntries(Object.keys(provenance).map((p) => [p, []]));
  const guard = kind === FailureKind.CANCELLED ? unset : Object.assign(unset, { [sm.cancelRequested]: [] });
  await transition(ogm, iri, options.status, from, provenance, graphOf(ogm, options), guard);
}

/** The failure kind to write: `kind`, or `error` when none is given. */
function checkKind(kind: unknown, iri: string): FailureKind {
  if (kind == null) return FailureKind.ERROR;
  if (!isFailureKind(kind))
    throw new ValueError(`failure kind ${preview(kind)} is not one of ${Object.values(FailureKind).join(', ')} (Operation <${iri}>)`);
  return kind;
}

/**
 * Moves a `queued` or `running` Operation to `failed` with a reason, in one compare-and-set
 * commit (the status must be exactly one of those two). As in the reference, the reason goes to
 * `svc:executionResult`, with `svc:executionTimestamp` and `sm:finishedAt`; no Workflow provenance is written (none
 * ran it to the end). Used to sweep a dead resource's Operations and to reclaim orphaned running
 * ones: recovery is never a silent replay. One request.
 * @throws ValueError for a reason that is not a string, or a malformed IRI.
 * @throws TransitionConflictError when the Operation was already `done` or `failed` (or does
 *   not exist), naming the status found.
 * @example await markOperationFailed(ogm, operationIri, 'orphaned running operation reclaimed at startup, not auto-rerun')
 */
export async function markOperationFailed(
  ogm: OGM,
  operationIri: string,
  reason: string,
  options: MarkOperationFailedOptions = {},
): Promise<void> {
  checkOptions(options, 'markOperationFailed');
  const iri = assertIri(operationIri, 'operationIri');
  if (typeof reason !== 'string') throw new ValueError(`reason must be a string, got ${typeof reason} (Operation <${iri}>)`);
  const expect = options.expectQueued ?? undefined;
  if (expect !== undefined && (typeof expect !== 'object' || Array.isArray(expect) || Object.hasOwn(expect, svc.operationStatus)))
    throw new ValueError(`expectQueued must be an object of property -> values other than the status, got ${preview(expect)}`);
  const from = expect ? [OperationStatus.QUEUED] : priorStatuses('markOperationFailed', OperationStatus.FAILED);
  const finishedAt = checkDate(options.timestamp ?? new Date(), 'timestamp');
  const outcome: PropertyInputs = {
    [svc.executionResult]: reason,
    [svc.executionTimestamp]: finishedAt,
    [sm.finishedAt]: finishedAt,
    [sm.failureKind]: checkKind(options.kind, iri),
  };
  await transition(ogm, iri, OperationStatus.FAILED, from, outcome, graphOf(ogm, options), expect);
}

/**
 * One guarded commit: `set` applies only if the Operation holds exactly one status and it is
 * one of `from`, and every property of `extraGuard` holds exactly its values. A lost transition
 * reads the status once (failure path only) for the error.
 */
export async function transition(
  ogm: OGM,
  iri: string,
  to: OperationStatus,
  from: readonly OperationStatus[],
  extra: PropertyInputs,
  graph: string,
  extraGuard: PropertyInputs = {},
): Promise<void> {
  const status =
    from.length === 1 ? { guard: { [svc.operationStatus]: from[0]!, ...extraGuard } } : { guardOneOf: { [svc.operationStatus]: from } };
  const guard = from.length === 1 || Object.keys(extraGuard).length === 0 ? status : Object.assign({}, status, { guard: extraGuard });
  let applied: boolean;
  try {
    ({ applied } = await ogm.commit({ iri, set: { [svc.operationStatus]: to, ...extra }, ...guard, graph }));
  } catch (e) {
    // An IRI with no type in the graph is no Operation at all: the transition cannot apply.
    if (e instanceof ValidationError && e.details.rule === 'typed-individual') throw transitionConflict(iri, to, from, []);
    throw e;
  }
  if (!applied) {
    const found = await statusesOf(ogm, iri, graph);
    throw transitionConflict(iri, to, from, found.statuses, found.cancelledBy);
  }
}

/** The Operation's statuses, and who asked to cancel it when a cancel was requested. */
export async function statusesOf(ogm: OGM, iri: string, graph: string): Promise<{ statuses: string[]; cancelledBy?: string }> {
  const rows = await ogm.db.select(operationStatusesQuery(graph, iri));
  const statuses = [...new Set(rows.map((r) => r.st?.value).filter((v): v is string => v !== undefined))];
  const requested = rows.find((r) => r.cr !== undefined);
  return requested ? { statuses, cancelledBy: requested.cb?.value ?? 'an unnamed caller' } : { statuses };
}
