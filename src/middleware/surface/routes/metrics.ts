/**
 * `GET /metrics`: the instance's metrics in the Prometheus text format.
 */
import type { Express } from 'express';
import { HttpError } from '../../../http/http-error.js';
import { methodNotAllowed } from '../../../http/error-handler.js';
import type { HttpSurface } from '../contract.js';
import { METRICS_PATH } from '../../../metrics/names.js';

/**
 * Mounts the metrics route: 200 with the exposition (`text/plain; version=0.0.4`), 404 when the
 * surface has no metrics. Mounted behind the token check, like every route but the probes.
 */
export function mountMetrics(app: Express, surface: HttpSurface): void {
  app.get(METRICS_PATH, async (_req, res) => {
    if (surface.metrics === undefined) throw new HttpError(404, 'this surface serves no metrics');
    const { contentType, body } = await surface.metrics();
    res.type(contentType).send(body);
  });
  app.all(METRICS_PATH, methodNotAllowed('GET'));
}
