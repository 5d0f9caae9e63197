/**
 * The trace of the work in progress. The product's own code passes it explicitly (a served
 * request keeps it with the request, a queued Operation with its entry) and hands it to the
 * functions it calls synchronously; only code of the program's own (a registered workflow, state
 * getter, callback or request body) runs under an AsyncLocalStorage, so that its log lines and
 * the product calls it makes find the trace across its awaits. On Node 20 an AsyncLocalStorage
 * once entered turns on a promise hook for every promise of the process: measured, 12-20% more
 * CPU for a proxied workflow call, and 15% more for an Operation dispatched within one process.
 * A sidecar, whose handlers are all the product's, never enters it.
 */
import type { IncomingMessage } from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { TraceContext } from './trace-context.js';

const current = new AsyncLocalStorage<TraceContext | undefined>();
// The trace handed to a product function for the synchronous part of its call (handTrace).
let handed: TraceContext | undefined;
// Product functions that take the trace synchronously when called (traceAware).
const aware = new WeakSet<object>();
// Loggers whose bindings carry a traceId already (traceLogger): the mixin adds none.
const tracedLoggers = new WeakSet<object>();
// A served request's trace, on the request itself: a WeakMap entry per request costs the
// garbage collector more (ephemerons) than a property.
const REQUEST_TRACE = Symbol('semantic-middleware.trace');
type TracedRequest = IncomingMessage & { [REQUEST_TRACE]?: TraceContext };
// Whether a trace was ever carried across awaits in this process (see carriedTraces).
let carried = false;

/** The trace handed to the running call, else the one carried across awaits, if any. */
export function currentTrace(): TraceContext | undefined {
  return handed ?? current.getStore();
}

/**
 * Runs `fn` with `trace` as the current trace across its awaits (undefined: none, so work started
 * from inside a traced call, such as a queue drain, does not inherit that call's trace).
 */
export function withTrace<T>(trace: TraceContext | undefined, fn: () => T): T {
  if (trace !== undefined) carried = true;
  return current.run(trace, fn);
}

/**
 * Calls `fn(...args)` with `trace` current for the synchronous part of the call only: for product
 * code that reads the trace before its first await and passes it on from there.
 */
export function handTrace<A extends unknown[], R>(trace: TraceContext | undefined, fn: (...args: A) => R, ...args: A): R {
  const before = handed;
  handed = trace;
  try {
    return fn(...args);
  } finally {
    handed = before;
  }
}

/** Marks a product function that reads the current trace synchronously when called (see callInTrace). */
export function traceAware<F extends (...args: never[]) => unknown>(fn: F): F {
  aware.add(fn);
  return fn;
}

/** Whether `fn` was marked with {@link traceAware}. */
export function isTraceAware(fn: (...args: never[]) => unknown): boolean {
  return aware.has(fn);
}

/**
 * Calls a registered function (a workflow, state getter, callback or request body) in `trace`:
 * handed over when it is the product's own, else carried across its awaits.
 */
export function callInTrace<A extends unknown[], R>(trace: TraceContext | undefined, fn: (...args: A) => R, ...args: A): R {
  if (aware.has(fn)) return handTrace(trace, fn, ...args);
  if (trace !== undefined) carried = true;
  return current.run(trace, fn, ...args);
}

/** Whether this process ever carried a trace across awaits, which costs every promise after it (for tests). */
export function carriedTraces(): boolean {
  return carried;
}

/** Keeps `trace` as the trace of a served request (see requestTrace). */
export function setRequestTrace(req: TracedRequest, trace: TraceContext): void {
  req[REQUEST_TRACE] = trace;
}

/** The trace a served request runs under (set by the server's traced listener), if any. */
export function requestTrace(req: TracedRequest | undefined): TraceContext | undefined {
  return req?.[REQUEST_TRACE];
}

/** The log field naming `trace` (none without one), to spread into a line's object. */
export function traceField(trace: TraceContext | undefined): { traceId?: string } {
  return trace === undefined ? {} : { traceId: trace.traceId };
}

/** A child of `log` with `bindings` and `trace`'s id (when there is a trace) on every line. */
export function traceLogger(log: Logger, trace: TraceContext | undefined, bindings: Record<string, unknown>): Logger {
  if (trace === undefined) return log.child(bindings);
  const child = log.child(Object.assign({}, bindings, { traceId: trace.traceId }));
  tracedLoggers.add(child);
  return child;
}

/**
 * A pino `mixin` that puts `traceId` on every line logged while a trace is current; lines
 * outside a trace are unchanged. The product's loggers use it; give it to a logger of your own
 * (`pino({ mixin: traceLogMixin })`) for the same lines. pino passes the line's object, its level
 * and the logger: a logger that binds a `traceId` of its own gets none from here.
 */
export function traceLogMixin(_merge?: object, _level?: number, logger?: object): { traceId?: string } {
  if (logger !== undefined && tracedLoggers.has(logger)) return {};
  return traceField(currentTrace());
}
