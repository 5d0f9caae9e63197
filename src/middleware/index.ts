/**
 * `semantic-middleware/middleware`: the SemanticMiddleware class of the spec and its errors.
 */
export {
  HandoverPreconditionError,
  OntologyGroundTruthError,
  OperationQueueEmpty,
  OperationResolutionError,
  RuntimeError,
  ValueError,
} from '../errors.js';
export { EVENT_TRIGGER_WORKFLOW_NAME } from '../iri/endpoints.js';
