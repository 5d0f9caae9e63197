/**
 * `GET /healthz` (liveness) and `GET /readyz` (readiness) for supervisors and load balancers.
 */
import type { Express } from 'express';
import type { HttpSurface } from '../contract.js';
import { HEALTH_PATH } from '../../../iri/endpoints.js';
import { methodNotAllowed } from '../../../http/error-handler.js';
import { TWIN_MATCH_HEADER, TWIN_PROBE_HEADER } from '../../constants.js';

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Mounts the probes: `/healthz` answers 200 `{"status":"ok"}` while `surface.live()` (with
 * `sm-service-match: true|false` when asked whether it is the Service named in `sm-expect-service`),
 * `/readyz` 200 `{"status":"ready"}` while `surface.ready()` resolves true; otherwise 503
 * `{"detail": ...}`. A probe that throws is a failed probe (503), not a server error, so the
 * probes catch here instead of going through the error middleware.
 */
export function mountHealth(app: Express, surface: HttpSurface): void {
  app.get(HEALTH_PATH, (req, res) => {
    const expected = req.get(TWIN_PROBE_HEADER);
    if (expected !== undefined && surface.isService) res.set(TWIN_MATCH_HEADER, String(surface.isService(expected)));
    let live: boolean;
    try {
      live = surface.live();
    } catch (err) {
      res.status(503).json({ detail: `not live: ${reason(err)}` });
      return;
    }
    if (live) res.json({ status: 'ok' });
    else res.status(503).json({ detail: 'not live' });
  });
  app.get('/readyz', async (_req, res) => {
    let ready: boolean;
    try {
      ready = await surface.ready();
    } catch (err) {
      surface.logger.debug({ err }, 'readiness probe failed');
      res.status(503).json({ detail: `not ready: ${reason(err)}` });
      return;
    }
    if (ready) res.json({ status: 'ready' });
    else res.status(503).json({ detail: 'not ready: not registered yet, stopping, or the store does not answer' });
  });
}

/**
 * Answers another method on the probes' paths 405. Mounted behind the token check: only the
 * probes' GET is open, so without the token any other method gets the 401 first.
 */
export function mountHealthMethods(app: Express): void {
  app.all([HEALTH_PATH, '/readyz'], methodNotAllowed('GET'));
}
