/**
 * `GET /state/{name}`: the live value of a state property, read on demand.
 */
import type { Express } from 'express';
import { preview } from '../../../iri/validate.js';
import { HttpError } from '../../../http/http-error.js';
import { sendValue } from '../json-values.js';
import type { HttpSurface } from '../contract.js';
import { methodNotAllowed } from '../../../http/error-handler.js';
import { recorded } from '../call-activity.js';
import { callInTrace, requestTrace } from '../../../tracing/trace-scope.js';

/**
 * Mounts the state route: 200 with the getter's raw JSON value (`"closed"`, no envelope, as
 * the Python reference serves it, recorded in the activity feed), 404 for an unknown name; getter errors go to the error
 * middleware like workflow errors.
 */
/** The route of a state read, as express matches it (the fast lane names its spans by it too). */
export const STATE_ROUTE = '/state/:name';

export function mountState(app: Express, surface: HttpSurface): void {
  app.get(STATE_ROUTE, async (req, res) => {
    const getter = surface.state(req.params.name);
    if (getter === undefined) {
      throw new HttpError(404, `no state property named ${preview(req.params.name)} is registered here`);
    }
    sendValue(res, await recorded(surface, 'state', req.params.name, res, () => callInTrace(requestTrace(req), getter)));
  });
  app.all(STATE_ROUTE, methodNotAllowed('GET'));
}
