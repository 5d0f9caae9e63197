/**
 * The northbound edge of a trace: every request a server takes runs under the trace its
 * `traceparent` header names (as a child span), or under a new trace when it has none or an
 * invalid one.
 */
import type { RequestListener } from 'node:http';
import { TRACEPARENT_HEADER, traceFromHeader } from './trace-context.js';
import { withTrace } from './trace-scope.js';

/**
 * Wraps a server's request listener so that the request's work (its log lines, the event
 * triggers and device calls it makes) carries the request's trace.
 * @example createServer(tracedListener(app))
 */
export function tracedListener(listener: RequestListener): RequestListener {
  return (req, res) => withTrace(traceFromHeader(req.headers[TRACEPARENT_HEADER]), () => listener(req, res));
}
