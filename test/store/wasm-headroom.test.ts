import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { buildCli, ROOT } from '../cli/support/cli-process.js';

/**
 * A process that loads a store until Oxigraph's memory has grown by 72 MiB (where, measured,
 * V8 collects the whole heap at nearly every growth), then sends 4,000 updates of 20 new
 * triples each (some 20 MiB more) and prints the full collections and headroom reserves
 * meanwhile. With `raw` it sends the same writes straight to an Oxigraph `Store`, the reference.
 */
const GROWTH = `
  const { PerformanceObserver } = await import('node:perf_hooks');
  const { getHeapStatistics } = await import('node:v8');
  const { Store } = await import('oxigraph');
  const { openEmbeddedStore } = await import('./dist/store/embedded-store.js');
  const { wasmHeadroomReserves } = await import('./dist/store/wasm-headroom.js');
  const raw = process.argv.includes('raw');
  let full = 0;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind === 4) full += 1; }).observe({ entryTypes: ['gc'] });
  const store = raw ? new Store() : await openEmbeddedStore();
  const pad = 'x'.repeat(200);
  const external = () => getHeapStatistics().external_memory;
  const start = external();
  for (let chunk = 0; external() - start < 72 * 1048576; chunk++) {
    const lines = Array.from({ length: 10_000 }, (_, j) => '<urn:s:' + chunk + ':' + j + '> <urn:p> "' + pad + chunk + ':' + j + '" <urn:g> .');
    if (raw) store.load(lines.join('\\n'), { format: 'application/n-quads' });
    else await store.load(lines.join('\\n').replaceAll(' <urn:g> .', ' .'), { graph: 'urn:g', format: 'application/n-triples' });
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  full = 0;
  const reserves = wasmHeadroomReserves();
  for (let i = 0; i < 4_000; i++) {
    const triples = Array.from({ length: 20 }, (_, j) => '<urn:t:' + i + ':' + j + '> <urn:p> "' + pad + i + ':' + j + '"').join(' . ');
    await store.update('INSERT DATA { GRAPH <urn:g> { ' + triples + ' } }');
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(JSON.stringify({ full, reserves: wasmHeadroomReserves() - reserves, grownMb: (external() - start) / 1048576 }));
`;

function grow(args: string[]): { full: number; reserves: number; grownMb: number } {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', GROWTH, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as { full: number; reserves: number; grownMb: number };
}

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
}, 120_000);

describe("the embedded store's WebAssembly headroom", () => {
  it('should keep a growing store from costing a full collection at each growth of its memory', () => {
    const reference = grow(['--', 'raw']);
    const ours = grow([]);
    // The reference shows the cost: a full collection at nearly every growth of the memory.
    expect(reference.full).toBeGreaterThan(40);
    expect(ours.grownMb).toBeGreaterThan(90);
    expect(ours.full).toBeLessThan(reference.full / 10);
    expect(ours.reserves).toBeGreaterThan(0);
  }, 120_000);
});
