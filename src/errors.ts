/**
 * Every error the product throws. One base class carries a stable `code` (for programs and
 * logs) and an HTTP `status` (for the one error middleware that maps errors to responses).
 * The spec's error names are kept as class names.
 */
export class SemanticMiddlewareError extends Error {
  /** Stable machine-readable code. */
  readonly code: string = 'SM_ERROR';
  /** HTTP status an HTTP surface answers with for this error. */
  readonly status: number = 500;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input: a malformed IRI or address, a missing option, a value of the wrong shape. */
export class ValueError extends SemanticMiddlewareError {
  override readonly code: string = 'SM_VALUE';
  override readonly status: number = 400;
}

/** A call made in a state or mode that does not allow it. */
export class RuntimeError extends SemanticMiddlewareError {
  override readonly code: string = 'SM_RUNTIME';
  override readonly status: number = 409;
}

/** A referenced class is missing from the ontology or is not the required kind. */
export class OntologyGroundTruthError extends SemanticMiddlewareError {
  override readonly code = 'SM_ONTOLOGY';
  override readonly status = 422;
}

/** A write the ontology or the shapes do not allow. Names the property and the rule. */
export class ValidationError extends SemanticMiddlewareError {
  override readonly code = 'SM_VALIDATION';
  override readonly status = 422;
  constructor(
    message: string,
    readonly details: { focus?: string; property?: string; rule: string },
  ) {
    super(message);
  }
}

/** No reachable Workflow realizes the Capability, or no Workflow realizes an Operation's Capability. */
export class OperationResolutionError extends SemanticMiddlewareError {
  override readonly code = 'SM_RESOLUTION';
  override readonly status = 404;
}

/** `claimNext` found no queued Operation. */
export class OperationQueueEmpty extends SemanticMiddlewareError {
  override readonly code = 'SM_QUEUE_EMPTY';
  override readonly status = 404;
}

/** The caller lacks possession of the workpiece, or the counterpart lacks the complementary ability. */
export class HandoverPreconditionError extends SemanticMiddlewareError {
  override readonly code = 'SM_HANDOVER_PRECONDITION';
  override readonly status = 409;
}

/** A compare-and-set transition lost: the stored state was not the one the caller expected. */
export class TransitionConflictError extends SemanticMiddlewareError {
  override readonly code = 'SM_CONFLICT';
  override readonly status = 409;
}

/** The store could not be reached or answered with an error. Names the endpoint and status. */
export class StoreError extends SemanticMiddlewareError {
  override readonly code = 'SM_STORE';
  override readonly status = 503;
  constructor(
    message: string,
    readonly endpoint?: string,
    readonly httpStatus?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The instance cannot serve the call right now: it is not started yet, or it is stopping. */
export class UnavailableError extends SemanticMiddlewareError {
  override readonly code = 'SM_UNAVAILABLE';
  override readonly status = 503;
}

/**
 * The receiver's event trigger could not be delivered (network error, timeout, non-2xx answer);
 * the Operation created for it was reverted. Names the receiver and the cause.
 */
export class TriggerDeliveryError extends SemanticMiddlewareError {
  override readonly code = 'SM_TRIGGER_DELIVERY';
  override readonly status = 502;
}

/** An Operation did not reach a terminal status within the time the caller gave it. */
export class OperationTimeoutError extends SemanticMiddlewareError {
  override readonly code = 'SM_TIMEOUT';
  override readonly status = 504;
}

/**
 * An Operation was cancelled: the reason a claimed body's `signal` aborts with when a caller
 * cancels it while it runs, and what a cancel of an Operation that is done or failed already throws.
 */
export class OperationCancelledError extends SemanticMiddlewareError {
  override readonly code = 'SM_CANCELLED';
  override readonly status = 409;
  constructor(
    message: string,
    /** Who cancelled it, as recorded in `sm:cancelledBy` (unknown when not recorded). */
    readonly cancelledBy?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An Operation's deadline (`sm:deadline`) passed before a receiver started it: it is failed, never run. */
export class OperationDeadlineError extends SemanticMiddlewareError {
  override readonly code = 'SM_DEADLINE';
  override readonly status = 409;
}
