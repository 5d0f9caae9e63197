import { OperationResolutionError, OperationTimeoutError, ValueError } from '../../errors.js';
import { assertIri, preview } from '../../iri/validate.js';
import { LIMITS } from '../../limits.js';
import type { OGM } from '../../ogm/ogm.js';
import type { Bindings } from '../../store/triple-store.js';
import { graphOf, type GraphOption } from '../../registration/classes.js';
import { operationOutcomeQuery } from '../../queries/operations.js';
import { isFailureKind, isOperationStatus, OperationStatus, TERMINAL_STATUSES, type FailureKind } from '../../vocab/status.js';
import { sleep } from '../runtime/loops.js';

/**
 * Reading an Operation's outcome, and waiting for it: what a caller does after `request` (and
 * what a local API's long-poll serves).
 */

/** An Operation's status and outcome as stored. */
export interface OperationSnapshot {
  operationIri: string;
  status: OperationStatus;
  /** `svc:executionResult`: the result, the error message, or a failure reason. */
  result?: string;
  /** `svc:failureState`: the JSON snapshot of the resource, when the claim failed. */
  failureState?: string;
  /** `svc:executedByWorkflow`. */
  workflowIri?: string;
  /** `svc:executionTimestamp`. */
  timestamp?: Date;
  /** `sm:failureKind`: why a failed Operation failed. */
  failureKind?: FailureKind;
  /** `sm:deadline`: no receiver starts it after this instant. */
  deadline?: Date;
  /** `sm:cancelRequested`: when a cancel of it was asked for while it ran. */
  cancelRequested?: Date;
  /** `sm:cancelledBy`: who cancelled it. */
  cancelledBy?: string;
  /** `sm:requestedBy`: who requested it (see `src/lib/caller-identity.ts`). */
  requestedBy?: string;
  /** `sm:createdAt`, `sm:claimedAt`, `sm:finishedAt`: when it was created, claimed, finished. */
  createdAt?: Date;
  claimedAt?: Date;
  finishedAt?: Date;
}

/** Options of {@link waitForOperation}. */
export interface WaitOptions extends GraphOption {
  /** Longest wait; default `LIMITS.longPollMaxMs`. */
  timeoutMs?: number;
  /** Ends the wait early (rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * The outcome announced for the Operation by its receiver (the trigger's outcome channel): the
   * wait takes it instead of reading the store, and reads the store only when it resolves null.
   */
  outcome?: Promise<OperationSnapshot | null>;
}

/**
 * The Operation's status and outcome in ONE query, whatever its status; null when the
 * Operation has no status in the graph (it does not exist, or was reverted). On a store whose
 * reads may tear (`TripleStore.readsMayTear`), a terminal status is read until two reads agree.
 * @throws ValueError for a malformed IRI; StoreError.
 * @example const snap = await readOperation(ogm, operationIri); // { status: 'done', result: '"opened"', ... }
 */
export async function readOperation(ogm: OGM, operationIri: string, options: GraphOption = {}): Promise<OperationSnapshot | null> {
  const op = assertIri(operationIri, 'operationIri');
  const query = operationOutcomeQuery(graphOf(ogm, options), op);
  let snapshot = snapshotOf(op, await ogm.db.select(query));
  if (ogm.store.readsMayTear !== true) return snapshot;
  // A terminal status is final, but on a store whose reads may tear a read that overlapped its
  // write may hold only part of it (a failed Operation without its failure state, seen on
  // Virtuoso): read again until two reads in a row agree.
  for (let reads = 1; snapshot && isTerminal(snapshot.status) && reads < MAX_CONFIRMING_READS; reads++) {
    const again = snapshotOf(op, await ogm.db.select(query));
    if (again && sameSnapshot(again, snapshot)) return again;
    snapshot = again;
  }
  return snapshot;
}

// Reads of a terminal snapshot until two agree; a write commits within a few, so more means a store that changes under us.
const MAX_CONFIRMING_READS = 5;

const isTerminal = (status: string): boolean => (TERMINAL_STATUSES as readonly string[]).includes(status);
const sameSnapshot = (a: OperationSnapshot, b: OperationSnapshot): boolean =>
  JSON.stringify(snapshotJson(a)) === JSON.stringify(snapshotJson(b));

