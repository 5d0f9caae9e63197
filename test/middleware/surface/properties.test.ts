import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isIri } from '../../../src/iri/validate.js';
import { ActivityFeed } from '../../../src/middleware/runtime/activity-feed.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import { fakeSurface, jsonOf, serve, type FakeSurface, type Served } from './support/serve.js';

const RUNS = { numRuns: 80 };
// Shallow values: deep ones cost seconds to generate and add nothing at the HTTP edge.
const json = fc.jsonValue({ maxDepth: 3 });

// Names a client might send: any text (percent-encoded), or raw ASCII with stray escapes.
const nameSegment = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map((s) => encodeURIComponent(s)),
  fc.stringMatching(/^[A-Za-z0-9%._~-]{1,20}$/),
);

describe('HTTP surface properties: never non-JSON, never a 5xx of its own', () => {
  let served: Served;
  let surface: FakeSurface;
  beforeAll(async () => {
    const feed = new ActivityFeed(10);
    for (let i = 0; i < 15; i += 1) feed.record('heartbeat');
    surface = fakeSurface({ activity: feed, bodyLimitBytes: 4096 });
    surface.workflows.set('echo', (args) => args);
    surface.states.set('door', () => 'closed');
    served = await serve(createApp(surface));
  });
  afterAll(() => served.close());

  it('should answer any JSON body on the event trigger with 200 or a JSON 422', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(json, fc.record({ operation_iri: fc.oneof(fc.webUrl(), fc.string(), json) })), async (body) => {
        surface.triggered.length = 0;
        const { status, body: answer } = await jsonOf(
          await fetch(`${served.url}/workflows/event_trigger/execute`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        );
        const iri = (body as { operation_iri?: unknown } | null)?.operation_iri;
        const valid = typeof body === 'object' && body !== null && !Array.isArray(body) && isIri(iri);
        if (Buffer.byteLength(JSON.stringify(body)) > 4096) expect(status).toBe(413);
        else expect(status).toBe(valid ? 200 : 422);
        expect(surface.triggered).toEqual(status === 200 ? [iri] : []);
        if (status === 200) expect(answer).toEqual({ operation: iri, status: 'queued' });
        else expect(typeof (answer as { detail: unknown }).detail).toBe('string');
      }),
      RUNS,
    );
  });

  it('should echo any object body (over the query) and refuse any other JSON with 422', async () => {
    await fc.assert(
      fc.asyncProperty(json, fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.string({ maxLength: 8 })), async (body, query) => {
        const qs = new URLSearchParams(query).toString();
        const res = await fetch(`${served.url}/workflows/echo/execute?${qs}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const { status, body: answer } = await jsonOf(res);
        const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
        const size = Buffer.byteLength(JSON.stringify(body));
        if (size > 4096) expect(status).toBe(413);
        else if (isObject) expect(answer).toEqual(JSON.parse(JSON.stringify({ ...query, ...body })));
        else expect(status).toBe(422);
      }),
      RUNS,
    );
  });

  it('should answer raw bodies of any content type with JSON and a 2xx/4xx status', async () => {
    const contentType = fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      'application/vnd.x+json',
      '',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 200 }),
        contentType,
        fc.constantFrom('event_trigger', 'echo', 'missing'),
        async (raw, type, name) => {
          const headers: Record<string, string> = type === '' ? {} : { 'content-type': type };
          const res = await fetch(`${served.url}/workflows/${name}/execute`, { method: 'POST', headers, body: new Blob([raw]) });
          const { status } = await jsonOf(res);
          expect(status).toBeLessThan(500);
          expect([200, 400, 404, 413, 415, 422]).toContain(status);
        },
      ),
      RUNS,
    );
  });

  it('should answer any workflow or state name with JSON: 200 when registered, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(nameSegment, fc.boolean(), async (segment, asState) => {
        const res = asState
          ? await fetch(`${served.url}/state/${segment}`)
          : await fetch(`${served.url}/workflows/${segment}/execute`, { method: 'POST' });
        const { status } = await jsonOf(res);
        expect(status).toBeLessThan(500);
        let decoded: string | undefined;
        try {
          decoded = decodeURIComponent(segment);
        } catch {
          decoded = undefined;
        }
        if (decoded === (asState ? 'door' : 'echo')) expect(status).toBe(200);
        if (decoded === undefined) expect(status).toBe(400);
      }),
      RUNS,
    );
  });

  it('should answer any activity query with 200 or a JSON 422', async () => {
    // The workflow calls of the tests before were recorded too; reading the feed records nothing.
    const lastSeq = surface.activity!.lastSeq;
    const value = fc.oneof(fc.nat().map(String), fc.string({ maxLength: 6 }));
    await fc.assert(
      fc.asyncProperty(fc.option(value, { nil: undefined }), fc.option(value, { nil: undefined }), async (after, limit) => {
        const params = new URLSearchParams();
        if (after !== undefined) params.set('after', after);
        if (limit !== undefined) params.set('limit', limit);
        const { status, body } = await jsonOf(await fetch(`${served.url}/activity?${params.toString()}`));
        const ok = [after, limit].every((v) => v === undefined || /^\d{1,15}$/.test(v));
        expect(status).toBe(ok ? 200 : 422);
        if (ok) expect((body as { lastSeq: number }).lastSeq).toBe(lastSeq);
      }),
      RUNS,
    );
  });
});
