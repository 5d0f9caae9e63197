/**
 * selectAcrossStores in process, against two `store serve --memory` endpoints: each row names
 * its store, terms come back as the one-store path gives them, a failing store names itself,
 * and the read-only view refuses writes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { endpointReader } from '../../src/federation/endpoint-reader.js';
import { selectAcrossStores } from '../../src/federation/select-across-stores.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { readPlant } from '../../src/console/plant-reads.js';
import { OGM } from '../../src/ogm/ogm.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../../src/ontology/files.js';
import { provisionOntology } from '../../src/ontology/provision.js';
import { plant } from '../../src/vocab/index.js';
import { buildCli, serve, type ServeProcess } from '../cli/support/cli-process.js';
import { addService } from '../registration/support/plant-graph.js';
import { countingProxy } from './support/counting-proxy.js';
import { closedPort } from '../support/ports.js';

const GRAPH = 'urn:test:hall';
const PLANT_GRAPH = 'urn:test:halls-plant';
const QUERY = `SELECT ?o WHERE { GRAPH <${GRAPH}> { <urn:test:s> <urn:test:p> ?o } } ORDER BY ?o`;
let hall1: ServeProcess;
let hall2: ServeProcess;

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  [hall1, hall2] = await Promise.all([serve(['--memory', '--port', '0']), serve(['--memory', '--port', '0'])]);
  await openRemoteStore({ queryUrl: hall1.url }).update(
    `INSERT DATA { GRAPH <${GRAPH}> { <urn:test:s> <urn:test:p> "one"@en , 2 , <urn:test:o> } }`,
  );
  await openRemoteStore({ queryUrl: hall2.url }).update(`INSERT DATA { GRAPH <${GRAPH}> { <urn:test:s> <urn:test:p> "two" } }`);
}, 120_000);
afterAll(async () => {
  await Promise.all([hall1?.stop(), hall2?.stop()]);
});

describe('selectAcrossStores', () => {
  it('should read every store at once, each row naming its store, terms as the one-store path gives them', async () => {
    const rows = await selectAcrossStores([{ url: hall1.url }, { url: hall2.url }], QUERY);
    const alone = await openRemoteStore({ queryUrl: hall1.url }).select(QUERY);
    expect(rows.filter((r) => r.store === hall1.url).map((r) => r.row)).toEqual(alone);
    expect(rows.map((r) => [r.store, r.row.o?.value])).toEqual([...alone.map((row) => [hall1.url, row.o!.value]), [hall2.url, 'two']]);
  }, 60_000);

  it('should fail naming the store that did not answer, and why', async () => {
    const gone = `http://127.0.0.1:${await closedPort()}/sparql`;
    await expect(selectAcrossStores([{ url: hall1.url }, { url: gone, timeoutMs: 5_000 }], QUERY)).rejects.toMatchObject({
      code: 'SM_STORE',
      endpoint: gone,
      // fetch's own message is a bare "fetch failed"; the reason is in its cause.
      message: expect.stringMatching(/fetch failed: .*ECONNREFUSED/u),
    });
  }, 60_000);

  // A connection left idle in the shared pool before the read may have been closed by the store
  // while Comunica's synchronous load stalled the event loop, unnoticed until after the read
  // sent its first request on it ("other side closed"): reads use connections of their own.
  it('should read on connections of its own, not on those of the shared pool', async () => {
    const proxy = await countingProxy(hall1.url);
    try {
      await openRemoteStore({ queryUrl: proxy.url }).select(QUERY);
      expect([proxy.opened, proxy.open]).toEqual([1, 1]);
      const sharedBytes = proxy.sent[0];
      // The shared connection is idle and free to take the read's requests.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await selectAcrossStores([{ url: proxy.url }], QUERY)).toHaveLength(3);
      expect(proxy.sent[0]).toBe(sharedBytes);
      expect(proxy.opened).toBeGreaterThan(1);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('should read through the read-only view and refuse every write there', async () => {
    const reader = endpointReader({ url: hall2.url });
    expect((await reader.select(QUERY)).map((row) => row.o)).toEqual([
      { termType: 'Literal', value: 'two', datatype: 'http://www.w3.org/2001/XMLSchema#string' },
    ]);
    expect(reader.requestCount).toBe(1);
    await expect(reader.update('INSERT DATA { <urn:a> <urn:b> <urn:c> }')).rejects.toThrow(
      'dispatch and every write stay within one store',
    );
    await reader.close();
  }, 60_000);
});

describe("the console's reads across stores", () => {
  it('should read a Service of each hall through Comunica, each row naming its hall', async () => {
    const halls = [hall1, hall2].map((hall) => ({ hall, client: openRemoteStore({ queryUrl: hall.url }) }));
    const doors = [plant.door1, plant.robot1];
    for (const [i, { client }] of halls.entries()) {
      await provisionOntology(client, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
      const ogm = new OGM({ store: client, graph: PLANT_GRAPH });
      await addService(ogm, { resourceIri: doors[i]!, address: `http://127.0.0.1:${i + 1}`, graph: PLANT_GRAPH });
    }
    const stores = halls.map(({ hall, client }) => ({ url: hall.url, client, endpoint: { url: hall.url } }));
    const before = halls.map(({ client }) => client.requestCount);
    const view = await readPlant(stores, { graph: PLANT_GRAPH, stalenessThresholdMs: 90_000 });
    expect(view.services.map((s) => [s.store, s.resource, s.state])).toEqual([
      [hall1.url, plant.door1, 'live'],
      [hall2.url, plant.robot1, 'live'],
    ]);
    // Read by Comunica, not by the halls' own clients (which the console keeps for cancels).
    expect(halls.map(({ client }) => client.requestCount)).toEqual(before);
  }, 120_000);
});
