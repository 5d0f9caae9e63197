/**
 * The trace of the work in progress, carried across awaits by an AsyncLocalStorage, so that log
 * lines and outgoing calls (event triggers, device calls) find it without every function in
 * between passing it on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceContext } from './trace-context.js';

const current = new AsyncLocalStorage<TraceContext | undefined>();

/** The trace of the work in progress, if any. */
export function currentTrace(): TraceContext | undefined {
  return current.getStore();
}

/**
 * Runs `fn` with `trace` as the current trace (undefined: none, so work started from inside a
 * traced request, such as a queue drain, does not inherit that request's trace).
 */
export function withTrace<T>(trace: TraceContext | undefined, fn: () => T): T {
  return current.run(trace, fn);
}

/**
 * A pino `mixin` that puts `traceId` on every line logged while a trace is current; lines
 * outside a trace are unchanged. The product's loggers use it; give it to a logger of your own
 * (`pino({ mixin: traceLogMixin })`) for the same lines.
 */
export function traceLogMixin(): { traceId?: string } {
  const trace = current.getStore();
  return trace === undefined ? {} : { traceId: trace.traceId };
}
