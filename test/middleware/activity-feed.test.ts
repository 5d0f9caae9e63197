import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ValueError } from '../../src/errors.js';
import { ActivityFeed, type ActivityEntry } from '../../src/middleware/runtime/activity-feed.js';

describe('ActivityFeed', () => {
  it('should refuse a capacity that is not an integer >= 1, naming the value', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, '10' as unknown as number]) {
      expect(() => new ActivityFeed(bad)).toThrow(ValueError);
    }
    expect(() => new ActivityFeed(0)).toThrow('activity feed capacity must be an integer >= 1, got 0');
  });

  it('should number entries from 1, stamp ISO times and let seq/time/kind win over details', () => {
    const feed = new ActivityFeed(5);
    const first = feed.record('registered', { service: 'urn:s', seq: 99, kind: 'forged' });
    const second = feed.record('heartbeat');
    expect(first).toMatchObject({ seq: 1, kind: 'registered', service: 'urn:s' });
    expect(second.seq).toBe(2);
    expect(new Date(first.time).toISOString()).toBe(first.time);
    expect(Object.isFrozen(first)).toBe(true);
    expect(feed.lastSeq).toBe(2);
  });

  it('should refuse kinds that are not names (they become SSE event lines)', () => {
    const feed = new ActivityFeed(2);
    for (const bad of ['', 'done\ndata: x', ' spaced', '1st']) {
      expect(() => feed.record(bad)).toThrow(ValueError);
    }
    expect(feed.lastSeq).toBe(0);
  });

  it('should keep only the last capacity entries and count the dropped ones after a point', () => {
    const feed = new ActivityFeed(3);
    for (let i = 0; i < 7; i += 1) feed.record('heartbeat', { i });
    const all = feed.entries();
    expect(all.entries.map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(all.dropped).toBe(4);
    expect(all.lastSeq).toBe(7);
    expect(feed.entries({ after: 2 })).toMatchObject({ dropped: 2, lastSeq: 7 });
    expect(feed.entries({ after: 5 }).entries.map((e) => e.seq)).toEqual([6, 7]);
    expect(feed.entries({ after: 5 }).dropped).toBe(0);
    expect(feed.entries({ after: 7 }).entries).toEqual([]);
    expect(feed.entries({ after: 100 })).toEqual({ entries: [], dropped: 0, lastSeq: 7 });
    expect(feed.entries({ after: 4, limit: 2 }).entries.map((e) => e.seq)).toEqual([5, 6]);
    expect(feed.entries({ limit: 0 })).toMatchObject({ entries: [], lastSeq: 7 });
  });

  it('should refuse negative or fractional after/limit', () => {
    const feed = new ActivityFeed(3);
    expect(() => feed.entries({ after: -1 })).toThrow('after must be an integer >= 0, got -1');
    expect(() => feed.entries({ limit: 1.5 })).toThrow(ValueError);
  });

  it('should hand new entries to subscribers until they unsubscribe, surviving a throwing one', () => {
    const feed = new ActivityFeed(3);
    const got: number[] = [];
    const bad = feed.subscribe(() => {
      throw new Error('listener bug');
    });
    const stop = feed.subscribe((e) => got.push(e.seq));
    feed.record('claim');
    expect(feed.subscriberCount).toBe(2);
    stop();
    bad();
    feed.record('done');
    expect(got).toEqual([1]);
    expect(feed.subscriberCount).toBe(0);
  });

  it('should count the same listener subscribed twice as two subscriptions', () => {
    const feed = new ActivityFeed(3);
    const got: number[] = [];
    const listener = (e: ActivityEntry): void => void got.push(e.seq);
    const first = feed.subscribe(listener);
    feed.subscribe(listener);
    feed.record('trigger');
    first();
    feed.record('trigger');
    expect(got).toEqual([1, 1, 2]);
  });

  it('should end every subscription on close, call onClose once, and stay readable', () => {
    const feed = new ActivityFeed(3);
    const got: number[] = [];
    let closed = 0;
    feed.subscribe((e) => got.push(e.seq), { onClose: () => (closed += 1) });
    feed.record('stopped');
    feed.close();
    feed.close();
    feed.record('heartbeat');
    expect(got).toEqual([1]);
    expect(closed).toBe(1);
    expect(feed.closed).toBe(true);
    let late = 0;
    feed.subscribe(() => undefined, { onClose: () => (late += 1) });
    expect(late).toBe(1);
    expect(feed.subscriberCount).toBe(0);
    expect(feed.entries().entries.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('should page through any history without loss or duplicates (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.nat(60), fc.nat(70), fc.integer({ min: 1, max: 25 }), (capacity, n, after, limit) => {
        const feed = new ActivityFeed(capacity);
        for (let i = 0; i < n; i += 1) feed.record('heartbeat', { i });
        const page = feed.entries({ after, limit });
        const firstHeld = Math.max(1, n - capacity + 1);
        const expected: number[] = [];
        for (let seq = Math.max(after + 1, firstHeld); seq <= n && expected.length < limit; seq += 1) expected.push(seq);
        expect(page.entries.map((e) => e.seq)).toEqual(expected);
        expect(page.entries.map((e) => e.i)).toEqual(expected.map((s) => s - 1));
        expect(page.dropped).toBe(n === 0 ? 0 : Math.max(0, Math.min(n, firstHeld - 1) - after));
        expect(page.lastSeq).toBe(n);
        // Every seq after `after` is either dropped, returned, or beyond the page.
        const beyond = Math.max(0, n - after) - page.dropped - page.entries.length;
        expect(beyond).toBeGreaterThanOrEqual(0);
        if (page.entries.length < limit) expect(beyond).toBe(0);
      }),
    );
  });
});
