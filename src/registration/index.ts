/**
 * `semantic-middleware/registration`: the spec's in-process registration operations
 * (`semantic_middleware.registration`). Every operation takes the OGM first and an optional
 * `namedGraph`; every write goes through the OGM's validated path, one request per write.
 *
 * A transition that loses its compare-and-set (another writer moved the Operation first)
 * throws {@link TransitionConflictError}; it is never silent.
 */
export { OGM } from '../ogm/index.js';
export { OntologyGroundTruthError, OperationResolutionError, TransitionConflictError, ValidationError, ValueError } from '../errors.js';
export * from '../iri/index.js';
export { OperationStatus } from '../vocab/status.js';
export { assertClassRegistered, type GraphOption } from './classes.js';
export * from './services.js';
export {
  findRunningOperations,
  findStaleServices,
  sweepStaleServices,
  SWEEP_REASON,
  type RunningOperation,
  type StalenessOptions,
  type SweepOptions,
} from './liveness.js';
export {
  createOperation,
  revertOperation,
  findResourceOperations,
  findServiceOperations,
  setOperationStatus,
  recordTerminalStatus,
  markOperationFailed,
  type OperationData,
  type CreateOperationOptions,
  type RevertOperationOptions,
} from './operations.js';
export type { SetOperationStatusOptions, RecordTerminalStatusOptions, MarkOperationFailedOptions } from './operation-status.js';
export { OPERATION_TRANSITIONS } from './transitions.js';
export { resolveDispatchTarget, resolveOperationWorkflow, type DispatchTarget, type ResolveDispatchTargetOptions } from './dispatch.js';
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
