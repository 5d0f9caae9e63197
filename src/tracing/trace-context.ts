/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` header, parsed
 * strictly and written. A header that does not follow the spec is ignored (a new trace starts);
 * it never fails a request.
 */
import { randomHex as poolHex } from '../lib/random-hex.js';

/** Where this process is in a trace: the trace id, its own span (parent) id and the trace flags. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero: the span of this hop, sent on as the callee's parent id. */
  readonly spanId: string;
  /** 2 hex digits; bit 0 is `sampled`. */
  readonly flags: string;
  /** The span this one continues (the caller's, or the enclosing work's), when there is one. */
  readonly parentSpanId?: string;
}

/** The name of the header, as Node gives request headers (lowercase). */
export const TRACEPARENT_HEADER = 'traceparent';

// Version 00 exactly: 00-<32 hex>-<16 hex>-<2 hex>, lowercase, nothing after it.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The caller's context from a `traceparent` value, or undefined when it is absent or invalid (all-zero ids included). */
export function parseTraceparent(value: unknown): TraceContext | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match || match[1] === ZERO_TRACE || match[2] === ZERO_SPAN) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, flags: match[3]! };
}

/** `00-<trace id>-<span id>-<flags>`: what a callee receives. */
export function formatTraceparent(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

function randomHex(bytes: number, zero: string): string {
  for (;;) {
    const hex = poolHex(bytes);
    if (hex !== zero) return hex;
  }
}

/** A new trace (random ids, sampled). */
export function newTrace(): TraceContext {
  return { traceId: randomHex(16, ZERO_TRACE), spanId: randomHex(8, ZERO_SPAN), flags: '01' };
}

/** A new span of the same trace: the work this hop does on behalf of `parent`. */
export function childSpan(parent: TraceContext): TraceContext {
  return { traceId: parent.traceId, spanId: randomHex(8, ZERO_SPAN), flags: parent.flags, parentSpanId: parent.spanId };
}

/**
 * The context of work started by a request with this `traceparent` header: a child span of the
 * caller's trace, or a new trace when the header is absent or invalid.
 * @example traceFromHeader(req.headers.traceparent).traceId
 */
export function traceFromHeader(value: unknown): TraceContext {
  const parent = parseTraceparent(value);
  return parent ? childSpan(parent) : newTrace();
}
