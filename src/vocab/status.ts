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
