import type { RequestListener, Server } from 'node:http';
import type express from 'express';
import type { ActivityFeed } from './runtime/activity-feed.js';
import { CallbackWorker, type CallbackOptions, type OperationCallback } from './runtime/callback-worker.js';
import { claimNext, type ClaimBody } from './operations/claim.js';
import { APP_TITLE } from './constants.js';
import { MiddlewareContext, type Phase } from './runtime/context.js';
import { handover, type HandoverBody, type HandoverOptions } from './operations/handover.js';
import { createApp } from './surface/app.js';
import type { HttpSurface, StateGetter, WorkflowHandler } from './surface/contract.js';
import { withWorkflowFastLane } from './surface/workflow-fast-lane.js';
import { withAccessLog } from '../http/access-log.js';
import { tracedListener } from '../tracing/traced-listener.js';
import { buildSurface } from './surface/middleware-surface.js';
import { Lifecycle } from './runtime/lifecycle.js';
import { emitHeartbeat, sweep } from './runtime/liveness.js';
import type { Mode } from './runtime/mode.js';
import { readOperation, waitForOperation, type OperationSnapshot } from './operations/operation-watch.js';
import type { ClassScope, SemanticMiddlewareOptions } from './options.js';
import { assertRegistrationOpen, type StateOptions, type WorkflowOptions } from './runtime/registry.js';
import { request, type RequestBody, type RequestOptions } from './operations/request.js';
import { cancel, type CancelOptions } from './operations/cancel.js';
import type { CancelResult } from '../registration/cancellation.js';
import { resolveOptions } from './resolve-options.js';

/**
 * The spec's `SemanticMiddleware` (`semantic_middleware.middleware`) in TypeScript: one
 * instance wraps one resource (resource mode) or sweeps stale Services (watchdog mode), and
 * serves an HTTP surface. The spec's context managers are async callbacks with the same exit
 * semantics, its decorators are registration calls (DESIGN §7).
 *
 * Classes given to `workflow` and `state` are checked against the ontology at `start()`, before
 * anything is written: a missing class makes `start()` reject with nothing reachable.
 *
 * @example
 * const mw = new SemanticMiddleware({ resourceIri: plant.door1, serviceClass: plant.ControllerService, ogm, port: 0 });
 * mw.workflow({ capabilityClass: plant.DoorOpeningCapability, workflowClass: plant.OpenDoorWorkflow }, function open() { return 'opened'; });
 * mw.registerCallback(async (claimed) => `opened to ${claimed.data.angle}`);
 * await mw.start();
 * // elsewhere: const op = await planner.request({ capabilityClass, operationClass }, (d) => { d.data.angle = 90; });
 * await mw.stop();
 */
export class SemanticMiddleware {
  /** Title of the web application. */
  static readonly APP_TITLE = APP_TITLE;
  readonly #ctx: MiddlewareContext;
  readonly #worker: CallbackWorker;
  readonly #lifecycle: Lifecycle;
  #app: express.Express | undefined;
  #httpSurface: HttpSurface | undefined;

