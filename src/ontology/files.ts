import { fileURLToPath } from 'node:url';
import { ONTOLOGY_GRAPHS } from '../vocab/graphs.js';

/** One ontology module on disk and the named graph it is provisioned into. */
export interface OntologyFile {
  /** Short name for logs and reports (`core`, `service`, ...). */
  readonly name: string;
  /** Absolute path of the Turtle file. */
  readonly path: string;
  /** Named graph the module goes into: its `owl:Ontology` IRI. */
  readonly graph: string;
}

// Resolved against this module's own URL: the code runs from dist/ontology/*.js when built and
// from src/ontology/*.ts under jest, both two levels below the package root.
function bundled(relative: string): string {
  return fileURLToPath(new URL(`../../ontology/${relative}`, import.meta.url));
}

/**
 * The modules shipped in `ontology/`, in load order, each with its own named graph. These are
 * what `provisionOntology` loads by default and what `semantic-sidecar ontology load` loads
 * without file arguments.
 */
export const BUNDLED_ONTOLOGY_FILES: readonly OntologyFile[] = Object.freeze([
  { name: 'core', path: bundled('core.ttl'), graph: ONTOLOGY_GRAPHS.core },
  { name: 'service', path: bundled('service.ttl'), graph: ONTOLOGY_GRAPHS.service },
  { name: 'mes', path: bundled('mes.ttl'), graph: ONTOLOGY_GRAPHS.mes },
  { name: 'middleware', path: bundled('middleware.ttl'), graph: ONTOLOGY_GRAPHS.middleware },
  { name: 'shapes', path: bundled('shapes.ttl'), graph: ONTOLOGY_GRAPHS.shapes },
]);

/**
 * The example plant (`ontology/examples/plant.ttl`) for the demo and the tests. Not provisioned
 * by default; pass it in `files` to `provisionOntology` next to the bundled modules.
 * @example await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] })
 */
export const EXAMPLE_PLANT_FILE: OntologyFile = Object.freeze({
  name: 'plant',
  path: bundled('examples/plant.ttl'),
  graph: ONTOLOGY_GRAPHS.plant,
});
