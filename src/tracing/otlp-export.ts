/**
 * The OpenTelemetry exporter of this process's spans: OTLP over HTTP with JSON bodies, batched.
 * Loaded only when an endpoint is configured (see {@link loadOtlpExport}); with none, no
 * OpenTelemetry module is loaded at all.
 */
import { SpanKind as OtelKind, SpanStatusCode, TraceFlags, type HrTime } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { FinishedSpan, SpanExporter, SpanKind } from './span-export.js';

/** Options of {@link createOtlpExport}. */
export interface OtlpExportOptions {
  /** The full URL spans are posted to, e.g. `http://collector:4318/v1/traces`. */
  url: string;
  /** `service.name` of the exported resource. */
  serviceName: string;
  /** Further resource attributes (`service.version`, `service.instance.id`, ...). */
  resource?: Record<string, string>;
}

const KINDS: Record<SpanKind, OtelKind> = {
  server: OtelKind.SERVER,
  client: OtelKind.CLIENT,
  producer: OtelKind.PRODUCER,
  consumer: OtelKind.CONSUMER,
  internal: OtelKind.INTERNAL,
};

const SCOPE = { name: 'semantic-middleware' };

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** An exporter posting the spans to `url`, in batches (at most a few seconds late). */
export function createOtlpExport(options: OtlpExportOptions): SpanExporter {
  const resource = resourceFromAttributes({ 'service.name': options.serviceName, ...options.resource });
  // JSON, not protobuf: readable on the wire, and every OTLP/HTTP receiver accepts it.
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url, headers: {} }));
  const readable = (span: FinishedSpan): ReadableSpan => {
    const flags = parseInt(span.trace.flags, 16) & TraceFlags.SAMPLED;
    const context = { traceId: span.trace.traceId, spanId: span.trace.spanId, traceFlags: flags };
    const parent = span.trace.parentSpanId;
    return {
      name: span.name,
      kind: KINDS[span.kind],
      spanContext: () => context,
      ...(parent !== undefined && {
        parentSpanContext: { traceId: span.trace.traceId, spanId: parent, traceFlags: flags, isRemote: true },
      }),
      startTime: hrTime(span.startMs),
      endTime: hrTime(span.endMs),
      duration: hrTime(span.endMs - span.startMs),
      status: span.error === undefined ? { code: SpanStatusCode.OK } : { code: SpanStatusCode.ERROR, message: span.error },
      attributes: { ...span.attributes },
      links: [],
      events: [],
      ended: true,
      resource,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  };
  return {
    // An unsampled span (flags bit 0 clear) is not exported, as the caller asked.
    export: (span) => {
      if ((parseInt(span.trace.flags, 16) & TraceFlags.SAMPLED) !== 0) processor.onEnd(readable(span));
    },
    shutdown: () => processor.shutdown(),
  };
}
