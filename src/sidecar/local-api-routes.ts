/**
 * Routes of the local API: what a co-located device bridge, in any language, calls to act as a
 * caller. Request, status, cancel and handover stay off the northbound surface, as the spec requires.
 */
import type { ServerResponse } from 'node:http';
import type { ParsedUrlQuery } from 'node:querystring';
import express, { type Request, type Router } from 'express';
import { callerOf } from '../http/token-callers.js';
import { OperationTimeoutError, ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import { LIMITS } from '../limits.js';
import type { SemanticMiddleware } from '../middleware/semantic-middleware.js';
import { snapshotJson, type OperationSnapshot } from '../middleware/operations/operation-watch.js';
import { jsonBody } from '../http/json-body.js';
import { assignOwn } from '../lib/assign-own.js';
import { writeJson } from '../http/json-response.js';
import { parseDeadline } from '../middleware/operations/deadline.js';
import { FailureKind } from '../vocab/status.js';
import type { HandoverSessions } from './handover-sessions.js';
import { methodNotAllowed } from '../http/error-handler.js';
import type { OperationDraft } from '../middleware/operations/request.js';
import { handTrace, requestTrace, traceAware } from '../tracing/trace-scope.js';

/** What the local API routes act on. */
export interface LocalApiTarget {
  middleware: SemanticMiddleware;
  handovers: HandoverSessions;
  /**
   * The caller's identity when its token names none (the socket, a single token), as the graph
   * records it (who requested, cancelled, handed over); see `src/lib/caller-identity.ts`.
   */
  caller: string;
}

type Json = Record<string, unknown>;
/** A query string as the local API reads it (express's simple parser and the lane alike: node:querystring). */
type Query = ParsedUrlQuery;

/** Who makes this request: the named token's holder, else the door's identity. */
function callerId(target: LocalApiTarget, res: ServerResponse): string {
  return callerOf(res)?.id ?? target.caller;
}

function objectOf(body: unknown): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValueError(`the request body must be a JSON object, got ${preview(body)}`);
  }
  return body as Json;
}

function bodyObject(req: Request): Json {
  return objectOf(req.body);
}

function iriField(body: Json, field: string, optional = false): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    if (optional) return undefined;
    throw new ValueError(`${field} is missing from the request body`);
  }
  return assertIri(value, field);
}

function dataField(body: Json): Json {
  const data = body.data ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ValueError(`data must be a JSON object of svc: data fields, got ${preview(data)}`);
  return data as Json;
}

function deadlineField(body: Json): string | undefined {
  const value = body.deadline;
  if (value === undefined || value === null) return undefined;
  // Checked here so that a bad deadline is refused before discovery runs; request() checks it again.
  return parseDeadline(value, 'deadline').toISOString();
}

/**
 * The `waitMs` of a status query (`inQuery`: a string of digits) or of a request's body (a JSON
 * number): 0 when absent, at most {@link LIMITS.longPollMaxMs}.
 */
function waitMs(raw: unknown, inQuery: boolean): number {
  if (raw === undefined || raw === null) return 0;
  const whole = inQuery ? typeof raw === 'string' && /^\d{1,9}$/.test(raw) : Number.isSafeInteger(raw) && (raw as number) >= 0;
  const ms = whole ? Number(raw) : NaN;
  if (Number.isNaN(ms)) throw new ValueError(`waitMs must be a whole number of milliseconds, got ${preview(raw)}`);
  return Math.min(ms, LIMITS.longPollMaxMs);
}

/**
 * Runs `wait` with a signal that aborts if the client's connection closes meanwhile: a long-poll
 * ends with its client. The close listener goes once the wait ended, so the response's own close
 * (every response closes once answered) aborts nothing: on the hot path that abort, with its
 * error and event, cost a caller about 4% of its CPU per Operation.
 */
async function whileConnected<T>(res: ServerResponse, wait: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const gone = new AbortController();
  const abort = (): void => gone.abort(new Error('the client closed the connection'));
  // A request's client may have gone while the Operation was being requested.
  if (res.destroyed || res.socket === null || res.socket.destroyed) abort();
  else res.once('close', abort);
  try {
    return await wait(gone.signal);
  } finally {
    res.off('close', abort);
  }
}

/**
 * The snapshot of `iri`, or its 404 when it is not in the graph: the answer of a status
 * long-poll, and of a request that waited.
 */
function writeSnapshot(res: ServerResponse, iri: string, snapshot: OperationSnapshot | null, status: number, fields: Json = {}): void {
  if (snapshot == null) writeJson(res, 404, { detail: `no Operation <${iri}> is in the graph (never created, or reverted)` });
  else writeJson(res, status, { ...fields, ...snapshotJson(snapshot) });
}

