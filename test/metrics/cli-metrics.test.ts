import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { sampleValue, scrapeMetrics, type Family } from '../support/prometheus-text.js';
import { startStore, startWatchdog } from '../e2e/support/daemons.js';

const TOKEN = 'cli-metrics-token-0123456789';

function scrape(url: string, token?: string): Promise<Map<string, Family>> {
  return scrapeMetrics(url, token === undefined ? {} : { authorization: `Bearer ${token}` });
}

describe('/metrics of the watchdog and store serve processes', () => {
  const group = new ProcessGroup();
  let dir: string;

  beforeAll(async () => {
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'sm-metrics-'));
  });
  afterAll(async () => {
    await group.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("should count the watchdog's sweeps and store requests, and the requests store serve answered", async () => {
    const store = await startStore(group, ['--memory', '--provision']);
    const watchdog = await startWatchdog(group, ['--store', store.url, '--log-level', 'warn'], {
      cwd: dir,
      env: { SIDECAR_HTTP_TOKEN: TOKEN },
    });
    expect((await fetch(`${watchdog.address}/metrics`)).status).toBe(401);
    const sweeps = (f: Map<string, Family>): number => sampleValue(f, 'semantic_middleware_sweeps_total', { outcome: 'done' });
    let families = await scrape(`${watchdog.address}/metrics`, TOKEN);
    for (let i = 0; i < 100 && sweeps(families) < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      families = await scrape(`${watchdog.address}/metrics`, TOKEN);
    }
    expect(sweeps(families)).toBeGreaterThanOrEqual(1);
    expect(sampleValue(families, 'semantic_middleware_store_requests_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(families.has('process_resident_memory_bytes')).toBe(true);

    const served = await scrape(store.url.replace(/\/sparql$/, '/metrics'));
    expect(sampleValue(served, 'semantic_middleware_store_requests_total', { kind: 'query', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(served, 'semantic_middleware_store_request_duration_seconds_count')).toBeGreaterThanOrEqual(1);
  }, 90_000);
});
