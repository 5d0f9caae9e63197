import { LIMITS } from '../../limits.js';
import { isFailureKind, isOperationStatus, TERMINAL_STATUSES } from '../../vocab/status.js';
import { snapshotJson, type OperationSnapshot } from './operation-watch.js';

/**
 * The outcome channel of the event trigger: a caller that asks for it (`Accept:
 * application/x-ndjson`) gets the trigger's answer as a first line and, on the same response,
 * the Operation's outcome as a second line once the receiver's terminal write applied. The
 * waiting caller is woken by it instead of polling the store. Only a caller that will wait asks
 * (`request({ wait: true })`): otherwise the trigger is answered with plain JSON at once, as the
 * Python reference answers it, and no response stays open. Either side may end the channel
 * early (the receiver after {@link LIMITS.longPollMaxMs}, at stop, or when it does not know the
 * outcome for sure): the caller then reads the store as before.
 */

/** The media type of the trigger's two-line answer. */
export const OUTCOME_STREAM_TYPE = 'application/x-ndjson';

/** An outcome as the channel carries it: the snapshot, or null when the receiver cannot say. */
export type Outcome = OperationSnapshot | null;

/** The snapshot as one line of the channel. */
export function outcomeLine(snapshot: OperationSnapshot): string {
  return `${JSON.stringify(snapshotJson(snapshot))}\n`;
}

/** Reads a line of the channel back; null for anything that is not a terminal snapshot of `operationIri`. */
export function parseOutcome(line: string, operationIri: string): Outcome {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.operationIri !== operationIri || !isOperationStatus(v.status) || !TERMINAL_STATUSES.includes(v.status)) return null;
  const snapshot: OperationSnapshot = { operationIri, status: v.status };
  const text = (key: string): string | undefined => (typeof v[key] === 'string' ? v[key] : undefined);
  const date = (key: string): Date | undefined => {
    const t = text(key);
    const d = t === undefined ? undefined : new Date(t);
    return d && Number.isFinite(d.getTime()) ? d : undefined;
  };
  const [result, failureState, workflowIri, failureKind, cancelledBy, requestedBy] = [
    'result',
    'failureState',
    'workflowIri',
    'failureKind',
    'cancelledBy',
    'requestedBy',
  ].map(text);
  if (result !== undefined) snapshot.result = result;
  if (failureState !== undefined) snapshot.failureState = failureState;
  if (workflowIri !== undefined) snapshot.workflowIri = workflowIri;
  if (isFailureKind(failureKind)) snapshot.failureKind = failureKind;
  if (cancelledBy !== undefined) snapshot.cancelledBy = cancelledBy;
  if (requestedBy !== undefined) snapshot.requestedBy = requestedBy;
  const [timestamp, deadline, cancelRequested, createdAt, claimedAt, finishedAt] = [
    'timestamp',
    'deadline',
    'cancelRequested',
    'createdAt',
    'claimedAt',
    'finishedAt',
  ].map(date);
  // A terminal write always holds when it was claimed and finished: without them the receiver
  // announced less than the store holds, and the waiter reads the store instead.
  if (!claimedAt || !finishedAt) return null;
  if (timestamp) snapshot.timestamp = timestamp;
  if (deadline) snapshot.deadline = deadline;
  if (cancelRequested) snapshot.cancelRequested = cancelRequested;
  if (createdAt) snapshot.createdAt = createdAt;
  snapshot.claimedAt = claimedAt;
  snapshot.finishedAt = finishedAt;
  return snapshot;
}

/**
 * The receiver's side: who waits for the outcome of which Operation. A claim settles it once its
 * terminal write applied (or with null when it ended otherwise); a listener not settled within
 * `maxMs` gets null.
 */
export class OutcomeListeners {
  readonly #waiting = new Map<string, Set<(outcome: Outcome) => void>>();

  /** Resolves with the Operation's outcome here, or null (not known within `maxMs`, or at stop). */
  listen(operationIri: string, maxMs: number = LIMITS.longPollMaxMs): { outcome: Promise<Outcome>; cancel: () => void } {
    let settle!: (outcome: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    const listeners = this.#waiting.get(operationIri) ?? new Set();
    this.#waiting.set(operationIri, listeners);
    const done = (value: Outcome): void => {
      clearTimeout(timer);
      listeners.delete(done);
      if (listeners.size === 0 && this.#waiting.get(operationIri) === listeners) this.#waiting.delete(operationIri);
      settle(value);
    };
    const timer = setTimeout(() => done(null), maxMs);
    timer.unref();
    listeners.add(done);
    return { outcome, cancel: () => done(null) };
  }

  /** Tells every listener of the Operation its outcome (null: not known for sure). */
  settle(operationIri: string, outcome: Outcome): void {
    const listeners = this.#waiting.get(operationIri);
    if (!listeners) return;
    for (const done of [...listeners]) done(outcome);
  }

  /** Ends every listener with null (the instance stops). */
  close(): void {
    for (const operationIri of [...this.#waiting.keys()]) this.settle(operationIri, null);
  }
}

/**
 * The caller's side: the outcomes announced by receivers for Operations this instance requested
 * with `wait`, kept until a waiter took a terminal one. Bounded: past
 * {@link LIMITS.maxAwaitedOutcomes} the oldest is dropped (its channel closed), and a waiter for
 * it reads the store instead.
 */
export class AwaitedOutcomes {
  readonly #outcomes = new Map<string, { outcome: Promise<Outcome>; close: () => void }>();

  /** Keeps the outcome announced for the Operation; `close` ends its channel. */
  expect(operationIri: string, outcome: Promise<Outcome>, close: () => void): void {
    this.#outcomes.get(operationIri)?.close();
    this.#outcomes.set(operationIri, { outcome, close });
    // A channel that ended without an outcome tells nothing: forget it at once.
    void outcome.then((value) => {
      if (value === null && this.#outcomes.get(operationIri)?.outcome === outcome) this.#outcomes.delete(operationIri);
    });
    if (this.#outcomes.size > LIMITS.maxAwaitedOutcomes) {
      const [oldest, entry] = this.#outcomes.entries().next().value!;
      this.#outcomes.delete(oldest);
      entry.close();
    }
  }

  /** The announced outcome of the Operation, if one is expected. */
  peek(operationIri: string): Promise<Outcome> | undefined {
    return this.#outcomes.get(operationIri)?.outcome;
  }

  /** Forgets the Operation's outcome once a waiter has it. */
  consumed(operationIri: string): void {
    this.#outcomes.delete(operationIri);
  }

  /** Closes every channel (the instance stops). */
  close(): void {
    for (const { close } of this.#outcomes.values()) close();
    this.#outcomes.clear();
  }
}
