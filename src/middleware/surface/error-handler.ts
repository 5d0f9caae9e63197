/**
 * The surface's last two handlers: the JSON 404 for every unmatched request, and the one error
 * middleware that turns every error into `{"detail": "..."}` with its status.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../lib/logger.js';
import { preview } from '../../iri/validate.js';
import { errorAnswer, HttpError } from './http-error.js';
import { writeJson } from './json-values.js';

/** Answers 404 `{"detail": "no route for GET \"/x\""}` for whatever no route matched. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, `no route for ${req.method} ${preview(req.path)}`));
};

/**
 * Answers a failed request with {@link errorAnswer}; logs 5xx at error level with the error, 4xx
 * at debug. A failure after the headers went out (a stream) can only end the connection.
 */
export function answerError(log: Logger, err: unknown, request: { method: string; path: string }, res: ServerResponse): void {
  const { status, detail } = errorAnswer(err);
  if (status >= 500) {
    log.error({ err, method: request.method, path: request.path, status }, 'request failed');
  } else if (log.isLevelEnabled('debug')) {
    log.debug({ method: request.method, path: request.path, status, detail }, 'request refused');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  writeJson(res, status, { detail });
}

/** The error middleware: every error through {@link answerError}. */
export function createErrorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => answerError(log, err, req, res);
}
