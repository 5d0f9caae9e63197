import { describe, expect, it } from '@jest/globals';
import { childSpan, formatTraceparent, newTrace, parseTraceparent, traceFromHeader } from '../../src/tracing/trace-context.js';
import { Writable } from 'node:stream';
import pino from 'pino';
import {
  callInTrace,
  carriedTraces,
  currentTrace,
  handTrace,
  traceAware,
  traceLogger,
  traceLogMixin,
  withTrace,
} from '../../src/tracing/trace-scope.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('should parse a version 00 header and write it back unchanged', () => {
    const value = `00-${TRACE}-${PARENT}-01`;
    expect(parseTraceparent(value)).toEqual({ traceId: TRACE, spanId: PARENT, flags: '01' });
    expect(formatTraceparent(parseTraceparent(value)!)).toBe(value);
  });

  it('should refuse every header the W3C rules make invalid', () => {
    const invalid = [
      undefined,
      ['a', 'b'],
      '',
      `01-${TRACE}-${PARENT}-01`,
      `ff-${TRACE}-${PARENT}-01`,
      `00-${'0'.repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${PARENT}-01`,
      `00-${TRACE.slice(1)}-${PARENT}-01`,
      `00-${TRACE}-${PARENT}-1`,
      `00-${TRACE}-${PARENT}-01-extra`,
      `00-${TRACE}-${PARENT}-0g`,
      `00_${TRACE}_${PARENT}_01`,
    ];
    for (const value of invalid) expect(parseTraceparent(value)).toBeUndefined();
  });

  it('should continue a valid trace with a new span, and start a new trace for an invalid or missing one', () => {
    const continued = traceFromHeader(`00-${TRACE}-${PARENT}-00`);
    expect(continued.traceId).toBe(TRACE);
    expect(continued.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(continued.spanId).not.toBe(PARENT);
    expect(continued.flags).toBe('00');
    for (const header of [undefined, 'garbage', `00-${'0'.repeat(32)}-${PARENT}-01`]) {
      const fresh = traceFromHeader(header);
      expect(parseTraceparent(formatTraceparent(fresh))).toEqual(fresh);
      expect(fresh.traceId).not.toBe(TRACE);
    }
    const a = newTrace();
    expect(childSpan(a)).toMatchObject({ traceId: a.traceId, flags: a.flags });
    expect(newTrace().traceId).not.toBe(a.traceId);
  });

  it('should carry the current trace across awaits and add its id to log lines only inside it', async () => {
    const trace = newTrace();
    expect(traceLogMixin()).toEqual({});
    await withTrace(trace, async () => {
      await new Promise((r) => setTimeout(r, 1));
      expect(currentTrace()).toBe(trace);
      expect(traceLogMixin()).toEqual({ traceId: trace.traceId });
      expect(withTrace(undefined, () => currentTrace())).toBeUndefined();
    });
    expect(currentTrace()).toBeUndefined();
  });

  it('should hand a trace to the synchronous part of a call only, and restore the one before', async () => {
    const [outer, inner] = [newTrace(), newTrace()];
    let afterAwait: unknown = 'unread';
    const seen = handTrace(outer, () => {
      const nested = handTrace(inner, () => currentTrace());
      void (async () => {
        await Promise.resolve();
        afterAwait = currentTrace();
      })();
      return [nested, currentTrace()];
    });
    expect(seen).toEqual([inner, outer]);
    expect(currentTrace()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1));
    expect(afterAwait).toBeUndefined();
  });

  it("should hand the trace to the product's functions and carry it across the awaits of a program's own", async () => {
    const trace = newTrace();
    const read = async (): Promise<unknown> => {
      const first = currentTrace();
      await new Promise((r) => setTimeout(r, 1));
      return [first, currentTrace()];
    };
    expect(
      await callInTrace(
        trace,
        traceAware(() => read()),
      ),
    ).toEqual([trace, undefined]);
    expect(await callInTrace(trace, read)).toEqual([trace, trace]);
    // This file carried traces from its first test on (the sidecar test shows a process that never does).
    expect(carriedTraces()).toBe(true);
  });

  it('should put one traceId on the lines of a logger bound to a trace, inside another trace too', () => {
    const chunks: string[] = [];
    const stream = new Writable({ write: (chunk: Buffer, _e, done) => done(void chunks.push(chunk.toString())) });
    const root = pino({ mixin: traceLogMixin }, stream);
    const [bound, ambient] = [newTrace(), newTrace()];
    withTrace(ambient, () => {
      traceLogger(root, bound, { operation: 'urn:op:1' }).info('bound');
      root.info('ambient');
    });
    traceLogger(root, undefined, { operation: 'urn:op:2' }).info('none');
    const lines = chunks.map((c) => c.trim());
    expect(lines[0]!.match(/"traceId"/g)).toHaveLength(1);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).map((l) => [l.msg, l.traceId, l.operation])).toEqual([
      ['bound', bound.traceId, 'urn:op:1'],
      ['ambient', ambient.traceId, undefined],
      ['none', undefined, 'urn:op:2'],
    ]);
  });
});
