import { describe, expect, it } from '@jest/globals';
import { LIMITS } from '../../src/limits.js';
import { TypeCache } from '../../src/ogm/type-cache.js';

const G = 'https://example.org/graph';
const op = (i: number) => `https://example.org/plant#OpenDoorOperation_op_${i.toString(16).padStart(12, '0')}`;

describe('TypeCache', () => {
  it('should stay within its capacity however many individuals pass through it, forgetting the least recently used', () => {
    const cache = new TypeCache(3);
    cache.add(G, op(1), ['A']);
    cache.add(G, op(2), ['A']);
    cache.add(G, op(3), ['A']);
    expect(cache.get(G, op(1))).toEqual(['A']); // op(1) is now the most recently used
    cache.add(G, op(4), ['A']);
    expect(cache.size).toBe(3);
    expect(cache.get(G, op(2))).toBeUndefined();
    expect(cache.get(G, op(1))).toEqual(['A']);
    expect(cache.get(G, op(4))).toEqual(['A']);
  });

  it('should be bounded by default at the limit that keeps a busy sidecar flat, far below one entry per Operation ever seen', () => {
    const cache = new TypeCache();
    const passing = LIMITS.ogmTypeCacheEntries * 3;
    for (let i = 0; i < passing; i += 1) cache.add(G, op(i), ['https://example.org/plant#OpenDoorOperation']);
    expect(cache.size).toBe(LIMITS.ogmTypeCacheEntries);
    expect(LIMITS.ogmTypeCacheEntries).toBeLessThanOrEqual(10_000);
    expect(LIMITS.ogmTypeCacheEntries).toBeGreaterThan(LIMITS.maxCallbackConcurrency);
  });

  it('should merge classes added for one individual and keep graphs apart', () => {
    const cache = new TypeCache(10);
    cache.add(G, op(1), ['A']);
    cache.add(G, op(1), ['B', 'A']);
    cache.add(`${G}2`, op(1), ['C']);
    expect(cache.get(G, op(1))).toEqual(['A', 'B']);
    expect(cache.get(`${G}2`, op(1))).toEqual(['C']);
    cache.delete(G, op(1));
    expect(cache.get(G, op(1))).toBeUndefined();
  });
});
