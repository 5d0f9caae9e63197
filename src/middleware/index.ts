/**
 * `semantic-middleware/middleware`: the SemanticMiddleware class of the spec
 * (`semantic_middleware.middleware`), its modes, options, callback types and errors.
 *
 * This package has no semantic connectors: `autoregisterConnectors`, `connectorSyncDirection`
 * and `connectorRegistry` are accepted and validated for parity with the spec, and have no effect.
 */
export {
  HandoverPreconditionError,
  OntologyGroundTruthError,
  OperationQueueEmpty,
  OperationResolutionError,
  OperationTimeoutError,
  RuntimeError,
  SemanticMiddlewareError,
  StoreError,
  TransitionConflictError,
  TriggerDeliveryError,
  UnavailableError,
  ValidationError,
  ValueError,
} from '../errors.js';
export { EVENT_TRIGGER_WORKFLOW_NAME } from '../iri/endpoints.js';
export { SemanticMiddleware } from './semantic-middleware.js';
export { APP_TITLE, APP_WELCOME, RECLAIM_REASON, SHUTDOWN_REASON } from './constants.js';
export { Mode, MODES, SyncDirection, SYNC_DIRECTIONS } from './runtime/mode.js';
export type { Phase } from './runtime/context.js';
export type { ClassScope, EnsureTransport, FetchFunction, OutgoingTokens, SemanticMiddlewareOptions, TlsOptions } from './options.js';
export type { WorkflowOptions, StateOptions } from './runtime/registry.js';
export type { Claimed, ClaimBody } from './operations/claim.js';
export type { OperationCallback } from './runtime/callback-worker.js';
export type { RequestOptions, RequestBody, OperationDraft } from './operations/request.js';
export type { HandoverOptions, HandoverBody } from './operations/handover.js';
export type { DataValue } from './operations/operation-data.js';
export { readOperation, waitForOperation, type OperationSnapshot, type WaitOptions } from './operations/operation-watch.js';
export { ActivityFeed, type ActivityEntry, type ActivityKind } from './runtime/activity-feed.js';
export type { HttpSurface, StateGetter, WorkflowHandler, WorkflowArguments, TriggerAnswer } from './surface/contract.js';
