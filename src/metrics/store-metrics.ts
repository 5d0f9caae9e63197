import type { Registry } from 'prom-client';
import type { MeasuredStore, StoreObserver } from '../store/measured-store.js';
import { LATENCY_BUCKETS, METRICS, type MetricDefinition } from './names.js';
import { SeriesCounter, SeriesHistogram } from './series-metrics.js';

/** A counter of `definition` on `registry`. */
export function counterOf(registry: Registry, definition: MetricDefinition): SeriesCounter {
  return new SeriesCounter(registry, definition);
}

/** A latency histogram of `definition` on `registry`, with {@link LATENCY_BUCKETS}. */
export function histogramOf(registry: Registry, definition: MetricDefinition): SeriesHistogram {
  return new SeriesHistogram(registry, definition, LATENCY_BUCKETS);
}

/**
 * Counts the requests of `store` on `registry` (requests by kind and outcome, latency by kind)
 * until the returned function is called.
 */
export function countStoreRequests(registry: Registry, store: MeasuredStore): () => void {
  const requests = counterOf(registry, METRICS.storeRequests);
  const duration = histogramOf(registry, METRICS.storeRequestDuration);
  const observer: StoreObserver = (kind, outcome, seconds) => {
    requests.inc({ kind, outcome });
    duration.observe({ kind }, seconds);
  };
  return store.observe(observer);
}
