/**
 * The console's routes, all under one path prefix (`/console/`):
 * - `GET /console/`: the page, rendered on the server (`?resource=` opens it filtered);
 * - `GET /console/events`: server-sent events, one unnamed `data:` frame per update holding
 *   every section's HTML by element id (so `EventSource.onmessage` gets them);
 * - `GET /console/state`: the latest view as JSON, for programs;
 * - `POST /console/cancel` `{"operation", "store"}`: cancels a queued or running Operation in
 *   the store it lives in (the library's `cancelOperation`);
 * - `GET|POST /console/login`, `GET /console/console.{css,js}`.
 * Every route but the login form and its assets needs the plant's token (see `console-auth.ts`).
 */
import express, { type Express, type Request, type Response } from 'express';
import { ValueError } from '../errors.js';
import { HttpError } from '../http/http-error.js';
import { jsonBody } from '../http/json-body.js';
import type { TokenSet } from '../http/named-tokens.js';
import { callerOf } from '../http/token-callers.js';
import type { Logger } from '../lib/logger.js';
import { OGM } from '../ogm/ogm.js';
import { cancelOperation } from '../registration/cancellation.js';
import { ConsoleAuth } from './console-auth.js';
import { CONSOLE_CSS, CONSOLE_JS } from './console-assets.js';
import { renderLogin, renderPage, renderSections } from './page.js';
import type { PlantStore } from './plant-reads.js';
import type { PlantUpdate, PlantWatch } from './plant-watch.js';

/** The path prefix of every console route. */
export const CONSOLE_PATH = '/console/';

// Only the console's own files: no inline script, no other origin (it works offline by design).
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const SSE_KEEPALIVE_MS = 15_000;

/** What the console's routes need. */
export interface ConsoleRoutesOptions {
  watch: PlantWatch;
  stores: readonly PlantStore[];
  graph: string;
  token?: TokenSet | undefined;
  logger: Logger;
}

function html(res: Response, status: number, body: string): void {
  res
    .status(status)
    .set({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP, 'Cache-Control': 'no-store' })
    .send(body);
}

function frame(update: PlantUpdate): string {
  return `data: ${JSON.stringify(renderSections(update))}\n\n`;
}

function stream(req: Request, res: Response, watch: PlantWatch): void {
  res
    .status(200)
    .set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  res.write(frame(watch.latest));
  const unsubscribe = watch.subscribe((update) => res.write(frame(update)));
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), SSE_KEEPALIVE_MS);
  keepAlive.unref();
  req.on('close', () => {
    clearInterval(keepAlive);
    unsubscribe();
  });
}

/** The cancel route's body, checked. */
function cancelRequest(body: unknown, stores: readonly PlantStore[]): { operation: string; store: PlantStore } {
  const { operation, store } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof operation !== 'string') throw new ValueError('the body must name the Operation to cancel in "operation"');
  const target = stores.length === 1 && store === undefined ? stores[0] : stores.find((s) => s.url === store);
  if (target === undefined) throw new ValueError(`"store" must be one of the console's stores: ${stores.map((s) => s.url).join(', ')}`);
  return { operation, store: target };
}

/** Mounts the console's routes on `app` under {@link CONSOLE_PATH}. */
export function mountConsole(app: Express, options: ConsoleRoutesOptions): void {
  const { watch, stores, graph } = options;
  const auth = new ConsoleAuth(options.token, CONSOLE_PATH);
  const ogms = new Map(stores.map((s) => [s.url, new OGM({ store: s.client, graph })]));
  const base = CONSOLE_PATH;
  app.get(`${base}console.css`, (_req, res) => void res.type('text/css').set('Cache-Control', 'no-cache').send(CONSOLE_CSS));
  app.get(`${base}console.js`, (_req, res) => void res.type('text/javascript').set('Cache-Control', 'no-cache').send(CONSOLE_JS));
  app.get(`${base}login`, (_req, res) => (auth.open ? res.redirect(303, base) : html(res, 200, renderLogin({ base, failed: false }))));
  app.post(`${base}login`, express.urlencoded({ extended: false, limit: '4kb' }), (req, res) => {
    // req.secure: this connection is TLS (no proxy is trusted, so no header can claim it).
    const cookie = auth.signIn((req.body as Record<string, unknown> | undefined)?.token, req.secure);
    if (cookie === undefined) return html(res, 401, renderLogin({ base, failed: true }));
    res.set('Set-Cookie', cookie).redirect(303, base);
  });
  app.use(base, auth.guard());
  app.get(base, async (req, res) => {
    const filter = typeof req.query.resource === 'string' ? req.query.resource : '';
    html(res, 200, renderPage(await watch.fresh(), { base, filter }));
  });
  app.get(`${base}events`, async (req, res) => {
    await watch.fresh();
    stream(req, res, watch);
  });
  app.get(`${base}state`, async (_req, res) => void res.json(await watch.fresh()));
  app.post(`${base}cancel`, jsonBody(4096), async (req, res) => {
    // A header no cross-site form can send: with the SameSite cookie, the guard against forged cancels.
    if (req.headers['x-console-request'] !== '1' && req.headers.authorization === undefined) {
      throw new HttpError(403, 'a cancel from the console must carry the header "X-Console-Request: 1"');
    }
    // The guard kept the caller; a token limited to some workflows may look, not steer.
    const caller = callerOf(res)!;
    if (caller.workflows !== undefined) throw new HttpError(403, `${caller.id} may only run its workflows, not cancel Operations`);
    const { operation, store } = cancelRequest(req.body, stores);
    const result = await cancelOperation(ogms.get(store.url)!, operation, { by: caller.id });
    options.logger.info(
      { operation: result.operationIri, outcome: result.outcome, store: store.url, caller: caller.id },
      'console: operation cancelled',
    );
    res.json(result);
    void watch.refresh();
  });
}
