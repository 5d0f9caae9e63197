// OGM create and commit latency, validation included, on the embedded store holding 10,000
// registered Services; and store requests per create and commit.
import { OGM } from '../dist/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../dist/ontology/files.js';
import { provisionOntology } from '../dist/ontology/provision.js';
import { openEmbeddedStore } from '../dist/store/embedded-store.js';
import { DEFAULT_DATA_GRAPH, PLANT, svc } from '../dist/vocab/index.js';
import { plantNTriples, report, row, timeEach } from './support.mjs';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 10_000);
const N = Number(process.env.BENCH_N ?? 2_000);

export async function run() {
  const store = await openEmbeddedStore({});
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  await store.load(plantNTriples(SERVICES), { graph: DEFAULT_DATA_GRAPH, format: 'application/n-triples' });
  const ogm = new OGM({ store, shapesGraph: 'https://w3id.org/semantic-middleware/shapes' });
  const capability = `${PLANT('res0')}_capability_open`;
  const service = `${PLANT('res0')}_service_http_c__s__s_10_d_0_d_0_d_1_c_8000`;
  await ogm.typesOf(service);

  const ops = [];
  let before = store.requestCount;
  const create = await timeEach(N, async (i) => {
    const iri = `${PLANT('OpenDoorOperation')}_op_${String(i).padStart(12, '0')}${ops.length}`;
    ops.push(iri);
    await ogm.create({
      iri,
      type: PLANT('OpenDoorOperation'),
      properties: { [svc.operationStatus]: 'queued', 'https://w3id.org/circularfactory/Core#implementsCapability': capability },
    });
  });
  const createRequests = (store.requestCount - before) / (N + Math.min(50, N));

  before = store.requestCount;
  const heartbeat = await timeEach(N, () => ogm.commit({ iri: service, set: { [svc.lastHeartbeat]: new Date() } }));
  const commitRequests = (store.requestCount - before) / (N + Math.min(50, N));

  before = store.requestCount;
  let k = 0;
  const cas = await timeEach(N, async () => {
    const iri = ops[k++ % ops.length];
    await ogm.commit({ iri, set: { [svc.operationStatus]: 'running' }, guard: { [svc.operationStatus]: 'queued' } });
  });
  const casRequests = (store.requestCount - before) / (N + Math.min(50, N));

  report('ogm', { store: 'embedded (memory)', services: SERVICES, triples: 'about 11 per Service' }, [
    row('OGM create (Operation, validated)', create, { requests_per_call: createRequests }),
    row('OGM commit (heartbeat, validated)', heartbeat, { requests_per_call: commitRequests }),
    row('OGM guarded commit (status CAS)', cas, { requests_per_call: casRequests }),
  ]);
  await store.close();
}
