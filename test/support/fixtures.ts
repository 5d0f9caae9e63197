import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../../src/ontology/files.js';
import { provisionOntology } from '../../src/ontology/provision.js';
import type { TripleStore } from '../../src/store/triple-store.js';

export type StoreKind = 'embedded' | 'remote';

/** The remote endpoint under test, from SPARQL_ENDPOINT (set by `.ci/run` after starting Virtuoso). */
export function remoteEndpoint(): string | undefined {
  return process.env.SPARQL_ENDPOINT || undefined;
}

/**
 * A store provisioned with the product's ontology and the example plant: a fresh in-memory
 * embedded store, or the remote endpoint when SPARQL_ENDPOINT is set (undefined otherwise, and
 * the caller announces the skip).
 */
export async function openTestStore(kind: StoreKind): Promise<TripleStore | undefined> {
  let store: TripleStore;
  if (kind === 'embedded') store = await openEmbeddedStore({});
  else {
    const url = remoteEndpoint();
    if (!url) return undefined;
    store = openRemoteStore({ queryUrl: url });
  }
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  return store;
}
