import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOntologyFiles, provisionOntology } from '../../src/ontology/provision.js';
import { loadSidecarConfig, storeSpecOf, type SidecarConfig } from '../../src/sidecar/config.js';
import { openStore } from '../../src/store/open-store.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { ONTOLOGY_GRAPHS } from '../../src/vocab/index.js';
import { remoteEndpoint, type StoreKind } from '../support/fixtures.js';
import { itOnStore } from '../support/per-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sm-config-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** door1.yaml, on the embedded store's default data dir or on the remote store under test. */
async function door1(kind: StoreKind, graph: string): Promise<SidecarConfig | undefined> {
  const env: NodeJS.ProcessEnv = { STATE_DIRECTORY: join(dir, 'state'), SIDECAR_GRAPH: graph };
  if (kind === 'remote') {
    const endpoint = remoteEndpoint();
    if (!endpoint) return undefined;
    env.SM_STORE = endpoint;
  }
  return loadSidecarConfig({ file: join(root, 'config', 'door1.yaml'), env, cwd: dir });
}

/** Opens the configured store and provisions what the config asks for, as the daemon will. */
async function openProvisioned(config: SidecarConfig): Promise<TripleStore> {
  const store = await openStore(storeSpecOf(config.store));
  if (config.provisionOntology) {
    await provisionOntology(store);
    await loadOntologyFiles(store, config.ontologyFiles);
  }
  return store;
}

const PLANT_CLASS = `ASK { GRAPH <${ONTOLOGY_GRAPHS.plant}> { <https://example.org/plant#OpenDoorWorkflow> a <http://www.w3.org/2002/07/owl#Class> } }`;

describe.each<StoreKind>(['embedded', 'remote'])('the configured store (%s)', (kind) => {
  const graph = `urn:semantic-middleware:test:config-store:${kind}:${process.pid}`;

  itOnStore(kind)('should open the store the config names, provision its ontology files and write to its named graph', async () => {
    const config = await door1(kind, graph);
    if (!config) throw new Error('door1: no config for a configured store');
    expect(storeSpecOf(config.store).kind).toBe(kind === 'remote' ? 'remote' : 'embedded');
    // Listing ontology files turns provisioning on even for a remote store.
    expect(config.provisionOntology).toBe(true);
    const store = await openProvisioned(config);
    try {
      expect(await store.ask(PLANT_CLASS)).toBe(true);
      await store.update(`INSERT DATA { GRAPH <${config.namedGraph}> { <${config.resource}> <urn:test:p> "configured" } }`);
      expect(await store.ask(`ASK { GRAPH <${graph}> { <${config.resource}> <urn:test:p> "configured" } }`)).toBe(true);
    } finally {
      if (kind === 'remote') await store.update(`DROP SILENT GRAPH <${graph}>`);
      await store.close();
    }
  });

  if (kind === 'embedded') {
    it('should keep the default store durable in <state dir>/store across restarts', async () => {
      const config = (await door1(kind, graph))!;
      expect(config.store.url).toBe(join(dir, 'state', 'store'));
      const reopened = await openStore(storeSpecOf(config.store));
      try {
        expect(await reopened.ask(`ASK { GRAPH <${graph}> { ?s <urn:test:p> "configured" } }`)).toBe(true);
        expect(await reopened.ask(PLANT_CLASS)).toBe(true);
      } finally {
        await reopened.close();
      }
    });
  }
});