/** The snapshot in the first row of an outcome query; null when the Operation has no status. */
function snapshotOf(op: string, rows: Bindings[]): OperationSnapshot | null {
  const row = rows[0];
  if (!row?.st || !isOperationStatus(row.st.value)) return null;
  const snapshot: OperationSnapshot = { operationIri: op, status: row.st.value };
  if (row.res) snapshot.result = row.res.value;
  if (row.fs) snapshot.failureState = row.fs.value;
  if (row.wf) snapshot.workflowIri = row.wf.value;
  if (row.ts) snapshot.timestamp = new Date(row.ts.value);
  if (row.kind && isFailureKind(row.kind.value)) snapshot.failureKind = row.kind.value;
  if (row.deadline) snapshot.deadline = new Date(row.deadline.value);
  if (row.cr) snapshot.cancelRequested = new Date(row.cr.value);
  if (row.cb) snapshot.cancelledBy = row.cb.value;
  if (row.rb) snapshot.requestedBy = row.rb.value;
  if (row.ca) snapshot.createdAt = new Date(row.ca.value);
  if (row.cl) snapshot.claimedAt = new Date(row.cl.value);
  if (row.fa) snapshot.finishedAt = new Date(row.fa.value);
  return snapshot;
}

/** The snapshot as JSON output shows it (local API, command line): instants as ISO 8601 text. */
export function snapshotJson(snapshot: OperationSnapshot): Record<string, unknown> {
  const { timestamp, deadline, cancelRequested, createdAt, claimedAt, finishedAt } = snapshot;
  return {
    ...snapshot,
    timestamp: timestamp?.toISOString(),
    deadline: deadline?.toISOString(),
    cancelRequested: cancelRequested?.toISOString(),
    createdAt: createdAt?.toISOString(),
    claimedAt: claimedAt?.toISOString(),
    finishedAt: finishedAt?.toISOString(),
  };
}

// First pause between reads while waiting; short work is usually done by then.
const FIRST_POLL_MS = 5;

/** The announced outcome, or null when it does not come within `ms` (or says nothing). */
async function announcedWithin(
  outcome: Promise<OperationSnapshot | null>,
  ms: number,
  signal?: AbortSignal,
): Promise<OperationSnapshot | null> {
  signal?.throwIfAborted();
  // A timer and a listener, not an AbortController: aborting one without a reason builds a
  // DOMException with its stack, once per waited Operation.
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const expired = new Promise<null>((resolve, reject) => {
    timer = setTimeout(resolve, ms, null);
    if (signal === undefined) return;
    // The signal's own reason, as `signal.throwIfAborted()` throws it.
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([outcome, expired]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Resolves with the Operation's snapshot once it is `done` or `failed`: the outcome announced
 * by its receiver when there is one, else re-reading after 5 ms, then twice as long each time up
 * to `LIMITS.operationPollMs` (short work is seen quickly, long work costs few reads).
 * @throws OperationTimeoutError (504) when it is not terminal within `timeoutMs`.
 * @throws OperationResolutionError when the Operation does not exist (or was reverted).
 * @example const { status, result } = await waitForOperation(ogm, operationIri, { timeoutMs: 5000 });
 */
export async function waitForOperation(ogm: OGM, operationIri: string, options: WaitOptions = {}): Promise<OperationSnapshot> {
  const timeoutMs = options.timeoutMs ?? LIMITS.longPollMaxMs;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0)
    throw new ValueError(`timeoutMs must be a number of milliseconds >= 0, got ${preview(timeoutMs)}`);
  const deadline = Date.now() + timeoutMs;
  if (options.outcome) {
    const announced = await announcedWithin(options.outcome, timeoutMs, options.signal);
    if (announced) return announced;
  }
  let pause = FIRST_POLL_MS;
  for (;;) {
    options.signal?.throwIfAborted();
    const snapshot = await readOperation(ogm, operationIri, options);
    if (!snapshot) throw new OperationResolutionError(`Operation <${operationIri}> does not exist (no svc:operationStatus in the graph)`);
    if (isTerminal(snapshot.status)) return snapshot;
    const left = deadline - Date.now();
    if (left <= 0) throw new OperationTimeoutError(`Operation <${operationIri}> is still '${snapshot.status}' after ${timeoutMs} ms`);
    await sleep(Math.min(pause, left), options.signal);
    pause = Math.min(pause * 2, LIMITS.operationPollMs);
  }
}
