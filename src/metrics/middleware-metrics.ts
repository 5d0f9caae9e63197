import { performance } from 'node:perf_hooks';
import { Gauge, Registry } from 'prom-client';
import { MeasuredStore } from '../store/measured-store.js';
import { isFailureKind } from '../vocab/status.js';
import type { MiddlewareContext } from '../middleware/runtime/context.js';
import { Mode } from '../middleware/runtime/mode.js';
import { exposition, type MetricsText } from './exposition.js';
import { METRICS } from './names.js';
import { isTraceAware, traceAware } from '../tracing/trace-scope.js';
import { counterOf, countStoreRequests, histogramOf } from './store-metrics.js';

/** The direct calls of the HTTP surface that are measured. */
export type SurfaceCall = 'workflow' | 'state';

// Claims whose terminal status was never seen (lost with a store outage) are forgotten past this
// many, so the claim-time table stays bounded.
const MAX_TRACKED_CLAIMS = 10_000;

/**
 * The metrics of one middleware instance, on a registry of its own (never prom-client's global
 * one), so that several instances in one process count apart. Most figures come from the
 * instance's activity records (see {@link MiddlewareMetrics.observe}): the activity kinds are the
 * instance's vocabulary of events, and counting them in one place needs no hook in each module.
 * Queue depth and device health are read when scraped. Store requests are counted when the
 * middleware's OGM store is a {@link MeasuredStore} (a sidecar's is).
 */
export class MiddlewareMetrics {
  readonly registry = new Registry();
  readonly #heartbeats = counterOf(this.registry, METRICS.heartbeats);
  readonly #operations = counterOf(this.registry, METRICS.operations);
  readonly #operationDuration = histogramOf(this.registry, METRICS.operationDuration);
  readonly #calls = counterOf(this.registry, METRICS.calls);
  readonly #callDuration = histogramOf(this.registry, METRICS.callDuration);
  readonly #sweeps = counterOf(this.registry, METRICS.sweeps);
  readonly #sweepDuration = histogramOf(this.registry, METRICS.sweepDuration);
  readonly #swept = counterOf(this.registry, METRICS.sweptServices);
  /** Operation IRI -> when it was claimed (performance.now()), until its terminal record. */
  readonly #claimedAt = new Map<string, number>();
  /** `call/name` -> its measured handler. */
  readonly #wrapped = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  readonly #unobserveStore: () => void;

  constructor(ctx: MiddlewareContext) {
    const { store } = ctx.ogm;
    this.#unobserveStore = store instanceof MeasuredStore ? countStoreRequests(this.registry, store) : () => undefined;
    this.#gauge(METRICS.queueDepth, () => ctx.queue.size);
    this.#gauge(METRICS.inFlight, () => ctx.queue.flights().length);
    if (ctx.options.mode === Mode.RESOURCE) {
      this.#gauge(METRICS.deviceUp, () => Number(ctx.device.available));
      this.#gauge(METRICS.connectorsUp, () => Number(ctx.connectors.connected()));
    }
  }

  /** Counts one activity record of the instance (see ActivityKind); kinds it does not measure are ignored. */
  observe(kind: string, details: Record<string, unknown>): void {
    const operation = typeof details.operation === 'string' ? details.operation : undefined;
    switch (kind) {
      case 'heartbeat':
        this.#heartbeats.inc({ outcome: 'written' });
        break;
      case 'heartbeat-failed':
        this.#heartbeats.inc({ outcome: 'failed' });
        break;
      case 'claim':
        if (operation === undefined) break;
        if (this.#claimedAt.size >= MAX_TRACKED_CLAIMS) this.#claimedAt.clear();
        this.#claimedAt.set(operation, performance.now());
        break;
      case 'done':
      case 'failed': {
        const failureKind = kind === 'done' ? 'none' : isFailureKind(details.kind) ? details.kind : 'unknown';
        this.#operations.inc({ outcome: kind, failure_kind: failureKind });
        const claimed = operation === undefined ? undefined : this.#claimedAt.get(operation);
        if (claimed === undefined) break;
        this.#claimedAt.delete(operation!);
        this.#operationDuration.observe({ outcome: kind }, (performance.now() - claimed) / 1000);
        break;
      }
    }
  }

  /** Runs one sweep, counting it and timing it by outcome; returns (or throws) what the sweep does. */
  async timeSweep(run: () => Promise<string[]>): Promise<string[]> {
    const started = performance.now();
    const end = (outcome: string): void => {
      this.#sweepDuration.observe({ outcome }, (performance.now() - started) / 1000);
      this.#sweeps.inc({ outcome });
    };
    try {
      const swept = await run();
      end('done');
      this.#swept.inc({}, swept.length);
      return swept;
    } catch (error) {
      end('failed');
      throw error;
    }
  }

  /**
   * `handler` measured as the direct `call` named `name` (a registered, so configured, name):
   * counted by outcome and timed, its answer or error passed on unchanged. Wrapped once per name,
   * so the hot path allocates nothing (a name's handler never changes once the instance started).
   */
  measured<A extends unknown[]>(call: SurfaceCall, name: string, handler: (...args: A) => unknown): (...args: A) => Promise<unknown> {
    const key = `${call}/${name}`;
    let wrapped = this.#wrapped.get(key);
    if (wrapped === undefined) {
      wrapped = this.#wrap(call, name, handler as (...args: unknown[]) => unknown);
      // It calls the handler synchronously, so it takes the trace as the handler does.
      if (isTraceAware(handler)) traceAware(wrapped);
      this.#wrapped.set(key, wrapped);
    }
    return wrapped;
  }

  #wrap(call: SurfaceCall, name: string, handler: (...args: unknown[]) => unknown): (...args: unknown[]) => Promise<unknown> {
    // Series looked up once per name: a call only adds to them.
    const timed = this.#callDuration.series({ call, name });
    const ok = this.#calls.series({ call, name, outcome: 'ok' });
    const failed = this.#calls.series({ call, name, outcome: 'error' });
    return async (...args) => {
      const started = performance.now();
      let counted = failed;
      try {
        const answer = await handler(...args);
        counted = ok;
        return answer;
      } finally {
        timed.observe((performance.now() - started) / 1000);
        counted.inc();
      }
    };
  }

  /** The `/metrics` text: this instance's metrics and the process metrics. */
  text(): Promise<MetricsText> {
    return exposition(this.registry);
  }

  /** Stops counting the store's requests (the store may outlive the instance). Idempotent. */
  close(): void {
    this.#unobserveStore();
    this.#claimedAt.clear();
  }

  #gauge(definition: { name: string; help: string }, read: () => number): void {
    new Gauge({
      ...definition,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}
