/**
 * `POST /workflows/{name}/execute`: runs a registered workflow with the request's arguments.
 */
import type { Express, Request, RequestHandler } from 'express';
import { preview } from '../../../iri/validate.js';
import { HttpError } from '../../../http/http-error.js';
import { isJsonObject, jsonKind, sendValue } from '../json-values.js';
import type { HttpSurface, WorkflowArguments, WorkflowHandler } from '../contract.js';
import { methodNotAllowed } from '../../../http/error-handler.js';
import { recorded } from '../call-activity.js';
import { callInTrace, requestTrace } from '../../../tracing/trace-scope.js';
import { assignOwn } from '../../../lib/assign-own.js';

/**
 * The workflow's arguments: query parameters (the Python reference sends one scalar argument
 * as `?arg=`) with the JSON object body merged over them; no body gives the query alone.
 * @throws HttpError 422 when the body is JSON but not an object.
 */
export function workflowArguments(query: Request['query'], body: unknown): WorkflowArguments {
  if (body === undefined) return { ...query };
  if (!isJsonObject(body)) {
    throw new HttpError(422, `workflow arguments must be a JSON object keyed by parameter name, got ${jsonKind(body)}`);
  }
  return assignOwn({}, query, body);
}

/**
 * Mounts the workflow route: 404 for a name nobody registered (checked before the body is
 * read), else 200 with the handler's raw JSON return value, recorded in the activity feed. Handler errors go to the error
 * middleware: their own 4xx/5xx status, 409 for conflicts, else 500 with the message.
 */
/** The route of a workflow call, as express matches it (the fast lane names its spans by it too). */
export const WORKFLOW_ROUTE = '/workflows/:name/execute';

export function mountWorkflows(app: Express, surface: HttpSurface, json: RequestHandler): void {
  const find: RequestHandler<{ name: string }> = (req, res, next) => {
    const handler = surface.workflow(req.params.name);
    if (handler === undefined) {
      throw new HttpError(404, `no workflow named ${preview(req.params.name)} is registered here`);
    }
    res.locals.workflow = handler;
    next();
  };
  app.post(WORKFLOW_ROUTE, find, json, async (req, res) => {
    const handler = res.locals.workflow as WorkflowHandler;
    sendValue(
      res,
      await recorded(surface, 'workflow', req.params.name, res, () =>
        callInTrace(requestTrace(req), handler, workflowArguments(req.query, req.body)),
      ),
    );
  });
  app.all(WORKFLOW_ROUTE, methodNotAllowed('POST'));
}
