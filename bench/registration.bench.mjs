// Registration at plant scale on the embedded store: discovery (pinned and unpinned), heartbeat,
// the requests of one Operation lifecycle, and sweeps of 1,000 stale among 10,000 Services.
//
// Plants are loaded in registration order, 100 resources per load. In the discovery plant every
// 10th resource is stale (heartbeat an hour old, one queued Operation): where the dead Services
// sit in the store's scan order matters to unpinned discovery, and dead Services are not
// clustered in a real plant. The clustered worst case (a block of dead Services registered after
// every live one) has its own row. Sweeps run on a second plant holding 1 + BENCH_SWEEPS
// interleaved generations of BENCH_STALE stale Services, 1 to 1 + BENCH_SWEEPS hours old: each
// sweep takes the oldest generation left, so every sweep meets data as it was loaded. Before
// them run 20 sweeps that find nothing, as a watchdog's usual ones. The first sweep that finds
// stale Services still runs cold code paths (V8 tiers WASM code up as it runs: up to 3x slower
// here) and has its own row; the others are the steady state of a watchdog. Sweep rows also give the
// process's CPU time (cpu_p50_ms, GC threads included), steadier than wall time on a busy machine.
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
const SWEEPS = Number(process.env.BENCH_SWEEPS ?? 7);
const CHUNK = 100;
const G = DEFAULT_DATA_GRAPH;
const NT = { graph: G, format: 'application/n-triples' };
const SHAPES = 'https://w3id.org/semantic-middleware/shapes';

const EVERY = STALE > 0 ? Math.max(1, Math.floor(SERVICES / STALE)) : 0;
const staleIndex = new Set();
for (let i = EVERY - 1; EVERY > 0 && i < SERVICES && staleIndex.size < STALE; i += EVERY) staleIndex.add(i);
const liveIndex = [...Array(SERVICES).keys()].filter((i) => !staleIndex.has(i));
const FRESH = new Date();
const OLD = new Date(FRESH.getTime() - 3_600_000);
const serviceOf = (i) => `${PLANT(`res${i}`)}_service_http_c__s__s_10_d_0_d_0_d_1_c_${8000 + (i % 1000)}`;

// Loads `ageOf(i)` (hours; 0: fresh) heartbeats, and one queued Operation per stale resource.
async function plant(ageOf) {
  const store = await openEmbeddedStore({});
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  const heartbeatAt = (i) => new Date(FRESH.getTime() - ageOf(i) * 3_600_000);
  for (let from = 0; from < SERVICES; from += CHUNK) {
    const count = Math.min(CHUNK, SERVICES - from);
    await store.load(plantNTriples(count, FRESH, { from, heartbeatAt, queuedAt: (i) => (ageOf(i) > 0 ? 1 : 0) }), NT);
  }
  return { store, ogm: new OGM({ store, shapesGraph: SHAPES }) };
}

// Replaces every live Service's heartbeat by one spread over the last 30 s (untimed).
async function spreadHeartbeats(store) {
  const S = 'https://w3id.org/circularfactory/Service#';
  const cutoff = new Date(FRESH.getTime() - 1).toISOString();
  await store.update(
    `DELETE { GRAPH <${G}> { ?s <${S}lastHeartbeat> ?h } } WHERE { GRAPH <${G}> { ?s <${S}lastHeartbeat> ?h FILTER(?h > "${cutoff}"^^<http://www.w3.org/2001/XMLSchema#dateTime>) } }`,
  );
  const at = (i) => new Date(FRESH.getTime() - ((i * 7919) % 30_000)).toISOString();
  const lines = liveIndex.map((i) => `<${serviceOf(i)}> <${S}lastHeartbeat> "${at(i)}"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`);
  await store.load(`${lines.join('\n')}\n`, NT);
}

// Times Operation lifecycles and counts their requests; `receiver` claims and finishes (a second
// OGM stands for a receiver in another process, whose type cache has never seen the Operation).
async function lifecycle(store, creator, receiver, { resolveWorkflow }) {
  const { capabilityIri, serviceIri } = await resolveDispatchTarget(creator, PLANT('DoorOpeningCapability'), {
    targetResource: PLANT('res1'),
  });
  const workflowIri = `${serviceIri}_workflow_open`;
  const requests = [];
  const ms = await timeEach(
    Math.min(N, 200),
    async () => {
      const before = store.requestCount;
      const operationIri = mintOperationIri(PLANT('OpenDoorOperation'));
      await createOperation(creator, { operationIri, operationClass: PLANT('OpenDoorOperation'), capabilityIri });
      await setOperationStatus(receiver, { operationIri, status: 'running' });
      const wf = resolveWorkflow ? await resolveOperationWorkflow(receiver, operationIri) : workflowIri;
      await recordTerminalStatus(receiver, { operationIri, workflowIri: wf, status: 'done', result: '"ok"' });
      requests.push(store.requestCount - before);
    },
    5,
  );
  return { ms, requests: Math.max(...requests.slice(5)) };
}

