import { describe, expect, it } from '@jest/globals';
import { randomHex } from '../../src/lib/random-hex.js';

describe('randomHex', () => {
  it('should give hex of the length asked for, never the same id twice across refills of its pool', () => {
    const seen = new Set<string>();
    // 3,000 ids of 16 bytes span a dozen refills of the 4 KiB pool.
    for (let i = 0; i < 3_000; i++) {
      const id = randomHex(16);
      expect(id).toMatch(/^[0-9a-f]{32}$/u);
      seen.add(id);
    }
    expect(seen.size).toBe(3_000);
    expect(randomHex(1)).toMatch(/^[0-9a-f]{2}$/u);
    expect(randomHex(256)).toHaveLength(512);
  });

  it('should spread its bytes evenly', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 2_000; i++) for (const digit of randomHex(8)) counts[parseInt(digit, 16)]! += 1;
    // 32,000 digits: each of 16 values about 2,000 times.
    for (const n of counts) expect(Math.abs(n - 2_000)).toBeLessThan(300);
  });

  it('should refuse a length outside 1 to 256 bytes', () => {
    for (const bad of [0, -1, 257, 1.5, Number.NaN]) expect(() => randomHex(bad)).toThrow(RangeError);
  });
});
