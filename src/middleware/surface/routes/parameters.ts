/**
 * `GET /parameters`, `GET /parameters/{name}`, `PUT /parameters/{name}`: the resource's
 * interface-accessible parameters served by its semantic connectors. Only northbound facts are
 * answered (name, route, datatype, access mode, value and its age); broker, topics and value
 * paths never leave the connectors.
 */
import type { Express, RequestHandler } from 'express';
import { preview } from '../../../iri/validate.js';
import type { HttpSurface, ParameterSurface } from '../contract.js';
import { HttpError } from '../../../http/http-error.js';
import { isJsonObject, jsonKind } from '../json-values.js';
import { methodNotAllowed } from '../../../http/error-handler.js';
import { recorded } from '../call-activity.js';

/**
 * Mounts the parameter routes: the list (`{"parameters": [...]}`), one parameter's view (404 for
 * an unknown name), and a setpoint write with body `{"value": ...}` answered with the view
 * (405 when the parameter is read-only or this instance does not write, 400 when the value does
 * not fit its datatype, 503 when its broker is not connected; nothing is sent in those cases). A
 * write is recorded in the activity feed.
 */
export function mountParameters(app: Express, surface: HttpSurface, json: RequestHandler): void {
  const parameters = (): ParameterSurface | undefined => surface.parameters;
  const known: RequestHandler<{ name: string }> = (req, _res, next) => {
    if (parameters()?.read(req.params.name) === undefined)
      throw new HttpError(404, `no parameter named ${preview(req.params.name)} is served here`);
    next();
  };
  app.get('/parameters', (_req, res) => {
    res.json({ parameters: parameters()?.list() ?? [] });
  });
  app.all('/parameters', methodNotAllowed('GET'));
  app.get('/parameters/:name', known, (req, res) => {
    res.json(parameters()!.read(req.params.name));
  });
  app.put('/parameters/:name', known, json, async (req, res) => {
    const body: unknown = req.body;
    if (!isJsonObject(body) || !Object.hasOwn(body, 'value'))
      throw new HttpError(
        422,
        `a setpoint body must be a JSON object {"value": ...}, got ${body === undefined ? 'no body' : jsonKind(body)}`,
      );
    res.json(await recorded(surface, 'parameter', req.params.name, res, () => parameters()!.write(req.params.name, body.value)));
  });
  app.all('/parameters/:name', methodNotAllowed('GET', 'PUT'));
}
