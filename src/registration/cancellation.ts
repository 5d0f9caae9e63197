import { OperationResolutionError, TransitionConflictError, ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import { FailureKind, OperationStatus } from '../vocab/status.js';
import { sm, svc } from '../vocab/terms.js';
import { checkOptions, graphOf, type GraphOption } from './classes.js';
import { statusesOf, transition } from './operation-status.js';
import { checkDate } from './services.js';
import { priorStatuses } from './transitions.js';

/**
 * Cancelling an Operation: a `queued` one is failed at once (failure kind `cancelled`), by
 * compare-and-set; a `running` one gets `sm:cancelRequested`, by compare-and-set on `running`,
 * and its receiver, which watches for it, aborts the work and fails it with kind `cancelled`
 * (recordTerminalStatus never writes `done` once a cancel is requested). A `done` or `failed`
 * one is refused. Each step is one guarded update, so a cancel racing a claim or a terminal write
 * ends in exactly one outcome.
 */

/** Options of {@link cancelOperation}. */
export interface CancelOperationOptions extends GraphOption {
  /** Who cancels, recorded as `sm:cancelledBy` (see `src/lib/caller-identity.ts`). */
  by: string;
  /** When; default now. */
  now?: Date | null;
}

/** What a cancel did. */
export interface CancelResult {
  operationIri: string;
  /** `cancelled`: it was queued and is failed now; `requested`: it runs, and its receiver stops it. */
  outcome: 'cancelled' | 'requested';
  /** The status after the cancel: `failed` or `running`. */
  status: typeof OperationStatus.FAILED | typeof OperationStatus.RUNNING;
  /** Who cancelled it: this call's caller, or an earlier one whose cancel of the running Operation is pending. */
  cancelledBy: string;
}

// Longest caller identity recorded; identities are names, not documents.
const MAX_CALLER_LENGTH = 256;

/** The reason written into `svc:executionResult` of a cancelled Operation, by where it was when cancelled. */
export function cancelReason(by: string, where: 'queued' | 'running'): string {
  return where === 'queued' ? `cancelled by ${by} while queued; not run` : `cancelled by ${by} while running; its work was stopped`;
}

/**
 * Checks a caller identity: a non-empty string of at most 256 characters without control characters.
 * @throws ValueError naming the value.
 */
export function assertCaller(by: unknown, what = 'by'): string {
  // eslint-disable-next-line no-control-regex
  if (typeof by !== 'string' || by === '' || by.length > MAX_CALLER_LENGTH || /[\u0000-\u001f\u007f]/u.test(by)) {
    throw new ValueError(
      `${what} must name the caller in 1 to ${MAX_CALLER_LENGTH} characters without control characters, got ${preview(by)}`,
    );
  }
  return by;
}

/**
 * Cancels an Operation (see the module's note). At most three requests: the queued attempt, the
 * running one, and one read when both lost. Repeating the cancel of a running Operation whose
 * cancel is pending answers `requested` again, naming the first caller.
 * @throws ValueError for a malformed IRI or caller.
 * @throws OperationResolutionError (404) when no such Operation exists.
 * @throws TransitionConflictError (409) when it is `done` or `failed` already.
 * @example await cancelOperation(ogm, operationIri, { by: 'cli:alice' }) // { outcome: 'cancelled', status: 'failed', ... }
 */
export async function cancelOperation(ogm: OGM, operationIri: string, options: CancelOperationOptions): Promise<CancelResult> {
  checkOptions(options, 'cancelOperation');
  const iri = assertIri(operationIri, 'operationIri');
  const by = assertCaller(options.by);
  const now = checkDate(options.now ?? new Date(), 'now');
  const graph = graphOf(ogm, options);
  try {
    const failed = {
      [svc.executionResult]: cancelReason(by, 'queued'),
      [svc.executionTimestamp]: now,
      [sm.finishedAt]: now,
      [sm.failureKind]: FailureKind.CANCELLED,
      [sm.cancelledBy]: by,
    };
    await transition(ogm, iri, OperationStatus.FAILED, priorStatuses('cancelOperation', OperationStatus.FAILED), failed, graph);
    return { operationIri: iri, outcome: 'cancelled', status: OperationStatus.FAILED, cancelledBy: by };
  } catch (error) {
    if (!(error instanceof TransitionConflictError)) throw error;
  }
  try {
    const request = { [sm.cancelRequested]: now, [sm.cancelledBy]: by };
    await transition(ogm, iri, OperationStatus.RUNNING, [OperationStatus.RUNNING], request, graph, { [sm.cancelRequested]: [] });
    return { operationIri: iri, outcome: 'requested', status: OperationStatus.RUNNING, cancelledBy: by };
  } catch (error) {
    if (!(error instanceof TransitionConflictError)) throw error;
  }
  const found = await statusesOf(ogm, iri, graph);
  if (found.statuses.length === 0)
    throw new OperationResolutionError(`Operation <${iri}> does not exist (it has no svc:operationStatus in the graph)`);
  if (found.statuses.length === 1 && found.statuses[0] === OperationStatus.RUNNING && found.cancelledBy !== undefined) {
    return { operationIri: iri, outcome: 'requested', status: OperationStatus.RUNNING, cancelledBy: found.cancelledBy };
  }
  const statuses = found.statuses.map((s) => `'${s}'`).join(', ');
  throw new TransitionConflictError(
    `Operation <${iri}> was not cancelled: it is ${statuses} already, and a finished Operation stays as it ended`,
  );
}