  /**
   * @param options see {@link SemanticMiddlewareOptions}; every value is validated here.
   * @throws ValueError for an unknown mode, a missing required option (each one named) or an invalid value.
   * @throws RuntimeError for `Mode.SERVER` (reserved, not implemented).
   */
  constructor(options: SemanticMiddlewareOptions) {
    this.#ctx = new MiddlewareContext(resolveOptions(options));
    this.#worker = new CallbackWorker(this.#ctx, (body, scope, onWritingDone) => claimNext(this.#ctx, body, scope, onWritingDone));
    this.#lifecycle = new Lifecycle(this.#ctx, this.#worker, () =>
      tracedListener(withAccessLog(withWorkflowFastLane(this.#surface(), this.app), this.#ctx.logger, this.#ctx.options.accessLogLevel)),
    );
  }

  /** The instance's mode. */
  get mode(): Mode {
    return this.#ctx.options.mode;
  }

  /** Where the instance is in its life: `new`, `starting`, `started`, `stopping`, `stopped`. */
  get phase(): Phase {
    return this.#ctx.phase;
  }

  /**
   * The web application (root and favicon routes patched once), created on first use. Typed as
   * Node's request listener so the published types do not depend on express's.
   */
  get app(): RequestListener {
    this.#app ??= createApp(this.#surface());
    return this.#app;
  }

  #surface(): HttpSurface {
    this.#httpSurface ??= buildSurface(this.#ctx, this.#worker);
    return this.#httpSurface;
  }

  /** The Service IRI (resource mode), once the address is known. */
  get serviceIri(): string | undefined {
    return this.#ctx.serviceIri;
  }

  /** The normalized base address, once known (with port 0: after `start()`). */
  get address(): string | undefined {
    return this.#ctx.address;
  }

  /** The HTTP server while listening. */
  get server(): Server | undefined {
    return this.#lifecycle.server;
  }

  /** The activity feed, when `activityFeed` is on. */
  get activity(): ActivityFeed | undefined {
    return this.#ctx.activity;
  }

  /** IRIs of the Operations queued in this instance, head first. */
  get queued(): string[] {
    return this.#ctx.queue.snapshot();
  }

  /**
   * Starts the instance. Resource mode: `ensureTransport`, listen, check every class, register
   * the Service unreachable, its Workflows and StateProperties, rebuild the queue (own queued
   * Operations re-enqueued, own running ones failed), make the Service reachable with a
   * heartbeat, then heartbeat every `heartbeatInterval`. Watchdog mode: listen, then sweep at
   * once and every `sweepInterval`. A repeated call returns the same promise.
   * @throws RuntimeError after `stop()`; the error of the failed step (with nothing reachable).
   */
  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  /**
   * Stops: triggers answer 503, loops end, in-flight work gets `shutdownGraceMs` before it is
   * failed, queued Operations stay queued in the graph, the Service is deregistered, the server
   * closes. Idempotent.
   */
  stop(): Promise<void> {
    return this.#lifecycle.stop();
  }

  /**
   * Registers a workflow served at `POST /workflows/{name}/execute` and, at start, its Workflow
   * and Capability in the graph. Synchronous; the classes are checked at `start()`.
   * @throws RuntimeError outside resource mode or after start; ValueError for a missing or
   *   non-IRI class, or an invalid, reserved (`event_trigger`) or duplicate name.
   */
  workflow(options: WorkflowOptions, handler: WorkflowHandler): void {
    assertRegistrationOpen(this.#ctx.options.mode, this.#ctx.phase, 'workflow()');
    this.#ctx.registry.addWorkflow(options, handler);
  }

  /**
   * Registers a state getter served at `GET /state/{name}` and, at start, its StateProperty
   * (stable endpoint only, never the live value) and Capability. Same rules as {@link workflow}.
   */
  state(options: StateOptions, getter: StateGetter): void {
    assertRegistrationOpen(this.#ctx.options.mode, this.#ctx.phase, 'state()');
    this.#ctx.registry.addState(options, getter);
  }

  /** Refreshes the heartbeat once (re-registering the Service if it was swept). See `liveness.ts`. */
  emitHeartbeat(): Promise<void> {
    return emitHeartbeat(this.#ctx);
  }

  /** Sweeps stale Services once; returns the swept Service IRIs. */
  sweep(): Promise<string[]> {
    return sweep(this.#ctx);
  }

  /** Dispatches an Operation to a reachable receiver; returns its IRI. See `request.ts`. */
  request(options: RequestOptions, body?: RequestBody): Promise<string> {
    return request(this.#ctx, options, body);
  }

  /**
   * Cancels an Operation: a queued one is failed at once, a running one is told to stop (its
   * receiver aborts the work and fails it), both with failure kind `cancelled` and who cancelled
   * it (`options.by`, default this instance's Service or resource). See `cancel.ts`.
   * @throws TransitionConflictError (409) when it is done or failed already; OperationResolutionError (404) when it does not exist.
   */
  cancel(operationIri: string, options?: CancelOptions): Promise<CancelResult> {
    return cancel(this.#ctx, operationIri, options);
  }

  /** Claims and runs the next queued Operation; returns its result. See `claim.ts`. */
  claimNext(body: ClaimBody, scope?: ClassScope | null): Promise<unknown> {
    return claimNext(this.#ctx, body, scope);
  }

  /**
   * Runs `callback` on every enqueued Operation in the background, one at a time unless
   * `options.concurrency` allows more (see {@link CallbackOptions}); its return value is recorded
   * as the result. Without one, Operations wait for a manual `claimNext`.
   * @throws RuntimeError outside resource mode or when a callback is registered already.
   * @throws ValueError for a concurrency that is not an integer from 1 to `LIMITS.maxCallbackConcurrency`.
   */
  registerCallback(callback: OperationCallback, scope?: ClassScope | null, options?: CallbackOptions | null): void {
    this.#ctx.resource('registerCallback');
    this.#worker.register(callback, scope, options);
  }

  /** Hands a workpiece over to a counterpart; returns the new PossessionState IRI. See `handover.ts`. */
  handover(options: HandoverOptions, body?: HandoverBody): Promise<string> {
    return handover(this.#ctx, options, body);
  }

  /** The Operation's status and outcome, or null when it does not exist. */
  readOperation(operationIri: string): Promise<OperationSnapshot | null> {
    return readOperation(this.#ctx.ogm, operationIri, this.#ctx.graph);
  }

  /**
   * Waits for the Operation's terminal status; OperationTimeoutError after `timeoutMs`. For an
   * Operation this instance requested with `wait`, the outcome its receiver announces ends the
   * wait without a store read; otherwise (or when none comes) the store is read.
   */
  waitForOperation(operationIri: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<OperationSnapshot> {
    const awaited = this.#ctx.awaited;
    const outcome = typeof operationIri === 'string' ? awaited.peek(operationIri) : undefined;
    return waitForOperation(this.#ctx.ogm, operationIri, Object.assign({}, options, this.#ctx.graph, outcome && { outcome })).then(
      (snapshot) => {
        awaited.consumed(operationIri);
        return snapshot;
      },
    );
  }
}
