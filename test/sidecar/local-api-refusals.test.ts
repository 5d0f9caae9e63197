import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { INVALID_UTF8_DETAIL } from '../../src/http/json-body.js';
import { SemanticMiddleware } from '../../src/middleware/semantic-middleware.js';
import { OGM } from '../../src/ogm/index.js';
import { startLocalApi, type LocalApi } from '../../src/sidecar/local-api.js';
import { openStore } from '../../src/store/open-store.js';
import type { TripleStore } from '../../src/store/triple-store.js';

/**
 * Requests the local API refuses before any of its routes acts: a wrong method on a route's
 * path, and a body that is not valid UTF-8. Nothing reaches the middleware (its store is empty).
 */
const TOKEN = 'local-api-refusals-token-0123456789';
let store: TripleStore;
let api: LocalApi;

beforeAll(async () => {
  store = await openStore({ kind: 'memory' });
  const middleware = new SemanticMiddleware({ mode: 'watchdog', ogm: new OGM({ store }), logger: pino({ level: 'silent' }) });
  api = await startLocalApi({ middleware, listen: { port: 0, token: TOKEN }, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await api?.close();
  await store?.close();
});

const call = (method: string, path: string, body?: Buffer): Promise<Response> =>
  fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body }),
  });

describe('the local API', () => {
  const ROUTES: [string, string, string[]][] = [
    ['/operations', 'POST', ['GET', 'PUT', 'DELETE']],
    ['/operations/status', 'GET, HEAD', ['POST', 'DELETE']],
    ['/handovers', 'POST', ['GET', 'PATCH']],
    ['/handovers/h1/commit', 'POST', ['GET', 'PUT']],
    ['/handovers/h1/abort', 'POST', ['GET', 'DELETE']],
    ['/healthz', 'GET, HEAD', ['POST']],
  ];

  it.each(ROUTES)('should answer a wrong method on %s with a JSON 405 and Allow: %s', async (path, allow, methods) => {
    for (const method of methods) {
      const res = await call(method, path);
      expect([method, res.status, res.headers.get('allow')]).toEqual([method, 405, allow]);
      expect(((await res.json()) as { detail: string }).detail).toBe(
        `method ${method} is not allowed on ${JSON.stringify(path)}: use ${allow.replace(', HEAD', '')}`,
      );
    }
  });

  it('should still answer an unknown path 404', async () => {
    expect((await call('GET', '/nowhere')).status).toBe(404);
  });

  it.each(['/operations', '/handovers'])('should refuse a body of invalid UTF-8 on POST %s with a 400', async (path) => {
    const body = Buffer.concat([Buffer.from('{"capabilityClass":"urn:x:'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await call('POST', path, body);
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { detail: INVALID_UTF8_DETAIL } });
  });
});
