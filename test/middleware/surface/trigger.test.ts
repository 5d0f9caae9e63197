import { afterEach, describe, expect, it } from '@jest/globals';
import { OperationResolutionError, RuntimeError, StoreError, TransitionConflictError } from '../../../src/errors.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import type { HttpSurface } from '../../../src/middleware/surface/contract.js';
import { fakeSurface, jsonOf, post, serve, type FakeSurface, type Served } from './support/serve.js';

const OP = 'https://example.org/plant/PickOperation_op_0123456789ab';

describe('POST /workflows/event_trigger/execute', () => {
  let served: Served | undefined;
  let surface: FakeSurface;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });
  const start = async (parts: Partial<HttpSurface> = {}): Promise<string> => {
    surface = fakeSurface(parts);
    served = await serve(createApp(surface));
    return `${served.url}/workflows/event_trigger/execute`;
  };
  const detailOf = async (res: Response): Promise<[number, string]> => {
    const { status, body } = await jsonOf(res);
    return [status, (body as { detail: string }).detail];
  };

  it('should enqueue the named Operation and answer like the reference', async () => {
    const url = await start();
    expect(await jsonOf(await post(url, { operation_iri: OP }))).toEqual({ status: 200, body: { operation: OP, status: 'queued' } });
    expect(surface.triggered).toEqual([OP]);
    expect(surface.workflowLookups).toEqual([]);
  });

  it('should answer 422 for a missing body, a non-object body, a missing or non-string operation_iri', async () => {
    const url = await start();
    const cases: [unknown, RegExp][] = [
      [undefined, /had no body/],
      [[OP], /got an array/],
      ['"just a string"', /got a string/],
      [{}, /operation_iri is missing/],
      [{ operation_iri: 42 }, /operation_iri is a number/],
      [{ operation_iri: null }, /operation_iri is null/],
    ];
    for (const [body, detail] of cases) {
      const [status, text] = await detailOf(await post(url, body));
      expect([body, status]).toEqual([body, 422]);
      expect(text).toMatch(detail);
    }
    expect(surface.triggered).toEqual([]);
  });

  it('should answer 422 naming the value for hostile or relative IRIs, and never call trigger', async () => {
    const url = await start();
    for (const iri of ['http://x/a> <b', 'relative/op', '', 'http://x/a b', 'urn:x{}']) {
      const [status, detail] = await detailOf(await post(url, { operation_iri: iri }));
      expect([iri, status]).toEqual([iri, 422]);
      expect(detail).toContain(`operation_iri ${JSON.stringify(iri)}`);
    }
    expect(surface.triggered).toEqual([]);
  });

  it('should map the typed errors of trigger to their status with the message as detail', async () => {
    let failure: Error = new Error('unset');
    const url = await start({ trigger: () => Promise.reject(failure) });
    const cases: [Error, number][] = [
      [new OperationResolutionError(`no Operation ${OP} exists`), 404],
      [new TransitionConflictError(`Operation ${OP} is running, not queued`), 409],
      [new RuntimeError('the middleware is stopping'), 409],
      [new StoreError('store at http://db/sparql answered 500', 'http://db/sparql', 500), 503],
    ];
    for (const [err, status] of cases) {
      failure = err;
      expect(await detailOf(await post(url, { operation_iri: OP }))).toEqual([status, err.message]);
    }
    failure = new Error('unexpected: db password rejected');
    expect(await detailOf(await post(url, { operation_iri: OP }))).toEqual([500, 'Internal Server Error']);
  });

  it('should answer 400 for malformed JSON, 415 for a non-JSON content type, 413 for an oversized body', async () => {
    const url = await start({ bodyLimitBytes: 256 });
    const [malformed, malformedDetail] = await detailOf(await post(url, '{"operation_iri": '));
    expect(malformed).toBe(400);
    expect(malformedDetail).toMatch(/not valid JSON/);
    const form = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `operation_iri=${OP}`,
    });
    const [unsupported, unsupportedDetail] = await detailOf(form);
    expect(unsupported).toBe(415);
    expect(unsupportedDetail).toContain('application/x-www-form-urlencoded');
    const [tooLarge, tooLargeDetail] = await detailOf(await post(url, { operation_iri: OP, pad: 'x'.repeat(300) }));
    expect(tooLarge).toBe(413);
    expect(tooLargeDetail).toContain('256 bytes');
    expect(surface.triggered).toEqual([]);
  });

  it('should answer 400 naming the encoding problem for a body that is not what its Content-Encoding says', async () => {
    const url = await start();
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: 'notgz!',
      });
      const [status, detail] = await detailOf(res);
      expect(status).toBe(400);
      expect(detail).toMatch(new RegExp(`^the request body could not be decompressed as its Content-Encoding "${encoding}" says`, 'u'));
    }
    expect(surface.triggered).toEqual([]);
  });

  it('should read a body without a Content-Type as JSON and accept +json types', async () => {
    const url = await start();
    const bare = await fetch(url, { method: 'POST', body: new Blob([JSON.stringify({ operation_iri: OP })]) });
    expect((await jsonOf(bare)).status).toBe(200);
    const ld = await post(url, { operation_iri: OP }, { 'content-type': 'application/ld+json; charset=utf-8' });
    expect((await jsonOf(ld)).status).toBe(200);
    expect(surface.triggered).toEqual([OP, OP]);
  });
});
