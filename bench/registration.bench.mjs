// Registration at plant scale on the embedded store: discovery (pinned and unpinned), heartbeat,
// a sweep of 1,000 stale among 10,000 Services, and the requests of one Operation lifecycle.
import { OGM } from '../dist/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../dist/ontology/files.js';
import { provisionOntology } from '../dist/ontology/provision.js';
import {
  createOperation,
  recordTerminalStatus,
  resolveDispatchTarget,
  resolveOperationWorkflow,
  setOperationStatus,
  sweepStaleServices,
  updateHeartbeat,
} from '../dist/registration/index.js';
import { openEmbeddedStore } from '../dist/store/embedded-store.js';
import { mintOperationIri } from '../dist/iri/index.js';
import { DEFAULT_DATA_GRAPH, PLANT } from '../dist/vocab/index.js';
import { performance } from 'node:perf_hooks';
import { plantNTriples, report, row, timeEach } from './support.mjs';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 10_000);
const STALE = Number(process.env.BENCH_STALE ?? 1_000);
const N = Number(process.env.BENCH_N ?? 1_000);

const serviceOf = (i) => `${PLANT(`res${i}`)}_service_http_c__s__s_10_d_0_d_0_d_1_c_${8000 + (i % 1000)}`;

async function plant() {
  const store = await openEmbeddedStore({});
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  const fresh = new Date();
  await store.load(plantNTriples(SERVICES - STALE, fresh), { graph: DEFAULT_DATA_GRAPH, format: 'application/n-triples' });
  const old = new Date(Date.now() - 3_600_000);
  await store.load(plantNTriples(STALE, old, { from: SERVICES - STALE, queuedPerResource: 1 }), {
    graph: DEFAULT_DATA_GRAPH,
    format: 'application/n-triples',
  });
  return { store, ogm: new OGM({ store, shapesGraph: 'https://w3id.org/semantic-middleware/shapes' }) };
}

async function lifecycleRequests(store, ogm) {
  const before = store.requestCount;
  const { capabilityIri } = await resolveDispatchTarget(ogm, PLANT('DoorOpeningCapability'), { targetResource: PLANT('res1') });
  const afterDiscovery = store.requestCount;
  const operationIri = mintOperationIri(PLANT('OpenDoorOperation'));
  await createOperation(ogm, { operationIri, operationClass: PLANT('OpenDoorOperation'), capabilityIri });
  await setOperationStatus(ogm, { operationIri, status: 'running' });
  const workflowIri = await resolveOperationWorkflow(ogm, operationIri);
  await recordTerminalStatus(ogm, { operationIri, workflowIri, status: 'done', result: '"ok"' });
  return { discovery: afterDiscovery - before, lifecycle: store.requestCount - afterDiscovery };
}

// Prints each request's time (BENCH_TRACE=1), to see which step of a sweep costs what.
function traceRequests(store) {
  for (const name of ['select', 'ask', 'update', 'conditionalUpdate']) {
    const original = store[name].bind(store);
    store[name] = async (...args) => {
      const t = performance.now();
      try {
        return await original(...args);
      } finally {
        console.log(`${name} ${(performance.now() - t).toFixed(1)} ms: ${String(args[0]).slice(0, 100)}`);
      }
    };
  }
}

export async function run() {
  const { store, ogm } = await plant();
  const capability = PLANT('DoorOpeningCapability');
  let i = 0;
  const pinned = await timeEach(N, () => resolveDispatchTarget(ogm, capability, { targetResource: PLANT(`res${i++ % (SERVICES - STALE)}`) }));
  const unpinned = await timeEach(N, () => resolveDispatchTarget(ogm, capability));
  i = 0;
  const heartbeat = await timeEach(N, () => updateHeartbeat(ogm, serviceOf(i++ % SERVICES)));
  const counts = await lifecycleRequests(store, ogm);

  const before = store.requestCount;
  if (process.env.BENCH_TRACE) traceRequests(store);
  const sweep = await timeEach(1, async () => {
    const swept = await sweepStaleServices(ogm, 600);
    if (swept.length !== STALE) throw new Error(`sweep found ${swept.length} stale Services, expected ${STALE}`);
  }, 0);
  const sweepRequests = store.requestCount - before;

  report('registration', { store: 'embedded (memory)', services: SERVICES, stale: STALE }, [
    row('discovery, pinned to a resource', pinned, { requests: 1 }),
    row('discovery, unpinned', unpinned, { requests: 1 }),
    row('heartbeat', heartbeat, { requests: 1 }),
    row(`sweep of ${STALE} stale among ${SERVICES}`, sweep, { requests: sweepRequests }),
    row('Operation lifecycle (create, claim, resolve workflow, terminal)', [0], { requests: counts.lifecycle }),
  ]);
  await store.close();
}
