/**
 * Named graphs the product provisions its ontology modules into. Each module goes into the graph
 * named by its `owl:Ontology` IRI, so a module can be replaced without touching the others or
 * the instance data.
 */
export const ONTOLOGY_GRAPHS = Object.freeze({
  /** `ontology/core.ttl`: the subset of Circular Factory Core 0.9.0. */
  core: 'https://w3id.org/circularfactory/Core',
  /** `ontology/service.ttl`: the Service module (`svc:`). */
  service: 'https://w3id.org/circularfactory/Service',
  /** `ontology/mes.ttl`: the MES module (`mes:`). */
  mes: 'https://w3id.org/circularfactory/MES',
  /** `ontology/middleware.ttl`: this project's own terms (`sm:`), beside the shared modules. */
  middleware: 'https://w3id.org/semantic-middleware',
  /** `ontology/shapes.ttl`: the SHACL shapes checked by the OGM. */
  shapes: 'https://w3id.org/semantic-middleware/shapes',
  /** `ontology/examples/plant.ttl`: the example plant (demo and tests only, not provisioned by default). */
  plant: 'https://example.org/plant',
} as const);

/**
 * Prefix of the graph a user ontology file goes into when it declares no `owl:Ontology` IRI and
 * no graph is given: the prefix followed by the percent-encoded file name.
 */
export const FILE_GRAPH_PREFIX = 'urn:semantic-middleware:ontology-file:';
