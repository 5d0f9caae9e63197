import { TransitionConflictError, ValueError } from '../errors.js';
import { preview } from '../iri/validate.js';
import { isOperationStatus, OPERATION_STATUSES, OperationStatus } from '../vocab/status.js';

/** The registration functions that write `svc:operationStatus`. */
export type StatusWriter = 'createOperation' | 'setOperationStatus' | 'recordTerminalStatus' | 'markOperationFailed' | 'cancelOperation';

/** One row of the transition table: who may write a status, and from which prior statuses. */
export interface TransitionRule {
  /** The one function that makes this transition. */
  readonly by: StatusWriter;
  /** Statuses the Operation must hold for the transition to apply; empty for creation. */
  readonly from: readonly OperationStatus[];
}

const { QUEUED, RUNNING, DONE, FAILED } = OperationStatus;

/**
 * The spec's Operation status transition table, keyed by target status. Every transition not
 * listed is forbidden: nothing ever returns to `queued`, `done` and `failed` are final, and a
 * terminal status is only written together with its provenance (`recordTerminalStatus`) or its
 * reason (`markOperationFailed`). `createOperation` may also create an Operation directly as
 * `running` (the spec's `status` parameter), never as a terminal one.
 *
 * | To | By | From |
 * |---|---|---|
 * | queued | createOperation | (none) |
 * | running | createOperation | (none) |
 * | running | setOperationStatus | queued |
 * | done | recordTerminalStatus | running |
 * | failed | recordTerminalStatus | running |
 * | failed | markOperationFailed | queued, running |
 * | failed | cancelOperation | queued |
 *
 * A cancel of a `running` Operation writes no status: it records `sm:cancelRequested`, and the
 * receiver completes it through recordTerminalStatus with failure kind `cancelled`.
 */
export const OPERATION_TRANSITIONS: Readonly<Record<OperationStatus, readonly TransitionRule[]>> = Object.freeze({
  [QUEUED]: Object.freeze([{ by: 'createOperation', from: [] }]),
  [RUNNING]: Object.freeze([
    { by: 'createOperation', from: [] },
    { by: 'setOperationStatus', from: [QUEUED] },
  ]),
  [DONE]: Object.freeze([{ by: 'recordTerminalStatus', from: [RUNNING] }]),
  [FAILED]: Object.freeze([
    { by: 'recordTerminalStatus', from: [RUNNING] },
    { by: 'markOperationFailed', from: [QUEUED, RUNNING] },
    { by: 'cancelOperation', from: [QUEUED] },
  ]),
} satisfies Record<OperationStatus, readonly TransitionRule[]>);

const WHY: Readonly<Record<OperationStatus, string>> = {
  [QUEUED]: 'an Operation is queued only when it is created',
  [RUNNING]: 'an Operation starts running when it is claimed from queued',
  [DONE]: 'an Operation is never terminal without provenance',
  [FAILED]: 'an Operation fails with provenance or with a reason',
};

/**
 * Checks that `status` is an Operation status and that `writer` may write it; returns the prior
 * statuses the write must find (the compare-and-set guard).
 * @throws ValueError for an unknown status, or a status `writer` may not write (naming the
 *   function that may).
 * @example priorStatuses('setOperationStatus', 'running') // ['queued']
 */
export function priorStatuses(writer: StatusWriter, status: unknown): readonly OperationStatus[] {
  if (!isOperationStatus(status)) {
    throw new ValueError(`status ${preview(status)} is not an Operation status: expected one of ${OPERATION_STATUSES.join(', ')}`);
  }
  const rules = OPERATION_TRANSITIONS[status];
  const rule = rules.find((r) => r.by === writer);
  if (!rule) {
    const who = rules.map((r) => r.by).join(' or ');
    throw new ValueError(`${writer} cannot set status '${status}': ${WHY[status]}; use ${who}`);
  }
  return rule.from;
}

/** Checks that every entry is an Operation status; returns them without duplicates. */
export function assertStatuses(statuses: readonly unknown[]): OperationStatus[] {
  if (!Array.isArray(statuses)) throw new ValueError(`statuses must be an array of Operation statuses, got ${typeof statuses}`);
  for (const s of statuses) {
    if (!isOperationStatus(s))
      throw new ValueError(`status ${preview(s)} is not an Operation status: expected one of ${OPERATION_STATUSES.join(', ')}`);
  }
  return [...new Set(statuses as OperationStatus[])];
}

/**
 * The error for a transition that did not apply because the stored status was not an expected
 * one (another writer won the race, or the transition is not allowed from there).
 */
export function transitionConflict(
  operationIri: string,
  to: OperationStatus,
  expected: readonly OperationStatus[],
  found: readonly string[],
  cancelledBy?: string,
): TransitionConflictError {
  const want = expected.map((s) => `'${s}'`).join(' or ');
  const got = found.length === 0 ? 'no status (the Operation does not exist in this graph)' : found.map((s) => preview(s)).join(', ');
  if (cancelledBy !== undefined && found.length === 1 && found[0] === OperationStatus.RUNNING) {
    return new TransitionConflictError(
      `Operation <${operationIri}> was not moved to '${to}': a cancel of it was requested by ${preview(cancelledBy)}, which only a 'failed' outcome of kind 'cancelled' completes`,
    );
  }
  return new TransitionConflictError(`Operation <${operationIri}> was not moved to '${to}': expected status ${want}, found ${got}`);
}
