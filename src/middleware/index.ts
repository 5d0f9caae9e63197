/**
 * `semantic-middleware/middleware`: the SemanticMiddleware class of the spec
 * (`semantic_middleware.middleware`), its modes, options, callback types and errors.
 * The OGM, the store and the vocabulary come from the package root.
 *
 * Semantic connectors (`autoregisterConnectors`, `connectorSyncDirection`, `connectorRegistry`,
 * `ensureTransport`) serve the resource's interface-accessible parameters recognized from the
 * graph; MQTT, OPC UA and REST ship, and a `ConnectorBinding` registered in a `ConnectorRegistry`
 * adds a protocol. `openMqttWorkflows` binds the workflows the graph declares as invoked over MQTT 5
 * request/response, `openOpcuaWorkflows` those bound to OPC UA methods; `connectorCredentials`
 * gives the brokers' and servers' user names, passwords and TLS.
 *
 * @packageDocumentation
 */

// The class and its construction.
export { SemanticMiddleware } from './semantic-middleware.js';
export type {
  ClassScope,
  DeviceHealthProbe,
  DeviceHealthReport,
  EnsureTransport,
  FetchFunction,
  OutgoingTokens,
  SemanticMiddlewareOptions,
  TlsOptions,
} from './options.js';
export { Mode } from './runtime/mode.js';
export { SyncDirection } from '../connectors/wiring.js';
export { ConnectorRegistry, defaultConnectorRegistry, type DefaultConnectorRegistryOptions } from '../connectors/registry.js';
export { ParameterNotWritableError } from '../connectors/errors.js';
export type {
  AccessMode,
  ConnectorBinding,
  ConnectorContext,
  ConnectorSession,
  ParameterDeclaration,
  PeerAccess,
  Reception,
  TransportAddress,
} from '../connectors/binding.js';
export { restBinding, type RestBindingOptions } from '../connectors/rest/binding.js';
export { opcuaBinding, type OpcuaBindingOptions } from '../connectors/opcua/binding.js';
export { openOpcuaWorkflows, type OpcuaWorkflows, type OpenOpcuaWorkflowsOptions } from '../connectors/opcua/workflows.js';
export type { ParameterValue } from '../connectors/datatypes.js';
export type { ConnectorCredentials, TransportCredentials } from '../connectors/credentials.js';
export {
  openMqttWorkflows,
  type BoundMqttWorkflow,
  type MqttWorkflows,
  type OpenMqttWorkflowsOptions,
} from '../connectors/mqtt/workflows.js';
export type { ParameterView } from '../connectors/connector-set.js';
export type { Phase } from './runtime/context.js';

// Serving: workflows and state properties, and the built-in event-trigger workflow's name.
export type { WorkflowOptions, StateOptions } from './runtime/registry.js';
export type { StateGetter, WorkflowHandler, WorkflowArguments } from './surface/contract.js';
export type { NamedToken } from '../http/named-tokens.js';
export { EVENT_TRIGGER_WORKFLOW_NAME } from '../iri/endpoints.js';

// Dispatching and running Operations: request, claimNext / registerCallback, handover.
export type { RequestOptions, RequestBody, OperationDraft } from './operations/request.js';
export type { CancelOptions } from './operations/cancel.js';
export type { CancelResult } from '../registration/cancellation.js';
export type { Claimed, ClaimBody } from './operations/claim.js';
export type { CallbackOptions, OperationCallback } from './runtime/callback-worker.js';
export type { DataValue } from './operations/operation-data.js';
export type { HandoverOptions, HandoverBody } from './operations/handover.js';

// Watching an Operation's outcome, with or without an instance.
export { readOperation, waitForOperation, type OperationSnapshot, type WaitOptions } from './operations/operation-watch.js';

// The activity feed (`activityFeed: true`).
export type { ActivityFeed, ActivityEntry, ActivityKind } from './runtime/activity-feed.js';

// Fixed texts: the web application's title and welcome, and the reasons the middleware writes
// into `svc:executionResult` when it fails an Operation itself.
export { APP_TITLE, APP_WELCOME, RECLAIM_REASON, SHUTDOWN_REASON } from './constants.js';

// Errors: every error class, as the package root exports them (`errors.ts` holds nothing else).
export * from '../errors.js';
