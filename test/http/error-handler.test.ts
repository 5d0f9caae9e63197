import { afterEach, describe, expect, it } from '@jest/globals';
import { StoreError, ValueError } from '../../src/errors.js';
import { DeviceUnreachableError } from '../../src/device/errors.js';
import { errorAnswer, HttpError } from '../../src/http/http-error.js';
import { jsonApp } from '../../src/http/json-app.js';
import { jsonOf, logSink, serve, type Served } from '../middleware/surface/support/serve.js';

describe('errorAnswer', () => {
  it("should keep the product's errors' status and message", () => {
    expect(errorAnswer(new ValueError('speed must be a number'))).toEqual({
      status: 400,
      detail: 'speed must be a number',
      expected: true,
    });
    expect(errorAnswer(new HttpError(415, 'send JSON'))).toEqual({ status: 415, detail: 'send JSON', expected: true });
    expect(errorAnswer(new StoreError('store down'))).toEqual({ status: 503, detail: 'store down', expected: true });
  });

  it("should keep another error's message only with a 4xx status", () => {
    expect(errorAnswer(Object.assign(new URIError("Failed to decode param '%E0'"), { status: 400 }))).toEqual({
      status: 400,
      detail: "Failed to decode param '%E0'",
      expected: true,
    });
    expect(errorAnswer(Object.assign(new Error('upstream 10.0.0.7 refused'), { statusCode: 502 }))).toEqual({
      status: 502,
      detail: 'Bad Gateway',
      expected: false,
    });
  });

  it('should answer a generic 500 for anything else', () => {
    const generic = { status: 500, detail: 'Internal Server Error', expected: false };
    expect(errorAnswer(new TypeError("Cannot read properties of undefined (reading 'x')"))).toEqual(generic);
    expect(errorAnswer(Object.assign(new Error('moved'), { status: 302 }))).toEqual(generic);
    expect(errorAnswer('a thrown string')).toEqual(generic);
    expect(errorAnswer(undefined)).toEqual(generic);
  });
});

describe('the error handler of a JSON app', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  /** An app whose one route throws what `fail` returns, logging to a sink. */
  async function failing(fail: () => unknown): Promise<{ url: string; lines: Record<string, unknown>[] }> {
    const { logger, lines } = logSink();
    served = await serve(
      jsonApp(logger, (app) =>
        app.get('/fail', () => {
          throw fail();
        }),
      ),
    );
    return { url: `${served.url}/fail`, lines };
  }

  it('should answer a non-product error with the generic 500 and log its message and stack', async () => {
    const { url, lines } = await failing(() => new Error('password for db rejected: hunter2'));
    const res = await fetch(url);
    const text = await res.clone().text();
    expect(await jsonOf(res)).toEqual({ status: 500, body: { detail: 'Internal Server Error' } });
    expect(text).not.toContain('hunter2');
    const failed = lines.filter((l) => l.msg === 'request failed');
    expect(failed).toEqual([
      expect.objectContaining({
        level: 50,
        status: 500,
        method: 'GET',
        path: '/fail',
        err: expect.objectContaining({ message: 'password for db rejected: hunter2', stack: expect.stringContaining('Error: password') }),
      }),
    ]);
  });

  it("should answer a device failure's 5xx with its message and log it at warn without a stack", async () => {
    const call = { target: 'unix:/run/door.sock', method: 'POST', path: '/open' } as const;
    const { url, lines } = await failing(
      () => new DeviceUnreachableError('device unix:/run/door.sock refused the connection', call, 'ECONNREFUSED'),
    );
    expect(await jsonOf(await fetch(url))).toEqual({ status: 502, body: { detail: 'device unix:/run/door.sock refused the connection' } });
    const [failed] = lines.filter((l) => l.msg === 'request failed');
    expect(failed).toMatchObject({
      level: 40,
      status: 502,
      err: { type: 'DeviceUnreachableError', code: 'SM_DEVICE_UNREACHABLE', message: expect.stringContaining('refused') },
    });
    expect((failed!.err as Record<string, unknown>).stack ?? '').toBe('');
  });

  it('should log a 4xx at debug only and answer the JSON 404 for an unknown route', async () => {
    const { url, lines } = await failing(() => new HttpError(422, 'operation_iri is missing'));
    expect(await jsonOf(await fetch(url))).toEqual({ status: 422, body: { detail: 'operation_iri is missing' } });
    expect(await jsonOf(await fetch(`${served!.url}/nope`))).toEqual({ status: 404, body: { detail: 'no route for GET "/nope"' } });
    expect(lines.filter((l) => l.msg === 'request failed')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'request refused').map((l) => [l.level, l.status])).toEqual([
      [20, 422],
      [20, 404],
    ]);
  });
});
