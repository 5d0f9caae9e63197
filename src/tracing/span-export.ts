/**
 * Spans of the work this process does, handed to an exporter only when one is installed
 * (OpenTelemetry, when configured; see `otlp-export.ts`). The spans are the trace context's own
 * (a {@link TraceContext} is one span), so what is exported is exactly what the logs and the
 * `traceparent` headers sent on carry. With no exporter, nothing is timed or kept.
 */
import type { TraceContext } from './trace-context.js';

/** What a span did, as the exporter receives it. */
export type SpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

/** One finished span. */
export interface FinishedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly trace: TraceContext;
  /** Wall-clock start and end, in milliseconds since the epoch (fractional). */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** Set when the work failed: what went wrong. */
  readonly error?: string;
}

/** Where finished spans go. */
export interface SpanExporter {
  export(span: FinishedSpan): void;
  /** Sends what is pending and stops. */
  shutdown(): Promise<void>;
}

let exporter: SpanExporter | undefined;

/** Installs the process's span exporter (undefined: none); the previous one is returned, not shut down. */
export function setSpanExporter(next: SpanExporter | undefined): SpanExporter | undefined {
  const previous = exporter;
  exporter = next;
  return previous;
}

/** Whether spans are exported; callers skip their span bookkeeping when not. */
export function exportingSpans(): boolean {
  return exporter !== undefined;
}

/** Wall-clock now in milliseconds, with sub-millisecond precision. */
export function spanClock(): number {
  return performance.timeOrigin + performance.now();
}

/** Hands a finished span to the exporter, if any. */
export function exportSpan(span: FinishedSpan): void {
  exporter?.export(span);
}

/**
 * Runs `fn` and exports it as the span `trace` (when exporting), named `name`, failed when `fn`
 * throws. The caller makes `trace` current if `fn` needs it.
 */
export async function timedSpan<T>(
  span: { name: string; kind: SpanKind; trace: TraceContext | undefined; attributes?: Record<string, string | number | boolean> },
  fn: () => Promise<T>,
): Promise<T> {
  const { trace } = span;
  if (exporter === undefined || trace === undefined) return fn();
  const startMs = spanClock();
  const finish = (error?: unknown) =>
    exportSpan({
      name: span.name,
      kind: span.kind,
      trace,
      startMs,
      endMs: spanClock(),
      attributes: span.attributes ?? {},
      ...(error !== undefined && { error: error instanceof Error ? error.message : 'failed' }),
    });
  try {
    const result = await fn();
    finish();
    return result;
  } catch (error) {
    finish(error ?? new Error('failed'));
    throw error;
  }
}

/** `<endpoint>/v1/traces`: where OTLP/HTTP takes spans, as `OTEL_EXPORTER_OTLP_ENDPOINT` means it. */
export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/u, '')}/v1/traces`;
}

/**
 * Loads OpenTelemetry and installs an exporter posting this process's spans to the OTLP/HTTP
 * receiver at `endpoint` (a base URL); resolves to a function that sends what is pending and
 * uninstalls it.
 */
export async function startOtlpExport(endpoint: string, resource: Record<string, string>): Promise<() => Promise<void>> {
  const { createOtlpExport } = await import('./otlp-export.js');
  const installed = createOtlpExport({ url: otlpTracesUrl(endpoint), serviceName: 'semantic-sidecar', resource });
  setSpanExporter(installed);
  return async () => {
    if (exporter === installed) setSpanExporter(undefined);
    await installed.shutdown();
  };
}