// A long-poll ends with its client: `signal` aborts when the connection closes.
async function operationStatus(target: LocalApiTarget, iri: string, wait: number, signal?: AbortSignal): Promise<OperationSnapshot | null> {
  if (wait > 0) {
    try {
      return await target.middleware.waitForOperation(iri, { timeoutMs: wait, signal });
    } catch (err) {
      if (!(err instanceof OperationTimeoutError)) throw err;
    }
  }
  return target.middleware.readOperation(iri);
}

/**
 * `POST /operations`: requests the Operation `body` describes for the caller of `res`, in the
 * trace of its request; answers 201 `{"operation": iri, "status": "queued"}`. Served by the
 * express route and by the lane (see local-api-lane.ts).
 */
export async function answerRequest(target: LocalApiTarget, body: unknown, res: ServerResponse): Promise<void> {
  const fields = objectOf(body);
  const data = dataField(fields);
  const wait = waitMs(fields.waitMs, false);
  if (wait > 0 && fields.wait === false) throw new ValueError('waitMs waits for the outcome, so it cannot go with wait: false');
  // request() reads the trace before its first await: this request's, so the Operation continues it.
  const operation = await handTrace(requestTrace(res.req), () =>
    target.middleware.request(
      {
        capabilityClass: iriField(fields, 'capabilityClass')!,
        operationClass: iriField(fields, 'operationClass')!,
        operationIri: iriField(fields, 'operationIri', true),
        targetResource: iriField(fields, 'targetResource', true),
        deadline: deadlineField(fields),
        requestedBy: callerId(target, res),
        // The client will wait for the outcome: request() checks `wait` is a boolean before discovery.
        wait: wait > 0 ? true : (fields.wait as boolean | null | undefined),
      },
      traceAware((draft: OperationDraft) => assignOwn(draft.data, data)),
    ),
  );
  if (wait === 0) return writeJson(res, 201, { operation, status: 'queued' });
  const snapshot = await whileConnected(res, (signal) => operationStatus(target, operation, wait, signal));
  writeSnapshot(res, operation, snapshot, 201, { operation });
}

/**
 * `GET /operations/status?iri=...[&waitMs=...]`: the Operation's snapshot, after waiting up to
 * `waitMs` for it to end (the wait ends with the client's connection); 404 when it is not in the
 * graph. Served by the express route and by the lane.
 */
export async function answerStatus(target: LocalApiTarget, query: Query, res: ServerResponse): Promise<void> {
  const iri = assertIri(query.iri, 'iri');
  const wait = waitMs(query.waitMs, true);
  const snapshot = wait > 0 ? whileConnected(res, (signal) => operationStatus(target, iri, wait, signal)) : operationStatus(target, iri, 0);
  writeSnapshot(res, iri, await snapshot, 200);
}

/** Mounts the local API's routes on a router. */
export function localApiRouter(target: LocalApiTarget, bodyLimitBytes: number): Router {
  const router = express.Router();
  const json = jsonBody(bodyLimitBytes);

  router.post('/operations', json, (req, res) => answerRequest(target, req.body, res));
  router.all('/operations', methodNotAllowed('POST'));

  router.get('/operations/status', (req, res) => answerStatus(target, req.query as Query, res));
  router.all('/operations/status', methodNotAllowed('GET'));

  router.post('/operations/cancel', json, async (req, res) => {
    const operation = iriField(bodyObject(req), 'operation')!;
    const result = await target.middleware.cancel(operation, { by: callerId(target, res) });
    const kind = result.outcome === 'cancelled' ? { failureKind: FailureKind.CANCELLED } : {};
    res.status(result.outcome === 'cancelled' ? 200 : 202).json({ ...result, ...kind });
  });

  router.post('/handovers', json, async (req, res) => {
    const body = bodyObject(req);
    const options = {
      mode: iriField(body, 'mode')!,
      workpiece: iriField(body, 'workpiece')!,
      counterpart: iriField(body, 'counterpart')!,
      by: callerId(target, res),
    };
    const handover = await target.handovers.begin(options);
    res.status(201).json({ handover, expiresInMs: LIMITS.localHandoverTtlMs });
  });
  router.all('/handovers', methodNotAllowed('POST'));

  router.post('/handovers/:id/commit', async (req, res) => {
    const possessionState = await target.handovers.commit(String(req.params.id));
    res.json({ handover: req.params.id, possessionState });
  });
  router.all('/handovers/:id/commit', methodNotAllowed('POST'));

  router.post('/handovers/:id/abort', async (req, res) => {
    await target.handovers.abort(String(req.params.id));
    res.json({ handover: req.params.id, aborted: true });
  });
  router.all('/handovers/:id/abort', methodNotAllowed('POST'));
  return router;
}
