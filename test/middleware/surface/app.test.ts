import { afterEach, describe, expect, it } from '@jest/globals';
import { createApp } from '../../../src/middleware/surface/app.js';
import type { HttpSurface } from '../../../src/middleware/surface/contract.js';
import { fakeSurface, jsonOf, logSink, serve, type Served } from './support/serve.js';

describe('createApp: root, probes, unknown routes', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });
  const start = async (parts: Partial<HttpSurface> = {}): Promise<string> => {
    served = await serve(createApp(fakeSurface(parts)));
    return served.url;
  };

  it('should answer GET / with the welcome as a JSON string', async () => {
    const url = await start({ welcome: 'Welcome to semantic middleware!' });
    const res = await fetch(`${url}/`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('"Welcome to semantic middleware!"');
    expect(res.status).toBe(200);
  });

  it('should answer GET /favicon.ico with an empty 204', async () => {
    const url = await start();
    const res = await fetch(`${url}/favicon.ico`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('should send neither X-Powered-By nor an ETag', async () => {
    const url = await start();
    const res = await fetch(`${url}/`);
    await res.text();
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('etag')).toBeNull();
  });

  it('should answer /healthz 200 while live and 503 JSON when not or when live() throws', async () => {
    let live: () => boolean = () => true;
    const url = await start({ live: () => live() });
    expect(await jsonOf(await fetch(`${url}/healthz`))).toEqual({ status: 200, body: { status: 'ok' } });
    live = () => false;
    expect(await jsonOf(await fetch(`${url}/healthz`))).toEqual({ status: 503, body: { detail: 'not live' } });
    live = () => {
      throw new Error('event loop wedged');
    };
    expect(await jsonOf(await fetch(`${url}/healthz`))).toEqual({ status: 503, body: { detail: 'not live: event loop wedged' } });
  });

  it("should say on /healthz whether it is the Service a twin's probe expects, and only when asked", async () => {
    const url = await start({ isService: (iri) => iri === 'https://example.org/plant#door1_service' });
    const matchOf = async (expected?: string): Promise<string | null> => {
      const res = await fetch(`${url}/healthz`, { headers: expected === undefined ? {} : { 'sm-expect-service': expected } });
      await res.text();
      expect(res.status).toBe(200);
      return res.headers.get('sm-service-match');
    };
    expect(await matchOf('https://example.org/plant#door1_service')).toBe('true');
    expect(await matchOf('https://example.org/plant#robot1_service')).toBe('false');
    expect(await matchOf()).toBeNull();
  });

  it('should answer /readyz 200 when ready, 503 with a detail when not or when ready() throws', async () => {
    let ready: () => Promise<boolean> = () => Promise.resolve(true);
    const url = await start({ ready: () => ready() });
    expect(await jsonOf(await fetch(`${url}/readyz`))).toEqual({ status: 200, body: { status: 'ready' } });
    ready = () => Promise.resolve(false);
    const notReady = await jsonOf(await fetch(`${url}/readyz`));
    expect(notReady.status).toBe(503);
    expect((notReady.body as { detail: string }).detail).toMatch(/^not ready/);
    ready = () => Promise.reject(new Error('store at http://db:8890 refused'));
    expect(await jsonOf(await fetch(`${url}/readyz`))).toEqual({
      status: 503,
      body: { detail: 'not ready: store at http://db:8890 refused' },
    });
  });

  it('should answer unknown paths with a JSON 404 naming them', async () => {
    const url = await start();
    expect(await jsonOf(await fetch(`${url}/nope/deeper`))).toEqual({ status: 404, body: { detail: 'no route for GET "/nope/deeper"' } });
    expect(await jsonOf(await fetch(`${url}/nope`, { method: 'DELETE' }))).toEqual({
      status: 404,
      body: { detail: 'no route for DELETE "/nope"' },
    });
  });

  // Every route of the surface, what it allows, and methods it must refuse with a 405.
  const ROUTES: [string, string, string[]][] = [
    ['/workflows/open/execute', 'POST', ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD']],
    ['/workflows/nobody-registered/execute', 'POST', ['GET', 'DELETE']],
    ['/workflows/event_trigger/execute', 'POST', ['GET', 'PUT']],
    ['/state/x', 'GET, HEAD', ['POST', 'PUT', 'DELETE']],
    ['/healthz', 'GET, HEAD', ['POST', 'DELETE']],
    ['/readyz', 'GET, HEAD', ['POST']],
    ['/activity', 'GET, HEAD', ['POST', 'DELETE']],
    ['/activity/stream', 'GET, HEAD', ['POST']],
    ['/parameters', 'GET, HEAD', ['POST', 'PUT']],
    ['/parameters/speed', 'GET, PUT, HEAD', ['POST', 'DELETE', 'PATCH']],
  ];

  it.each(ROUTES)('should answer a wrong method on %s with a JSON 405 and Allow: %s', async (path, allow, methods) => {
    const url = await start();
    for (const method of methods) {
      const res = await fetch(`${url}${path}`, { method });
      expect([method, res.status, res.headers.get('allow')]).toEqual([method, 405, allow]);
      if (method === 'HEAD') continue;
      const { detail } = (await res.json()) as { detail: string };
      expect(detail).toBe(
        `method ${method} is not allowed on ${JSON.stringify(path)}: use ${allow.replace(', HEAD', '').replace(', ', ' or ')}`,
      );
    }
  });

  it('should answer a malformed percent-escape in the path with a JSON 400', async () => {
    const url = await start();
    const { status, body } = await jsonOf(await fetch(`${url}/state/%E0%A4%A`));
    expect(status).toBe(400);
    expect((body as { detail: string }).detail).toContain('%E0%A4%A');
  });

  it('should log 5xx at error with the error and 4xx at debug only', async () => {
    const { logger, lines } = logSink();
    const surface = fakeSurface({}, logger);
    surface.workflows.set('boom', () => {
      throw new Error('gripper jammed');
    });
    served = await serve(createApp(surface));
    await (await fetch(`${served.url}/nope`)).text();
    await (await fetch(`${served.url}/workflows/boom/execute`, { method: 'POST' })).text();
    const refused = lines.filter((l) => l.msg === 'request refused');
    const failed = lines.filter((l) => l.msg === 'request failed');
    expect(refused).toEqual([expect.objectContaining({ level: 20, status: 404, path: '/nope' })]);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 50, status: 500, path: '/workflows/boom/execute', err: { message: 'gripper jammed' } });
  });
});
