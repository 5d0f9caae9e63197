import { afterEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createApp, patchRootRoutes } from '../../../src/middleware/surface/app.js';
import { fakeSurface, serve, type Served } from './support/serve.js';

interface Layer {
  route?: { path: unknown; methods: Record<string, boolean> };
}

function rootRoutes(app: express.Express): Layer[] {
  return (app.router.stack as unknown as Layer[]).filter((l) => l.route?.path === '/' && l.route.methods.get);
}

describe('patchRootRoutes', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it('should replace an existing GET / route, not shadow it', async () => {
    const app = express();
    app.get('/', (_req, res) => {
      res.send('<html>base welcome</html>');
    });
    patchRootRoutes(app, 'Welcome to semantic middleware!');
    expect(rootRoutes(app)).toHaveLength(1);
    served = await serve(app);
    const res = await fetch(`${served.url}/`);
    expect(await res.text()).toBe('"Welcome to semantic middleware!"');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await fetch(`${served.url}/favicon.ico`)).status).toBe(204);
  });

  it('should patch once: a second call leaves exactly one root route and the first welcome', async () => {
    const app = express();
    app.get('/', (_req, res) => {
      res.send('base');
    });
    patchRootRoutes(app, 'first');
    patchRootRoutes(app, 'second');
    expect(rootRoutes(app)).toHaveLength(1);
    const favicons = (app.router.stack as unknown as Layer[]).filter((l) => l.route?.path === '/favicon.ico');
    expect(favicons).toHaveLength(1);
    served = await serve(app);
    expect(await (await fetch(`${served.url}/`)).text()).toBe('"first"');
  });

  it('should keep the other methods of a root route that also serves GET', async () => {
    const app = express();
    app
      .route('/')
      .get((_req, res) => {
        res.send('old get');
      })
      .post((_req, res) => {
        res.send('posted');
      });
    patchRootRoutes(app, 'hello');
    served = await serve(app);
    expect(await (await fetch(`${served.url}/`)).text()).toBe('"hello"');
    expect(await (await fetch(`${served.url}/`, { method: 'POST' })).text()).toBe('posted');
  });

  it('should not be hidden by a catch-all installed before it was called', async () => {
    const app = express();
    app.use((_req, res) => {
      res.status(404).send('not here');
    });
    patchRootRoutes(app, 'hello');
    served = await serve(app);
    expect(await (await fetch(`${served.url}/`)).text()).toBe('"hello"');
    expect((await fetch(`${served.url}/favicon.ico`)).status).toBe(204);
    expect(await (await fetch(`${served.url}/other`)).text()).toBe('not here');
  });

  it('should do nothing on an app createApp already patched', async () => {
    const app = createApp(fakeSurface({ welcome: 'from the surface' }));
    patchRootRoutes(app, 'late');
    expect(rootRoutes(app)).toHaveLength(1);
    served = await serve(app);
    expect(await (await fetch(`${served.url}/`)).text()).toBe('"from the surface"');
  });

  it('should encode a welcome with quotes and line breaks as valid JSON', async () => {
    const app = express();
    const welcome = 'say "hi"\n</script><b>';
    patchRootRoutes(app, welcome);
    served = await serve(app);
    expect(JSON.parse(await (await fetch(`${served.url}/`)).text())).toBe(welcome);
  });
});