// Sweeps 1 + SWEEPS generations of the sweep plant, oldest first (the first one cold), timing
// each sweep and each of its requests.
async function sweeps() {
  const generations = SWEEPS + 1;
  if (generations >= EVERY) throw new Error(`BENCH_SWEEPS must be below ${EVERY - 1} (SERVICES / STALE - 1) to leave live Services`);
  const { store, ogm } = await plant((i) => (i % EVERY < generations && i < EVERY * STALE ? (i % EVERY) + 1 : 0));
  await updateHeartbeat(ogm, serviceOf(EVERY - 1)); // loads the OGM's TBox and shapes, once per process
  // A watchdog's usual sweep finds nothing stale; these warm the find's code paths as its idle
  // sweeps do between two failures.
  for (let k = 0; k < 20; k++) await sweepStaleServices(ogm, (generations + 1) * 3600, { now: FRESH });
  const steps = [[], [], []];
  const requests = [];
  const ms = [];
  const cpu = [];
  const [select, update] = [store.select.bind(store), store.update.bind(store)];
  let step = 0;
  const timed = (fn) => async (q) => {
    const t = performance.now();
    try {
      return await fn(q);
    } finally {
      steps[step++]?.push(performance.now() - t);
    }
  };
  for (let g = generations; g >= 1; g--) {
    await new Promise((resolve) => setImmediate(resolve));
    [step, store.select, store.update] = [0, timed(select), timed(update)];
    const before = store.requestCount;
    const [t, c] = [performance.now(), process.cpuUsage()];
    // Generation g is g hours old: stale at (g - 0.5) h, the younger ones not yet.
    const swept = await sweepStaleServices(ogm, (g - 0.5) * 3600, { now: FRESH });
    ms.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    requests.push(store.requestCount - before);
    [store.select, store.update] = [select, update];
    if (swept.length !== STALE) throw new Error(`sweep found ${swept.length} stale Services, expected ${STALE}`);
    if (process.env.BENCH_TRACE)
      console.log(
        `sweep of generation ${g}: ${ms.at(-1).toFixed(1)} ms, CPU ${cpu.at(-1).toFixed(1)} ms (${steps.map((s) => s.at(-1)?.toFixed(1)).join(' + ')})`,
      );
  }
  await store.close();
  const median = (a) => [...a.slice(1)].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)]?.toFixed(1);
  const steady = `find ${median(steps[0])} + fail ${median(steps[1])} + deregister ${median(steps[2])}`;
  const cold = `find ${steps[0][0]?.toFixed(1)} + fail ${steps[1][0]?.toFixed(1)} + deregister ${steps[2][0]?.toFixed(1)}`;
  return { cold: ms[0], ms: ms.slice(1), cpu: median(cpu), coldCpu: cpu[0], requests: Math.max(...requests), steady, coldSteps: cold };
}

export async function run() {
  const { store, ogm } = await plant((i) => (staleIndex.has(i) ? 1 : 0));
  const capability = PLANT('DoorOpeningCapability');
  let i = 0;
  const pinned = await timeEach(N, () =>
    resolveDispatchTarget(ogm, capability, { targetResource: PLANT(`res${liveIndex[i++ % liveIndex.length]}`) }),
  );
  const unpinned = await timeEach(N, () => resolveDispatchTarget(ogm, capability));
  await spreadHeartbeats(store);
  const unpinnedSpread = await timeEach(N, () => resolveDispatchTarget(ogm, capability));
  i = 0;
  const heartbeat = await timeEach(N, () => updateHeartbeat(ogm, serviceOf(liveIndex[i++ % liveIndex.length])));
  const receiver = new OGM({ store, shapesGraph: SHAPES });
  const full = await lifecycle(store, ogm, ogm, { resolveWorkflow: true });
  const known = await lifecycle(store, ogm, ogm, { resolveWorkflow: false });
  const remote = await lifecycle(store, ogm, receiver, { resolveWorkflow: false });
  // The clustered worst case: 1,000 dead Services registered after every live one.
  await store.load(plantNTriples(1_000, OLD, { from: SERVICES }), NT);
  const unpinnedBlock = await timeEach(Math.min(N, 200), () => resolveDispatchTarget(ogm, capability));
  await store.close();
  const sweep = await sweeps();

  const meta = {
    store: 'embedded (memory)',
    services: SERVICES,
    stale: `${staleIndex.size} (every ${EVERY}th resource)`,
    sweeps: `${SWEEPS + 1} generations of ${STALE}, the first cold`,
  };
  report('registration', meta, [
    row('discovery, pinned to a resource', pinned, { requests: 1 }),
    row('discovery, unpinned (identical fresh heartbeats)', unpinned, { requests: 1 }),
    row('discovery, unpinned (heartbeats spread over 30 s)', unpinnedSpread, { requests: 1 }),
    row('heartbeat', heartbeat, { requests: 1 }),
    row('Operation lifecycle: create, claim, resolve workflow, terminal', full.ms, { requests: full.requests }),
    row('Operation lifecycle: create, claim, terminal (receiver knows its Workflow)', known.ms, { requests: known.requests }),
    row('  same, receiver in another process (cold type cache)', remote.ms, { requests: remote.requests }),
    row('discovery, unpinned, 1,000 dead Services registered last (worst case)', unpinnedBlock, { requests: 1 }),
    row(`sweep of ${STALE} stale among ${SERVICES}`, sweep.ms, {
      requests: sweep.requests,
      cpu_p50_ms: Number(sweep.cpu),
      steps_ms: sweep.steady,
    }),
    row('  same, first sweep of the process (cold)', [sweep.cold], {
      requests: sweep.requests,
      cpu_p50_ms: sweep.coldCpu,
      steps_ms: sweep.coldSteps,
    }),
  ]);
}
