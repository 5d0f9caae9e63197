/**
 * The last handlers of every JSON server: the 405 behind a path's routes, the 404 for whatever no
 * route matched, and the one error middleware that answers every error `{"detail": "..."}` with its status (FastAPI's form).
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DeviceError } from '../device/errors.js';
import type { Logger } from '../lib/logger.js';
import { requestTrace, traceField } from '../tracing/trace-scope.js';
import { preview } from '../iri/validate.js';
import { errorAnswer, HttpError } from './http-error.js';
import { writeJson } from './json-response.js';
import { callerOf } from './token-callers.js';

/** Answers 404 `{"detail": "no route for GET \"/x\""}` for whatever no route matched. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, `no route for ${req.method} ${preview(req.path)}`));
};

/**
 * The handler behind a path's routes that answers every other method 405 with an `Allow` header
 * (RFC 9110 §15.5.6), as FastAPI does, where falling through to {@link notFound} would say the
 * path does not exist. A GET route takes HEAD too (express answers HEAD with it).
 * @example app.post('/operations', handler); app.all('/operations', methodNotAllowed('POST'));
 */
export function methodNotAllowed(...methods: readonly string[]): RequestHandler {
  const allowed = methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : methods;
  const allow = allowed.join(', ');
  const use = methods.length === 1 ? methods[0]! : `${methods.slice(0, -1).join(', ')} or ${methods.at(-1)!}`;
  return (req, res, next) => {
    res.setHeader('Allow', allow);
    next(new HttpError(405, `method ${req.method} is not allowed on ${preview(req.path)}: use ${use}`));
  };
}

/**
 * What the log says of an expected failure: the error as pino's serializer shows it (type,
 * message, code, own fields) but without a stack, its own or its cause's: it is no bug.
 */
export function withoutStack(err: unknown): unknown {
  if (typeof err !== 'object' || err === null) return err;
  return Object.create(err, { stack: { value: undefined }, cause: { value: undefined } }) as unknown;
}

/**
 * Answers a failed request with {@link errorAnswer}. A 5xx is logged at error level: a fault
 * with the whole error (stack included, since its message is not served), the product's own
 * failures with their message only; a device that failed (unreachable, timed out, answered an
 * error) is an expected condition of the plant, logged at warn. A 4xx is logged at debug. A failure after the headers went
 * out (a stream) can only end the connection.
 * @example answerError(log, new TypeError('boom'), { method: 'POST', path: '/x' }, res); // 500 "Internal Server Error"
 */
export function answerError(log: Logger, err: unknown, request: { method: string; path: string }, res: ServerResponse): void {
  const { status, detail, expected } = errorAnswer(err);
  if (status >= 500) {
    const level = err instanceof DeviceError ? 'warn' : 'error';
    const caller = callerOf(res)?.id;
    const traced = traceField(requestTrace(res.req));
    log[level](
      { err: expected ? withoutStack(err) : err, method: request.method, path: request.path, status, caller, ...traced },
      'request failed',
    );
  } else if (log.isLevelEnabled('debug')) {
    const traced = traceField(requestTrace(res.req));
    log.debug({ method: request.method, path: request.path, status, detail, caller: callerOf(res)?.id, ...traced }, 'request refused');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  writeJson(res, status, { detail });
}

/** The error middleware: every error through {@link answerError}. */
export function createErrorHandler(log: Logger): ErrorRequestHandler {
  // express tells an error handler by its four parameters, so the unused `next` stays.
  return (err: unknown, req, res, _next) => answerError(log, err, req, res);
}
