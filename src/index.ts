/**
 * `semantic-middleware`: what a library user needs to open a store, provision the ontology and
 * read and write through the OGM, plus the vocabulary, the IRI helpers and every error class.
 * The spec's modules are the subpaths `semantic-middleware/registration` (the registration
 * operations) and `semantic-middleware/middleware` (the `SemanticMiddleware` class).
 *
 * This list is the package's public API: a symbol added or removed here changes the API report
 * (`api/`, regenerated with `npm run api:update`). Internals are imported by path inside the
 * package, never through this file.
 *
 * @packageDocumentation
 */

// Stores: open one from a spec, or from the text form used by flags and `SM_STORE`.
export { openStore, parseStoreUrl, type StoreSpec, type EmbeddedThreading } from './store/open-store.js';
export type { TripleStore } from './store/triple-store.js';
export { MeasuredStore, type StoreObserver, type StoreRequestKind, type StoreRequestOutcome } from './store/measured-store.js';

// The OGM: the one validated read and write path.
export { OGM, type OgmOptions, type CreateInput, type CommitInput, type Individual, type WrittenIndividual } from './ogm/ogm.js';

// Ontology provisioning: the bundled modules, and the user's own ontology files.
export { provisionOntology, loadOntologyFiles, type ProvisionOptions } from './ontology/provision.js';

// Vocabulary: the spec's terms, this project's own (sm:), the Operation status values and failure kinds.
export { svc, cfc, mes, sm } from './vocab/terms.js';
export { OperationStatus, FailureKind } from './vocab/status.js';

// IRI helpers: validation, address normalization, the lined mangling and the spec's minting.
export { isIri, assertIri } from './iri/validate.js';
export { normalizeAddress } from './iri/address.js';
export { lined, fromLined } from './iri/lined.js';
export {
  mintServiceIri,
  mintWorkflowIri,
  mintCapabilityIri,
  mintStatePropertyIri,
  mintOperationIri,
  mintPossessionStateIri,
} from './iri/mint.js';

// Trace context: the W3C traceparent, and the pino mixin that puts traceId on a logger's lines.
export { parseTraceparent, formatTraceparent, type TraceContext } from './tracing/trace-context.js';
export { traceLogMixin } from './tracing/trace-scope.js';

// Errors: every error class the package throws (`errors.ts` holds nothing else).
export * from './errors.js';
