/**
 * `semantic-middleware/registration`: the spec's in-process registration operations
 * (`semantic_middleware.registration`). Every operation takes the OGM first and an optional
 * `namedGraph`; every write goes through the OGM's validated path, one request per write.
 * The OGM, the vocabulary and the IRI minting functions come from the package root.
 *
 * A transition that loses its compare-and-set (another writer moved the Operation first)
 * throws {@link TransitionConflictError}; it is never silent.
 *
 * @packageDocumentation
 */

// Class checks and the option every operation takes.
export { assertClassRegistered, type GraphOption } from './classes.js';

// Services, their Workflows and StateProperties, heartbeats.
export {
  registerService,
  makeServiceReachable,
  registerWorkflow,
  registerStateProperty,
  deregisterService,
  updateHeartbeat,
  servicesOfResource,
  type RegisterServiceOptions,
  type MakeReachableOptions,
  type RegisterWorkflowOptions,
  type RegisterStatePropertyOptions,
  type HeartbeatOptions,
  type ServicesOfResourceOptions,
} from './services.js';
// The spec's endpoint URL builders: the `endpoint` of registerWorkflow / registerStateProperty,
// and the receiver's event trigger.
export { buildWorkflowEndpoint, buildStateEndpoint, buildEventTriggerUrl } from '../iri/endpoints.js';

// Liveness: stale Services and the watchdog's sweep.
export { findStaleServices, type StalenessOptions } from './liveness.js';
export { sweepStaleServices, SWEEP_REASON, type SweepOptions } from './sweep.js';

// Operations: create and revert, status transitions, lookups.
export {
  createOperation,
  revertOperation,
  findResourceOperations,
  findServiceOperations,
  setOperationStatus,
  recordTerminalStatus,
  markOperationFailed,
  cancelOperation,
  type OperationData,
  type CreateOperationOptions,
  type RevertOperationOptions,
  type SetOperationStatusOptions,
  type RecordTerminalStatusOptions,
  type MarkOperationFailedOptions,
  type CancelOperationOptions,
  type CancelResult,
} from './operations.js';

// Dispatch: where an Operation goes, and which Workflow ran it.
export { resolveDispatchTarget, resolveOperationWorkflow, type DispatchTarget, type ResolveDispatchTargetOptions } from './dispatch.js';

// Possession: the change-of-possession primitive and its reads.
export {
  createPossession,
  switchPossession,
  findPossessionState,
  currentPossessor,
  counterpartHasComplementaryAbility,
  type CreatePossessionOptions,
  type SwitchPossessionOptions,
  type CurrentPossession,
} from './possession.js';

// Errors the operations above throw (all of them are exported by the package root too).
export {
  SemanticMiddlewareError,
  OntologyGroundTruthError,
  OperationResolutionError,
  TransitionConflictError,
  ValidationError,
  ValueError,
} from '../errors.js';
