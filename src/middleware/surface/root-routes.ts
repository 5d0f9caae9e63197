/**
 * The spec's root patch: `GET /` answers the welcome message and `GET /favicon.ico` a quiet
 * 204, once per application object, replacing (not shadowing) any root route it had.
 */
import type { Express } from 'express';

// Symbol.for, so that two copies of this module (src and dist) still see one flag.
const PATCHED = Symbol.for('semantic-middleware.root-routes-patched');

interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined>; stack: { method?: string }[] };
}

/**
 * Strips GET handling for `path` from the router stack: a GET-only route is removed whole,
 * a route that also serves other methods keeps them. (An `app.all` route has no GET of its
 * own to remove; the new routes, placed before it, answer GET first.) Returns the index of
 * the first route touched, if any.
 */
function removeGetRoute(stack: RouteLayer[], path: string): number | undefined {
  let first: number | undefined;
  for (let i = stack.length - 1; i >= 0; i -= 1) {
    const route = stack[i]?.route;
    if (!route || route.path !== path || !route.methods.get) continue;
    first = i;
    const others = Object.keys(route.methods).filter((m) => m !== 'get' && m !== 'head' && route.methods[m]);
    if (others.length === 0) {
      stack.splice(i, 1);
      continue;
    }
    delete route.methods.get;
    route.stack = route.stack.filter((layer) => layer.method !== 'get');
  }
  return first;
}

/**
 * Installs `GET /` (200, the JSON string `welcome`) and `GET /favicon.ico` (204, empty) on
 * `app`, removing the GET handling of any existing root or favicon route. The new routes take
 * the place of the old root route, or the front of the stack, so a catch-all added earlier
 * cannot hide them. A flag on `app` makes a second call do nothing.
 *
 * @example
 * patchRootRoutes(app, 'Welcome to semantic middleware!');
 */
export function patchRootRoutes(app: Express, welcome: string): void {
  const flagged = app as unknown as Record<symbol, boolean | undefined>;
  if (flagged[PATCHED]) return;
  flagged[PATCHED] = true;
  const stack = app.router.stack as unknown as RouteLayer[];
  const rootAt = removeGetRoute(stack, '/');
  const faviconAt = removeGetRoute(stack, '/favicon.ico');
  // Both indexes stay valid after the removals: nothing before the first touched route moved.
  const touched = [rootAt, faviconAt].filter((i): i is number => i !== undefined);
  const at = touched.length === 0 ? 0 : Math.min(...touched);
  const body = JSON.stringify(welcome);
  app.get('/', (_req, res) => {
    res.type('application/json').send(body);
  });
  app.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });
  const added = stack.splice(stack.length - 2, 2);
  stack.splice(at, 0, ...added);
}
