/**
 * The contract between the HTTP surface (express routes and the fast lane, on the HTTP kit in
 * src/http) and the middleware behind it. The surface parses and validates requests, calls
 * these functions, and turns their answers and typed errors into JSON responses; it knows
 * nothing about the graph. One middleware instance fills it in `buildSurface`
 * (middleware-surface.ts); tests fill it by hand.
 */
import type { Logger } from '../../lib/logger.js';
import type { ActivityFeed } from '../runtime/activity-feed.js';
import type { ConnectorSet } from '../../connectors/connector-set.js';
import type { MetricsText } from '../../metrics/exposition.js';
import type { TokenSet } from '../../http/named-tokens.js';
import type { Outcome } from '../operations/outcome-channel.js';
import type { TraceContext } from '../../tracing/trace-context.js';

/**
 * Arguments of a workflow call: the JSON object body, merged over the query parameters (the
 * Python reference sends a single scalar argument as `?arg=`).
 */
export type WorkflowArguments = Record<string, unknown>;

/** A registered workflow: its JSON-serializable return value is the response body. */
export type WorkflowHandler = (args: WorkflowArguments) => unknown;

/** A state-property getter: its JSON-serializable return value is the live value served. */
export type StateGetter = () => unknown;

/** What the event trigger answers once the Operation is enqueued (or already was). */
export interface TriggerAnswer {
  operation: string;
  status: 'queued';
}

/** What the parameter routes ask of the semantic connectors. */
export type ParameterSurface = Pick<ConnectorSet, 'list' | 'read' | 'write'>;

/** What the HTTP surface serves; supplied by the middleware. */
export interface HttpSurface {
  /** Body of `GET /` (served as a JSON string). */
  welcome: string;
  /** The workflow registered under `name`, if any (the event trigger is not one of them). */
  workflow(name: string): WorkflowHandler | undefined;
  /** The state getter registered under `name`, if any. */
  state(name: string): StateGetter | undefined;
  /**
   * Enqueue an Operation named by the event trigger. Throws OperationResolutionError (404) when
   * no such Operation exists, TransitionConflictError (409) when it is not queued or not addressed
   * to a Capability this Service realizes, RuntimeError (409/503 while stopping), StoreError (503).
   * `description` is the requester's description of the Operation (`"operation"` of the body),
   * unread: ValueError (400) when it is malformed. `trace` is the trigger request's: the
   * Operation's run continues it.
   */
  trigger(operationIri: string, description?: unknown, trace?: TraceContext): Promise<TriggerAnswer>;
  /**
   * Listens for the outcome of an Operation triggered here (the trigger's outcome channel):
   * resolves with its snapshot once its terminal write applied, or null when it is not known for
   * sure (in time); `cancel` stops listening. The trigger answers a single JSON object without it.
   */
  outcome?(operationIri: string): { outcome: Promise<Outcome>; cancel: () => void };
  /** Liveness for `GET /healthz`: the process serves. */
  live(): boolean;
  /**
   * Whether this instance is the Service `serviceIri`: `GET /healthz` says so to a twin's
   * start-up probe that names the Service it expects (see `twin-probe.ts`). Absent: never asked.
   */
  isService?(serviceIri: string): boolean;
  /** Readiness for `GET /readyz`: registered (in resource mode) and the store answers. */
  ready(): Promise<boolean>;
  /** The semantic connectors' parameters; `/parameters` lists none without them. */
  parameters?: ParameterSurface;
  /** The activity feed, when enabled; `/activity` answers 404 otherwise. */
  activity?: ActivityFeed;
  /** The `GET /metrics` exposition; `/metrics` answers 404 without it. */
  metrics?: () => Promise<MetricsText>;
  /** Largest accepted request body in bytes (default LIMITS.httpBodyLimitBytes). */
  bodyLimitBytes?: number;
  /**
   * Bearer token (or named tokens) every route requires except `GET /`, `/favicon.ico`,
   * `/healthz` and `/readyz` (see `bearerAuth`); undefined: no authentication.
   */
  token?: TokenSet;
  logger: Logger;
}
