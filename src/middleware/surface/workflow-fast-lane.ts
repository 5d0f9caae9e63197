/**
 * The hot paths, `POST /workflows/{name}/execute`, `GET /state/{name}` and the event trigger,
 * served without express when the request is an ordinary one. Measured on the reference machine,
 * express's routing, body parser and response helpers took about 0.4 ms of the 1.2 ms a proxied
 * call added to a direct device call; the lane below serves the same answer in the same bytes
 * without them.
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { EVENT_TRIGGER_WORKFLOW_NAME } from '../../iri/endpoints.js';
import { LIMITS } from '../../limits.js';
import { callerMatcher, mayRun, openCaller, setCaller, type TokenCaller } from '../../http/token-callers.js';
import { HTTP_OPEN_CALLER, HTTP_TOKEN_CALLER } from '../../lib/caller-identity.js';
import { answerError } from '../../http/error-handler.js';
import { isPlainJsonRequest, readJsonBody } from '../../http/json-body.js';
import { writeJson } from '../../http/json-response.js';
import type { TraceContext } from '../../tracing/trace-context.js';
import { callInTrace, requestTrace } from '../../tracing/trace-scope.js';
import { STATE_ROUTE } from './routes/state.js';
import { answerTrigger, TRIGGER_ROUTE } from './routes/trigger.js';
import { WORKFLOW_ROUTE, workflowArguments } from './routes/workflows.js';
import type { HttpSurface, StateGetter, WorkflowHandler } from './contract.js';
import { recordCall } from './call-activity.js';
import { decodedName, WORKFLOW_PATH } from './workflow-limits.js';

const STATE_PATH = /^\/state\/([^/]+)$/;
const OPEN = openCaller(HTTP_OPEN_CALLER);
const WORKFLOW_ROUTE_MATCHED = Object.freeze({ path: WORKFLOW_ROUTE });
const STATE_ROUTE_MATCHED = Object.freeze({ path: STATE_ROUTE });
const TRIGGER_ROUTE_MATCHED = Object.freeze({ path: TRIGGER_ROUTE });
const NO_QUERY = Object.freeze({});

/** What an ordinary request calls: a workflow with its query, a state getter or the event trigger; by whom. */
type LaneMatch = { path: string; name: string; caller: TokenCaller } & (
  { handler: WorkflowHandler; query: string } | { getter: StateGetter } | { trigger: true }
);

/**
 * Wraps the surface's express `app`: a request goes down the lane only if express would route
 * it to a registered workflow, the event trigger or a state getter and read its body without
 * trouble, that is: POST to exactly `/workflows/{name}/execute` of a registered workflow or of
 * the event trigger, authorized when the surface has a token (for a workflow-limited token, one
 * that may run it), a body of declared length within the limit, no Content-Encoding, and no
 * Content-Type or JSON in UTF-8; or GET of exactly `/state/{name}` of a registered state,
 * authorized. A workflow call or state read is recorded in the activity feed with its caller, as
 * express's routes record it; the trigger answers as its route does (answerTrigger). Every other
 * request (and so every refusal of the request itself but a body that is not valid UTF-8 or not
 * JSON) goes to `app` untouched. Errors of the call answer exactly as express's error middleware
 * does (see answerError).
 */
export function withWorkflowFastLane(surface: HttpSurface, app: RequestListener): RequestListener {
  const limit = surface.bodyLimitBytes ?? LIMITS.httpBodyLimitBytes;
  const callerFor = surface.token === undefined ? () => OPEN : callerMatcher(surface.token, HTTP_TOKEN_CALLER);
  const laneFor = (req: IncomingMessage): LaneMatch | undefined => {
    const { method } = req;
    if (method !== 'POST' && method !== 'GET') return undefined;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (method === 'GET') {
      const name = decodedName(STATE_PATH.exec(path)?.[1]);
      const getter = name === undefined ? undefined : surface.state(name);
      const caller = getter && callerFor(req.headers.authorization);
      return caller ? { getter, path, name: name!, caller } : undefined;
    }
    const name = decodedName(WORKFLOW_PATH.exec(path)?.[1]);
    if (name === undefined || !isPlainJsonRequest(req, limit)) return undefined;
    // Only the trigger's own path (its query string ignored, as its express route ignores it):
    // an escaped spelling of its name is routed by express as a workflow, and answered there.
    const trigger = path === TRIGGER_ROUTE;
    if (!trigger && name === EVENT_TRIGGER_WORKFLOW_NAME) return undefined;
    const handler = trigger ? undefined : surface.workflow(name);
    if (!trigger && !handler) return undefined;
    // A caller whose token does not allow this workflow goes to express, which answers 403.
    const caller = callerFor(req.headers.authorization);
    if (!caller || !mayRun(caller, name)) return undefined;
    if (trigger) return { trigger, path, name, caller };
    return { handler: handler!, path, name, caller, query: q < 0 ? '' : url.slice(q + 1) };
  };
  return (req, res) => {
    const lane = laneFor(req);
    if (lane === undefined) return app(req, res);
    setCaller(res, lane.caller);
    if ('trigger' in lane) {
      (req as IncomingMessage & { route?: { path: string } }).route = TRIGGER_ROUTE_MATCHED;
      readJsonBody(req)
        .then((body) => answerTrigger(surface, body, req.headers.accept, res))
        .catch((err: unknown) => answerError(surface.logger, err, { method: req.method!, path: lane.path }, res));
      return;
    }
    const isRead = 'getter' in lane;
    // The route express would have matched, as express records it (a span is named by it).
    (req as IncomingMessage & { route?: { path: string } }).route = isRead ? STATE_ROUTE_MATCHED : WORKFLOW_ROUTE_MATCHED;
    const trace = requestTrace(req);
    const answered = isRead ? read(lane.getter, trace) : execute(lane.handler, lane.query, req, trace);
    const call = isRead ? 'state' : 'workflow';
    // A value JSON cannot serialize fails in writeJson: answered as express answers it, a 500.
    answered
      .then((value) => {
        writeJson(res, 200, value);
        recordCall(surface, call, lane.name, res, 200);
      })
      .catch((err: unknown) => {
        answerError(surface.logger, err, { method: req.method!, path: lane.path }, res);
        recordCall(surface, call, lane.name, res, res.statusCode);
      });
  };
}

/** The getter's value; a throw becomes a rejection, as express 5 turns it into an error. */
function read(getter: StateGetter, trace: TraceContext | undefined): Promise<unknown> {
  return new Promise((resolve) => resolve(callInTrace(trace, getter)));
}

async function execute(handler: WorkflowHandler, query: string, req: IncomingMessage, trace: TraceContext | undefined): Promise<unknown> {
  const body = await readJsonBody(req);
  return callInTrace(trace, handler, workflowArguments(query === '' ? NO_QUERY : parseQuery(query), body));
}
