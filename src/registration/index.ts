/**
 * `semantic-middleware/registration`: the spec's in-process registration operations. Every
 * operation takes the OGM first.
 */
export { OGM } from '../ogm/index.js';
export {
  OntologyGroundTruthError,
  OperationResolutionError,
  TransitionConflictError,
  ValueError,
} from '../errors.js';
export * from '../iri/index.js';
export { OperationStatus } from '../vocab/status.js';
