import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { UnavailableError } from '../../src/errors.js';
import { BUNDLED_ONTOLOGY_FILES } from '../../src/ontology/files.js';
import { loadOntologyFiles } from '../../src/ontology/provision.js';
import { acquireProvisioningLease } from '../../src/ontology/provisioning-lease.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { graphFragment, sparql } from '../../src/store/sparql.js';
import { dateTimeLiteral, literal, namedNode } from '../../src/store/terms.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { SH, sm } from '../../src/vocab/index.js';
import { remoteEndpoint, type StoreKind } from '../support/fixtures.js';
import { itOnStore } from '../support/per-store.js';

const SHAPES_FILE = BUNDLED_ONTOLOGY_FILES.find((f) => f.name === 'shapes')!.path;
const PROVISIONERS = 6;

/**
 * One client per provisioner on the remote store (as separate sidecars would be); one shared
 * embedded store. The remote run is the one whose loaders interleave (without the lease it loads
 * the module six times over); in one process they rarely do, and there the run checks the lease's
 * queries on Oxigraph.
 */
async function openClients(kind: StoreKind, n: number): Promise<TripleStore[] | undefined> {
  if (kind === 'embedded') {
    const store = await openEmbeddedStore({});
    return Array.from({ length: n }, () => store);
  }
  const url = remoteEndpoint();
  return url ? Array.from({ length: n }, () => openRemoteStore({ queryUrl: url })) : undefined;
}

async function countOf(store: TripleStore, pattern: string): Promise<number> {
  const rows = await store.select(`SELECT (COUNT(*) AS ?n) WHERE { ${pattern} }`);
  return Number(rows[0]!.n!.value);
}

function leaseOf(graph: string): string {
  return graphFragment(sm.provisioningGraph, sparql`${namedNode(graph)} ?p ?o .`).text;
}

describe.each(['embedded', 'remote'] as const)('provisioning races on the %s store', (kind) => {
  let clients: TripleStore[] | undefined;
  const graphs: string[] = [];
  const freshGraph = (): string => {
    const g = `urn:test:provision-race:${randomUUID()}`;
    graphs.push(g);
    return g;
  };
  const onStore = (name: string, fn: (stores: TripleStore[]) => Promise<void>) => itOnStore(kind)(name, () => fn(clients!), 60_000);

  beforeAll(async () => {
    clients = await openClients(kind, PROVISIONERS);
  });
  afterAll(async () => {
    for (const g of graphs) await clients?.[0]!.update(`DROP SILENT GRAPH <${g}>`);
    for (const c of new Set(clients)) await c.close();
  });

  onStore('should load a module once when several processes provision it at the same moment', async (stores) => {
    const graph = freshGraph();
    const reports = await Promise.all(stores.map((s) => loadOntologyFiles(s, [SHAPES_FILE], { graph })));
    const statuses = reports.map((r) => r.modules[0]!.status);
    expect(statuses.filter((s) => s === 'loaded')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'unchanged')).toHaveLength(PROVISIONERS - 1);
    const loaded = reports.map((r) => r.modules[0]!).find((m) => m.status === 'loaded')!;
    // One copy: as many triples as one load wrote, and the two sh:in lists of shapes.ttl (statuses, failure kinds) once.
    expect(await countOf(stores[0]!, `GRAPH <${graph}> { ?s ?p ?o }`)).toBe(loaded.triples);
    expect(await countOf(stores[0]!, `GRAPH <${graph}> { ?s <${SH('in')}> ?list }`)).toBe(2);
    expect(await countOf(stores[0]!, leaseOf(graph))).toBe(0);
  });

  onStore('should break a lease whose holder died once it has expired, and not before', async ([store]) => {
    const graph = freshGraph();
    const expires = new Date(Date.now() + 1_500);
    const dead = graphFragment(sm.provisioningGraph, sparql`${namedNode(graph)} ${namedNode(sm.provisioningHolder)} ${literal('dead-loader')} ; ${namedNode(sm.provisioningExpires)} ${dateTimeLiteral(expires)} .`);
    await store!.update(`INSERT DATA { ${dead.text} }`);
    const lease = await acquireProvisioningLease(store!, graph);
    expect(Date.now()).toBeGreaterThanOrEqual(expires.getTime());
    expect(await store!.ask(`ASK { ${graphFragment(sm.provisioningGraph, sparql`${namedNode(graph)} ?p ${literal('dead-loader')} .`).text} }`)).toBe(false);
    await lease.release();
    expect(await countOf(store!, leaseOf(graph))).toBe(0);
  });

  onStore('should keep a live holder\'s lease past its first expiry by renewing it', async ([store]) => {
    const graph = freshGraph();
    const lease = await acquireProvisioningLease(store!, graph, { leaseMs: 600 });
    await new Promise((r) => setTimeout(r, 1_500));
    let waited = 0;
    await expect(acquireProvisioningLease(store!, graph, { waitMs: 700, onWait: () => (waited += 1) })).rejects.toThrow(UnavailableError);
    await expect(acquireProvisioningLease(store!, graph, { waitMs: 0 })).rejects.toThrow(`<${graph}> is being loaded by another process`);
    expect(waited).toBe(1);
    expect(lease.held).toBe(true);
    await lease.release();
    const next = await acquireProvisioningLease(store!, graph, { waitMs: 0 });
    await next.release();
  });
});
