import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { boundHeapGrowth } from '../../src/cli/heap-growth.js';
import { LIMITS } from '../../src/limits.js';
import { buildCli, ROOT } from './support/cli-process.js';

/**
 * A process that calls boundHeapGrowth, keeps about 30 MB of objects alive and for 1.5 s churns
 * objects that live long enough to reach the old generation; prints what boundHeapGrowth returned
 * and the largest heap V8 had committed meanwhile.
 */
const CHURN = `
  const { getHeapStatistics } = await import('node:v8');
  const { boundHeapGrowth } = await import('./dist/cli/heap-growth.js');
  const set = boundHeapGrowth() ?? null;
  const live = Array.from({ length: 200_000 }, (_, i) => ({ i, s: 'k' + i, a: [i, i + 1] }));
  const window = new Array(50_000);
  let peak = 0;
  const started = Date.now();
  for (let round = 0; Date.now() - started < 1_500; round++) {
    for (let j = 0; j < 2_000; j++) window[(round * 2_000 + j) % window.length] = { round, j, s: 'v' + round + ':' + j, a: new Array(8).fill(j) };
    if (round % 20 === 0) peak = Math.max(peak, getHeapStatistics().total_heap_size);
    if (round % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  console.log(JSON.stringify({ set, peakMb: peak / 1048576, live: live.length }));
`;

function churn(nodeFlags: string[]): { set: string | null; peakMb: number } {
  const result = spawnSync(process.execPath, ['--max-semi-space-size=1', ...nodeFlags, '--input-type=module', '-e', CHURN], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as { set: string | null; peakMb: number };
}

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
}, 120_000);

describe("the daemon's heap growth", () => {
  it('should set the growing factor from LIMITS unless node was given one, in either spelling', () => {
    const set: string[] = [];
    const setFlags = (flag: string): void => void set.push(flag);
    expect(boundHeapGrowth([], setFlags)).toBe(`--heap-growing-percent=${LIMITS.heapGrowingPercent}`);
    expect(boundHeapGrowth(['--max-semi-space-size=1', '--heap-growing-percent-x=1'], setFlags)).toBe(
      `--heap-growing-percent=${LIMITS.heapGrowingPercent}`,
    );
    expect(boundHeapGrowth(['--heap-growing-percent=300'], setFlags)).toBeUndefined();
    expect(boundHeapGrowth(['--heap_growing_percent=300'], setFlags)).toBeUndefined();
    expect(set).toEqual([`--heap-growing-percent=${LIMITS.heapGrowingPercent}`, `--heap-growing-percent=${LIMITS.heapGrowingPercent}`]);
  });

  it("should bound the old generation of the running process, and leave node's own factor when given", () => {
    // Against a fixed 4x given on node's command line (which boundHeapGrowth leaves alone), so
    // the comparison does not depend on the factor V8 would pick for this machine.
    const given = churn(['--heap-growing-percent=300']);
    const bounded = churn([]);
    expect(given.set).toBeNull();
    expect(bounded.set).toBe(`--heap-growing-percent=${LIMITS.heapGrowingPercent}`);
    expect(bounded.peakMb).toBeLessThan(given.peakMb / 1.8);
  });
});
