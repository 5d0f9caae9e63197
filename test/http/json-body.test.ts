import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jsonApp } from '../../src/http/json-app.js';
import { decodeUtf8Body, INVALID_UTF8_DETAIL, jsonBody } from '../../src/http/json-body.js';
import { HttpError } from '../../src/http/http-error.js';
import { logSink, serve, type Served } from '../middleware/surface/support/serve.js';

// A lone continuation byte, a truncated sequence, an overlong "/" and a UTF-16 surrogate in UTF-8.
const INVALID = [[0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80]].map((bytes) =>
  Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('"}')]),
);

describe('decodeUtf8Body', () => {
  it('should decode valid UTF-8, keeping a byte-order mark', () => {
    expect(decodeUtf8Body(Buffer.from('{"a":"ä€𝄞"}'))).toBe('{"a":"ä€𝄞"}');
    expect(decodeUtf8Body(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('\uFEFF{}');
  });

  it.each(INVALID.map((b) => [b.toString('hex'), b] as const))(
    'should refuse %s with a 400 rather than substitute U+FFFD',
    (_hex, bytes) => {
      expect(() => decodeUtf8Body(bytes)).toThrow(new HttpError(400, INVALID_UTF8_DETAIL));
    },
  );
});

describe('jsonBody', () => {
  const received: unknown[] = [];
  let served: Served;
  beforeAll(async () => {
    const app = jsonApp(logSink().logger, (a) =>
      a.post('/echo', jsonBody(1024), (req, res) => {
        received.push(req.body);
        res.json({ got: req.body as unknown });
      }),
    );
    served = await serve(app);
  });
  afterAll(() => served.close());

  const post = (body: Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${served.url}/echo`, { method: 'POST', headers, body });

  it.each(INVALID.map((b) => [b.toString('hex'), b] as const))(
    'should answer a body of invalid UTF-8 (%s) with a 400 that says so, passing nothing on',
    async (_hex, bytes) => {
      const before = received.length;
      const headerSets: Record<string, string>[] = [
        { 'content-type': 'application/json' },
        { 'content-type': 'application/json; charset=UTF-8' },
        {},
      ];
      for (const headers of headerSets) {
        const res = await post(bytes, headers);
        expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { detail: INVALID_UTF8_DETAIL } });
      }
      const zipped = await post(gzipSync(bytes), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      expect(zipped.status).toBe(400);
      expect(received.length).toBe(before);
    },
  );

  it('should pass valid UTF-8 and other Unicode charsets on unchanged', async () => {
    expect(await (await post(Buffer.from('{"name":"Tür 𝄞"}'))).json()).toEqual({ got: { name: 'Tür 𝄞' } });
    const utf16 = await post(Buffer.from('{"name":"Tür"}', 'utf16le'), { 'content-type': 'application/json; charset=utf-16le' });
    expect(await utf16.json()).toEqual({ got: { name: 'Tür' } });
  });
});
