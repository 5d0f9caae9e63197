/**
 * The values of `svc:operationStatus`. They are plain strings in the graph, as the Python
 * reference writes them, so both implementations can read each other's Operations.
 */
export const OperationStatus = Object.freeze({
  QUEUED: 'queued',
  RUNNING: 'running',
  DONE: 'done',
  FAILED: 'failed',
} as const);

export type OperationStatus = (typeof OperationStatus)[keyof typeof OperationStatus];

export const OPERATION_STATUSES: readonly OperationStatus[] = Object.freeze(Object.values(OperationStatus));

/** Statuses from which an Operation never moves again. */
export const TERMINAL_STATUSES: readonly OperationStatus[] = Object.freeze([OperationStatus.DONE, OperationStatus.FAILED]);

export function isOperationStatus(value: unknown): value is OperationStatus {
  return typeof value === 'string' && (OPERATION_STATUSES as readonly string[]).includes(value);
}

/**
 * The values of `sm:failureKind`: why a failed Operation failed, machine-readably, next to the
 * reason text in `svc:executionResult`. Plain strings in the graph, like the statuses. The
 * statuses stay the spec's four; a reader that ignores this property loses nothing it had.
 */
export const FailureKind = Object.freeze({
  /** A caller cancelled it (queued: failed at once; running: its receiver stopped the work). */
  CANCELLED: 'cancelled',
  /** Its deadline passed before a receiver started it. */
  DEADLINE: 'deadline',
  /** The watchdog swept its resource's dead Service. */
  SWEPT: 'swept',
  /** It was found running at its receiver's start-up, left by a previous run. */
  ORPHANED: 'orphaned',
  /** Its receiver stopped before it finished. */
  SHUTDOWN: 'shutdown',
  /** The device call failed. */
  DEVICE: 'device',
  /** Any other error of the work or of the middleware. */
  ERROR: 'error',
} as const);

export type FailureKind = (typeof FailureKind)[keyof typeof FailureKind];

export const FAILURE_KINDS: readonly FailureKind[] = Object.freeze(Object.values(FailureKind));

export function isFailureKind(value: unknown): value is FailureKind {
  return typeof value === 'string' && (FAILURE_KINDS as readonly string[]).includes(value);
}
