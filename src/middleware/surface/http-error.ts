/**
 * Errors of the HTTP surface itself (a missing field, a wrong content type, an unknown route)
 * and the one mapping from any thrown value to the status and `{"detail": "..."}` body served.
 */
import { RuntimeError, SemanticMiddlewareError, TransitionConflictError } from '../../errors.js';

/**
 * A request the surface refuses before the middleware sees it; `status` is the HTTP status.
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
}

function httpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599 ? value : undefined;
}

// body-parser tags its errors with `type`; its messages are terse or name internals.
function bodyParserDetail(err: Record<string, unknown>): string | undefined {
  switch (err.type) {
    case 'entity.too.large':
      return `the request body is larger than the limit of ${String(err.limit)} bytes`;
    case 'entity.parse.failed':
      return `the request body is not valid JSON: ${String(err.message)}`;
    case 'charset.unsupported':
      return `the request body's charset ${JSON.stringify(err.charset)} is not supported: send JSON as UTF-8`;
    case 'encoding.unsupported':
      return `the request body's content encoding ${JSON.stringify(err.encoding)} is not supported`;
    case 'request.aborted':
      return 'the request body was aborted by the client';
    case 'request.size.invalid':
      return 'the request body did not match its Content-Length';
    default:
      return undefined;
  }
}

/**
 * Maps a thrown value to its answer: a numeric `status` (or `statusCode`) in 400-599 is kept
 * (the product's typed errors, express's body parser, a device proxy's 502/504);
 * RuntimeError and TransitionConflictError are 409; anything else is 500. The detail is the
 * error's message, as the Python reference answers; stacks are never served.
 */
export function errorAnswer(err: unknown): ErrorAnswer {
  if (!(err instanceof Error)) {
    return { status: 500, detail: `internal error: a non-Error value was thrown (${typeof err})` };
  }
  const fields = err as unknown as Record<string, unknown>;
  let status = httpStatus(fields.status) ?? httpStatus(fields.statusCode);
  if (status === undefined) {
    status = err instanceof RuntimeError || err instanceof TransitionConflictError ? 409 : 500;
  }
  const detail = bodyParserDetail(fields) ?? (err.message || `${err.name} (no message)`);
  return { status, detail };
}
