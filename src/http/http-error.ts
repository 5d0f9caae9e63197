/**
 * Errors of an HTTP server itself (a missing field, a wrong content type, an unknown route) and
 * the one mapping from any thrown value to the status and `{"detail": "..."}` body served.
 */
import { STATUS_CODES } from 'node:http';
import { SemanticMiddlewareError } from '../errors.js';

/**
 * A request a server refuses before the product's code sees it; `status` is the HTTP status.
 * @example throw new HttpError(422, 'operation_iri is missing from the body');
 */
export class HttpError extends SemanticMiddlewareError {
  override readonly code: string = 'SM_HTTP';
  override readonly status: number;

  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}

/** The status and body an error is answered with. */
export interface ErrorAnswer {
  status: number;
  detail: string;
  /**
   * True when the error is one the product expects and describes itself (its own errors, a 4xx
   * refusal): logged without a stack. False for a fault: the detail is generic and the error,
   * stack included, goes to the log.
   */
  expected: boolean;
}

function httpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599 ? value : undefined;
}

/**
 * Maps a thrown value to its answer, the way FastAPI answers `HTTPException` and any other
 * exception:
 * - the product's own errors ({@link SemanticMiddlewareError}: typed errors, HttpError, device
 *   errors) keep their status and their message, which is written to be shown;
 * - another error with a 4xx `status` (or `statusCode`), as express's router raises for a path
 *   it cannot decode, keeps both too: it describes the client's request (http-errors' `expose`);
 * - anything else is a fault: 500 (or its own 5xx status) with the status's reason phrase
 *   ("Internal Server Error") as detail, so no internal message, path or secret reaches a client.
 * @example errorAnswer(new TypeError('x is undefined')) // { status: 500, detail: 'Internal Server Error', expected: false }
 */
export function errorAnswer(err: unknown): ErrorAnswer {
  const fields = (typeof err === 'object' && err !== null ? err : {}) as Record<string, unknown>;
  const status = httpStatus(fields.status) ?? httpStatus(fields.statusCode);
  if (err instanceof SemanticMiddlewareError) {
    return { status: status ?? 500, detail: err.message || `${err.name} (no message)`, expected: true };
  }
  if (err instanceof Error && status !== undefined && status < 500) {
    return { status, detail: err.message || (STATUS_CODES[status] ?? 'Client Error'), expected: true };
  }
  const fault = status ?? 500;
  return { status: fault, detail: STATUS_CODES[fault] ?? 'Internal Server Error', expected: false };
}
