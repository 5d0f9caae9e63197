/**
 * An express application set up as every JSON server of the product is: no `X-Powered-By`, no
 * ETag (the hot routes do no work that could be done once, DESIGN §11), simple query strings,
 * a JSON 404 for unmatched requests and the one error handler behind every route.
 */
import express from 'express';
import type { Logger } from '../lib/logger.js';
import { createErrorHandler, notFound } from './error-handler.js';

/**
 * Builds an express app, lets `mount` add the routes, then ends the chain with the JSON 404 and
 * the error handler (see answerError), which logs to `logger`.
 * @example const app = jsonApp(logger, (app) => app.get('/healthz', (_req, res) => res.json({ status: 'ok' })));
 */
export function jsonApp(logger: Logger, mount: (app: express.Express) => void): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  mount(app);
  app.use(notFound);
  app.use(createErrorHandler(logger));
  return app;
}
