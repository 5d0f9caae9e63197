/**
 * semantic-middleware: the vocabulary, IRIs, store seam, OGM and ontology provisioning. The
 * spec's modules are the subpaths `semantic-middleware/registration` and
 * `semantic-middleware/middleware`.
 */
export * from './errors.js';
export * from './vocab/index.js';
export * from './iri/index.js';
export * from './ogm/index.js';
export { LIMITS } from './limits.js';
export type { TripleStore, Bindings, RdfFormat, LoadOptions, ConditionalUpdateCheck } from './store/triple-store.js';
export { namedNode, literal, langLiteral, dateTimeLiteral, type Term, type NamedNodeTerm, type LiteralTerm } from './store/terms.js';
export { openStore, parseStoreUrl, type StoreSpec } from './store/open-store.js';
export { openEmbeddedStore } from './store/embedded-store.js';
export { openRemoteStore, type RemoteStoreOptions } from './store/remote-store.js';
export { provisionOntology, loadOntologyFiles } from './ontology/provision.js';
export { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE, type OntologyFile } from './ontology/files.js';
