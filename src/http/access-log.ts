/**
 * Access logs: one pino line per request when it ends (method, URL, status, response time, trace id),
 * through pino-http, at a level of their own so that an `info` logger stays quiet about them by
 * default. A line names the caller its token stands for. Credentials never reach the log: the request's Authorization and Cookie headers and
 * the response's Set-Cookie are redacted.
 */
import type { RequestListener } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../lib/logger.js';
import { requestTrace, traceField } from '../tracing/trace-scope.js';
import { callerOf } from './token-callers.js';

/** What an access log line shows instead of a credential header. */
export const REDACTED = '[redacted]';

const REDACT_PATHS = ['req.headers.authorization', 'req.headers["proxy-authorization"]', 'req.headers.cookie', 'res.headers["set-cookie"]'];

/**
 * Wraps a request listener with access logging at `level`. When `logger` would drop lines of
 * that level (the default `debug` under an `info` logger), the listener is returned as it is:
 * no per-request cost.
 * @example createServer(withAccessLog(app, logger, 'info'))
 */
export function withAccessLog(listener: RequestListener, logger: Logger, level: string): RequestListener {
  if (level === 'silent' || !logger.isLevelEnabled(level)) return listener;
  const access = pinoHttp({
    logger: logger.child({}, { redact: { paths: REDACT_PATHS, censor: REDACTED } }),
    useLevel: level,
    quietReqLogger: true,
    customSuccessMessage: () => 'request served',
    customErrorMessage: () => 'request served',
    // Who called, by the identity its token names (never the token), and the request's trace.
    customProps: (req, res) => ({ caller: callerOf(res)?.id, ...traceField(requestTrace(req)) }),
  });
  return (req, res) => {
    access(req, res);
    listener(req, res);
  };
}
