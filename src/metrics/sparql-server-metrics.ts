import { Registry } from 'prom-client';
import { exposition, type MetricsText } from './exposition.js';
import { METRICS } from './names.js';
import { counterOf, histogramOf } from './store-metrics.js';

/**
 * The metrics of one `store serve` endpoint, on a registry of its own: the SPARQL requests it
 * served as store requests, by kind (`query`, `update`, or `request` when refused before its
 * kind was read) and outcome (`ok` below status 400, else `error`), with their latency.
 */
export class SparqlServerMetrics {
  readonly registry = new Registry();
  readonly #requests = counterOf(this.registry, METRICS.storeRequests);
  readonly #duration = histogramOf(this.registry, METRICS.storeRequestDuration);

  /** Counts one answered request. */
  observe(kind: string, status: number, seconds: number): void {
    this.#requests.inc({ kind, outcome: status < 400 ? 'ok' : 'error' });
    this.#duration.observe({ kind }, seconds);
  }

  /** The `/metrics` text: the endpoint's metrics and the process metrics. */
  text(): Promise<MetricsText> {
    return exposition(this.registry);
  }
}
