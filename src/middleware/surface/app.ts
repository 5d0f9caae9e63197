/**
 * The middleware's HTTP surface as an express 5 application: the spec's endpoints (root,
 * favicon, workflows, state, event trigger) plus probes and the activity feed, every error a
 * JSON `{"detail": "..."}`.
 */
import type express from 'express';
import { bearerAuth } from '../../http/token-callers.js';
import { HTTP_TOKEN_CALLER } from '../../lib/caller-identity.js';
import { jsonApp } from '../../http/json-app.js';
import { jsonBody } from '../../http/json-body.js';
import { LIMITS } from '../../limits.js';
import { patchRootRoutes } from './root-routes.js';
import { mountActivity } from './routes/activity.js';
import { mountActivityStream } from './routes/activity-stream.js';
import { mountHealth, mountHealthMethods } from './routes/health.js';
import { mountMetrics } from './routes/metrics.js';
import { mountParameters } from './routes/parameters.js';
import { mountState } from './routes/state.js';
import { mountTrigger } from './routes/trigger.js';
import { mountWorkflows } from './routes/workflows.js';
import type { HttpSurface } from './contract.js';
import { workflowLimits } from './workflow-limits.js';

export { patchRootRoutes } from './root-routes.js';

/** Which token a refusal asks for. */
const SURFACE_TOKEN =
  'the token of this middleware (its httpToken option; a sidecar reads it from http.tokenFile or SIDECAR_HTTP_TOKEN_FILE)';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Interval of keep-alive comments on `/activity/stream`; default LIMITS.activityStreamHeartbeatMs. */
  activityHeartbeatMs?: number;
  /** Bytes queued for a stalled stream client before it is cut; default LIMITS.activityStreamMaxBufferedBytes. */
  activityMaxBufferedBytes?: number;
}

/**
 * Builds the express app serving `surface`:
 * - `GET /` welcome (JSON string), `GET /favicon.ico` 204;
 * - `POST /workflows/event_trigger/execute` → `surface.trigger`;
 * - `POST /workflows/:name/execute`, `GET /state/:name` → the registered handler's raw JSON;
 * - `GET /healthz`, `GET /readyz`; `GET /activity`, `GET /activity/stream` (SSE); `GET /metrics`;
 * - another method on one of these paths 405 with an `Allow` header; anything else 404;
 * - every error `{"detail": "..."}` with its status, a fault a generic 500 (see errorAnswer).
 *
 * With `surface.token`, every route but the root, the favicon and the probes answers 401 unless
 * the request carries `Authorization: Bearer <token>` (see bearerAuth). The check sits in front
 * of those routes, so a refused request costs no body parse and learns nothing about routes.
 * A named token limited to some workflows may read and run those, and gets 403 for anything
 * else (see workflowLimits). Workflow runs, state reads and parameter writes are recorded in the
 * activity feed with the caller's identity.
 *
 * Request bodies are parsed only on the POST routes, limited to `surface.bodyLimitBytes`
 * (default LIMITS.httpBodyLimitBytes). No etag, no `X-Powered-By`: the hot routes do no work
 * that could be done once (DESIGN §11).
 *
 * @example
 * const app = createApp(surface);
 * const server = app.listen(0, '127.0.0.1');
 */
export function createApp(surface: HttpSurface, options: AppOptions = {}): express.Express {
  const json = jsonBody(surface.bodyLimitBytes ?? LIMITS.httpBodyLimitBytes);
  return jsonApp(surface.logger, (app) => {
    patchRootRoutes(app, surface.welcome);
    mountHealth(app, surface);
    // Everything mounted from here on needs the token; the root routes and probes above stay open
    // for supervisors and load balancers.
    if (surface.token !== undefined)
      app.use(bearerAuth(surface.token, { expected: SURFACE_TOKEN, unnamed: HTTP_TOKEN_CALLER }), workflowLimits());
    mountHealthMethods(app);
    mountTrigger(app, surface, json);
    mountWorkflows(app, surface, json);
    mountState(app, surface);
    mountParameters(app, surface, json);
    mountActivity(app, surface);
    mountMetrics(app, surface);
    mountActivityStream(app, surface, {
      heartbeatMs: options.activityHeartbeatMs ?? LIMITS.activityStreamHeartbeatMs,
      maxBufferedBytes: options.activityMaxBufferedBytes ?? LIMITS.activityStreamMaxBufferedBytes,
    });
  });
}
