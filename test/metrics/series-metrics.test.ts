import { describe, expect, it } from '@jest/globals';
import { Counter, Histogram, Registry } from 'prom-client';
import { ValueError } from '../../src/errors.js';
import { LATENCY_BUCKETS, type MetricDefinition } from '../../src/metrics/names.js';
import { SeriesCounter, SeriesHistogram } from '../../src/metrics/series-metrics.js';
import { parsePrometheusText, type Family } from '../support/prometheus-text.js';

const COUNTER: MetricDefinition = { name: 't_calls_total', help: 'Calls, by call and outcome.', labelNames: ['call', 'outcome'] };
const HISTOGRAM: MetricDefinition = { name: 't_call_seconds', help: 'Call time, by call.', labelNames: ['call'] };

/** The samples of a family, sorted, with label order ignored: what a scraper reads. */
function samplesOf(family: Family | undefined): string[] {
  const key = (labels: Record<string, string>) =>
    Object.entries(labels)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  return (family?.samples ?? []).map((s) => `${s.name}{${key(s.labels)}} ${s.value}`).sort();
}

describe('series metrics', () => {
  it('should expose the same families and samples as prom-client for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const counter = new SeriesCounter(ours, COUNTER);
    const histogram = new SeriesHistogram(ours, HISTOGRAM, LATENCY_BUCKETS);
    const promCounter = new Counter({ ...COUNTER, labelNames: [...COUNTER.labelNames], registers: [theirs] });
    const promHistogram = new Histogram({
      ...HISTOGRAM,
      labelNames: [...HISTOGRAM.labelNames],
      buckets: [...LATENCY_BUCKETS],
      registers: [theirs],
    });
    const open = counter.series({ call: 'open', outcome: 'ok' });
    const timed = histogram.series({ call: 'open' });
    const values = [0, 0.0004, 0.001, 0.0011, 0.3, 59.9, 60, 61, 1e6];
    for (const value of values) {
      open.inc();
      promCounter.inc({ call: 'open', outcome: 'ok' });
      timed.observe(value);
      promHistogram.observe({ call: 'open' }, value);
    }
    counter.inc({ call: 'close', outcome: 'error' }, 3);
    promCounter.inc({ call: 'close', outcome: 'error' }, 3);
    histogram.observe({ call: 'close' }, 0.02);
    promHistogram.observe({ call: 'close' }, 0.02);

    const [mine, prom] = [parsePrometheusText(await ours.metrics()), parsePrometheusText(await theirs.metrics())];
    for (const name of [COUNTER.name, HISTOGRAM.name]) {
      expect({ type: mine.get(name)?.type, help: mine.get(name)?.help }).toEqual({
        type: prom.get(name)?.type,
        help: prom.get(name)?.help,
      });
      expect(samplesOf(mine.get(name))).toEqual(samplesOf(prom.get(name)));
    }
    expect(samplesOf(mine.get(HISTOGRAM.name))).toContain(`t_call_seconds_bucket{call=open,le=+Inf} ${values.length}`);
  });

  it("should refuse labels that are not the metric's, creating no series", async () => {
    const registry = new Registry();
    const counter = new SeriesCounter(registry, COUNTER);
    expect(() => counter.series({ call: 'open' })).toThrow(ValueError);
    expect(() => counter.inc({ call: 'open', outcome: 'ok', extra: 'x' })).toThrow('takes the labels ["call","outcome"]');
    expect(() => counter.inc({ call: 'open', outcome: 1 as unknown as string })).toThrow(ValueError);
    expect(parsePrometheusText(await registry.metrics()).get(COUNTER.name)?.samples ?? []).toEqual([]);
  });

  it('should share one series between its looked-up handle and calls by labels, and forget it on reset', async () => {
    const registry = new Registry();
    const counter = new SeriesCounter(registry, COUNTER);
    const handle = counter.series({ outcome: 'ok', call: 'open' });
    handle.inc(2);
    counter.inc({ call: 'open', outcome: 'ok' });
    expect(samplesOf(parsePrometheusText(await registry.metrics()).get(COUNTER.name))).toEqual(['t_calls_total{call=open,outcome=ok} 3']);
    registry.resetMetrics();
    counter.inc({ call: 'open', outcome: 'ok' });
    expect(samplesOf(parsePrometheusText(await registry.metrics()).get(COUNTER.name))).toEqual(['t_calls_total{call=open,outcome=ok} 1']);
  });

  it('should keep label sets apart whose values run together', async () => {
    const registry = new Registry();
    const counter = new SeriesCounter(registry, COUNTER);
    for (const [call, outcome] of [
      ['ab', 'c'],
      ['a', 'bc'],
      ['a\u0000', 'b'],
      ['a', '\u0000b'],
    ])
      counter.inc({ call: call!, outcome: outcome! });
    const samples = parsePrometheusText(await registry.metrics()).get(COUNTER.name)?.samples ?? [];
    expect(samples.map((s) => s.value)).toEqual([1, 1, 1, 1]);
  });

  it('should refuse a second metric of the same name on one registry', () => {
    const registry = new Registry();
    new SeriesCounter(registry, COUNTER);
    expect(() => new SeriesHistogram(registry, COUNTER, LATENCY_BUCKETS)).toThrow('already been registered');
  });
});
