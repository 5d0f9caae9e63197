/**
 * `POST /workflows/event_trigger/execute`: the receiver's event trigger (spec: Events).
 */
import type { ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { ValueError } from '../../../errors.js';
import { EVENT_TRIGGER_WORKFLOW_NAME } from '../../../iri/endpoints.js';
import { assertIri } from '../../../iri/validate.js';
import { HttpError } from '../../../http/http-error.js';
import { isJsonObject, jsonKind } from '../json-values.js';
import type { HttpSurface, TriggerAnswer } from '../contract.js';
import { OUTCOME_STREAM_TYPE, outcomeLine } from '../../operations/outcome-channel.js';
import { writeJson } from '../../../http/json-response.js';
import { requestTrace } from '../../../tracing/trace-scope.js';

const EXPECTED = 'the event trigger expects a JSON body {"operation_iri": "<iri>"}';

/**
 * Reads the Operation IRI from a trigger body.
 * @throws HttpError 422 when the body is missing or not an object, `operation_iri` is missing
 *   or not a string, or it is not a valid absolute IRI (the message says which and why).
 */
export function operationIriOf(body: unknown): string {
  if (body === undefined) throw new HttpError(422, `${EXPECTED}; the request had no body`);
  if (!isJsonObject(body)) throw new HttpError(422, `${EXPECTED}; got ${jsonKind(body)}`);
  const value = body.operation_iri;
  if (value === undefined) throw new HttpError(422, `${EXPECTED}; operation_iri is missing`);
  if (typeof value !== 'string') throw new HttpError(422, `${EXPECTED}; operation_iri is ${jsonKind(value)}`);
  try {
    return assertIri(value, 'operation_iri');
  } catch (err) {
    if (err instanceof ValueError) throw new HttpError(422, err.message, { cause: err });
    throw err;
  }
}

/** The requester's description of the Operation (`"operation"`), passed on unread; undefined when absent. */
export function descriptionOf(body: unknown): unknown {
  return isJsonObject(body) ? body.operation : undefined;
}

/** The route of the event trigger, as express matches it. */
export const TRIGGER_ROUTE = `/workflows/${EVENT_TRIGGER_WORKFLOW_NAME}/execute`;

/**
 * Answers a trigger whose body is parsed: 200 `{"operation": iri, "status": "queued"}` from
 * `surface.trigger`, whose typed errors (404 unknown Operation, 409 not queued or not ours,
 * 503 store) are thrown for the error handler. A caller that accepts `application/x-ndjson`
 * (and a surface with an outcome channel) gets that answer as the first line of the response
 * and the Operation's outcome as the second, once the receiver knows it (see
 * outcome-channel.ts); the response ends without it when the receiver cannot tell. Serves both
 * the express route and the fast lane.
 */
export async function answerTrigger(surface: HttpSurface, body: unknown, accept: string | undefined, res: ServerResponse): Promise<void> {
  const operationIri = operationIriOf(body);
  const channel = surface.outcome && accept?.includes(OUTCOME_STREAM_TYPE) ? surface.outcome(operationIri) : undefined;
  let answer: TriggerAnswer;
  try {
    answer = await surface.trigger(operationIri, descriptionOf(body), requestTrace(res.req));
  } catch (error) {
    channel?.cancel();
    throw error;
  }
  const ack = { operation: answer.operation, status: answer.status };
  if (!channel) return writeJson(res, 200, ack);
  res.writeHead(200, { 'Content-Type': OUTCOME_STREAM_TYPE });
  res.write(`${JSON.stringify(ack)}\n`);
  res.on('close', channel.cancel);
  const outcome = await channel.outcome;
  res.end(outcome ? outcomeLine(outcome) : undefined);
}

/** Mounts the event trigger (see {@link answerTrigger}). Must be mounted before the generic workflow route. */
export function mountTrigger(app: Express, surface: HttpSurface, json: RequestHandler): void {
  app.post(TRIGGER_ROUTE, json, (req, res) => answerTrigger(surface, req.body, req.get('accept'), res));
}
