/**
 * The northbound edge of a trace: every request a server takes runs under the trace its
 * `traceparent` header names (as a child span), or under a new trace when it has none or an
 * invalid one. The trace is kept with the request (requestTrace), where its routes find it.
 */
import type { RequestListener } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportingSpans, exportSpan, spanClock } from './span-export.js';
import { TRACEPARENT_HEADER, traceFromHeader, type TraceContext } from './trace-context.js';
import { handTrace, setRequestTrace } from './trace-scope.js';

/**
 * Wraps a server's request listener so that the request's work (its log lines, the event
 * triggers and device calls it makes) carries the request's trace: kept with the request for its
 * routes, and current for the listener's synchronous part.
 * @example createServer(tracedListener(app))
 */
export function tracedListener(listener: RequestListener): RequestListener {
  return (req, res) => {
    const trace = traceFromHeader(req.headers[TRACEPARENT_HEADER]);
    if (exportingSpans()) exportWhenDone(req, res, trace);
    setRequestTrace(req, trace);
    handTrace(trace, listener, req, res);
  };
}

// The request as a server span, exported once the response is sent (or the connection closed).
// Named by the route express matched (`POST /workflows/:name/execute`), not the path, so that
// names stay few; a request no route took is named by its method alone.
function exportWhenDone(req: IncomingMessage, res: ServerResponse, trace: TraceContext): void {
  const startMs = spanClock();
  res.once('close', () => {
    const { route, baseUrl } = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
    const method = req.method ?? 'GET';
    const name = typeof route?.path === 'string' ? `${method} ${baseUrl ?? ''}${route.path}` : method;
    exportSpan({
      name,
      kind: 'server',
      trace,
      startMs,
      endMs: spanClock(),
      attributes: {
        'http.request.method': method,
        'url.path': (req.url ?? '/').split('?')[0]!,
        'http.response.status_code': res.statusCode,
      },
      ...(res.statusCode >= 500 && { error: `answered ${res.statusCode}` }),
    });
  });
}
