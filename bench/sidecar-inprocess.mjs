// Store requests per dispatched Operation, counted exactly: a requester and a receiver
// SemanticMiddleware in this process on one store, each behind its own counting wrapper, no
// heartbeats, and the outcome taken from the receiver's activity feed (no status polling).
import { performance } from 'node:perf_hooks';
import { createLogger } from '../dist/lib/logger.js';
import { SemanticMiddleware } from '../dist/middleware/index.js';
import { OGM } from '../dist/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../dist/ontology/files.js';
import { provisionOntology } from '../dist/ontology/provision.js';
import { openEmbeddedStore } from '../dist/store/embedded-store.js';
import { openRemoteStore } from '../dist/store/remote-store.js';
import { openEmbeddedStoreThread } from '../dist/store/store-thread.js';
import { sparql } from '../dist/store/sparql.js';
import { namedNode } from '../dist/store/terms.js';
import { ONTOLOGY_GRAPHS, plant } from '../dist/vocab/index.js';
import { timeEach } from './support.mjs';

const OPEN = { capabilityClass: plant.DoorOpeningCapability, workflowClass: plant.OpenDoorWorkflow, name: 'open' };
export const OPEN_REQUEST = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation };

/**
 * Passes every call to `inner`, counting calls by method and the store requests they caused;
 * `onCall(method, args)` sees each call first.
 */
function countingStore(inner, onCall = () => undefined) {
  const calls = { select: 0, ask: 0, update: 0, conditionalUpdate: 0 };
  const wrap =
    (method) =>
    (...args) => (onCall(method, args), (calls[method] += 1), inner[method](...args));
  return {
    calls,
    get description() {
      return `counting ${inner.description}`;
    },
    get requestCount() {
      return inner.requestCount;
    },
    get deletesWithUnboundVariables() {
      return inner.deletesWithUnboundVariables;
    },
    get readsMayTear() {
      return inner.readsMayTear;
    },
    select: wrap('select'),
    ask: wrap('ask'),
    update: wrap('update'),
    conditionalUpdate: wrap('conditionalUpdate'),
    load: (...args) => inner.load(...args),
    dump: (...args) => inner.dump(...args),
    close: async () => undefined, // the inner store belongs to the caller
  };
}

/**
 * Resolves `terminal(iri)` when the feed records `done` for the Operation (rejects on `failed`).
 * The entry may come before the requester has the IRI back, so early ones are kept.
 */
export function terminalWatch(feed) {
  const waiting = new Map();
  const early = new Map();
  feed.subscribe((entry) => {
    if (entry.kind !== 'done' && entry.kind !== 'failed') return;
    const settle = waiting.get(entry.operation);
    if (settle) {
      waiting.delete(entry.operation);
      settle(entry);
    } else early.set(entry.operation, entry);
  });
  const outcome = (iri, entry) => (entry.kind === 'done' ? undefined : Promise.reject(new Error(`${iri} failed: ${entry.error}`)));
  return (iri) => {
    const seen = early.get(iri);
    if (seen) return (early.delete(iri), Promise.resolve(outcome(iri, seen)));
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => (waiting.delete(iri), fail(new Error(`no done/failed entry for ${iri} within 10 s`))), 10_000);
      waiting.set(iri, (entry) => (clearTimeout(timer), ok(outcome(iri, entry))));
    });
  };
}

/**
 * Opens the embedded store in memory (on a worker thread of its own with `ownThread`), or the
 * remote endpoint `url`; provisioned with the example plant unless `provision` is false (a store
 * the run provisioned already).
 */
export async function openBenchStore(url, { provision = true, ownThread = false } = {}) {
  const store = url ? openRemoteStore({ queryUrl: url }) : ownThread ? await openEmbeddedStoreThread({}) : await openEmbeddedStore({});
  if (provision) await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  return store;
}

/**
 * A door1 receiver (instant work, activity feed on) and a robot1 requester in this process, each
 * on its own store handle, in `graph`, without heartbeats. `stop()` stops both.
 */
async function startPair(stores, graph, { concurrency = 1 } = {}) {
  const logger = createLogger({ level: 'silent' });
  const ogm = (s) => new OGM({ store: s, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  const common = { serviceClass: plant.ControllerService, port: 0, heartbeatInterval: null, logger };
  const door = new SemanticMiddleware({ ...common, resourceIri: plant.door1, ogm: ogm(stores.receiver), activityFeed: true });
  door.workflow(OPEN, () => 'opened');
  door.registerCallback(() => 'opened', undefined, { concurrency });
  const robot = new SemanticMiddleware({ ...common, resourceIri: plant.robot1, ogm: ogm(stores.requester) });
  const stop = async () => {
    await robot.stop();
    await door.stop();
  };
  try {
    await door.start();
    await robot.start();
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return { door, robot, terminal: terminalWatch(door.activity), stop };
}

/**
 * The writes of one dispatched Operation as this build sends them (the requester's create, the
 * receiver's claim and terminal write), captured from a pair in this process on `store`, in
 * `graph`, after a few Operations that warm its caches. Resolves with the texts, the Operation's
 * IRI (each text names it) and `close()`, which stops the pair and drops the graph: until then
 * the texts can be sent again to the same store.
 */
export async function captureLifecycleWrites(store, graph) {
  let writes = [];
  const recording = countingStore(store, (method, [text]) => {
    if (method === 'update' || method === 'conditionalUpdate') writes.push(text);
  });
  const pair = await startPair({ requester: recording, receiver: recording }, graph);
  const close = async () => {
    await pair.stop();
    await store.update(sparql`DROP SILENT GRAPH ${namedNode(graph)}`.text);
  };
  try {
    for (let i = 0; i < 3; i++) await pair.terminal(await pair.robot.request(OPEN_REQUEST));
    writes = [];
    const operation = await pair.robot.request(OPEN_REQUEST);
    await pair.terminal(operation);
    if (writes.length !== 3) throw new Error(`a dispatched Operation made ${writes.length} writes, not 3 (create, claim, terminal)`);
    return { writes, operation, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

/**
 * Dispatches `n` Operations from a robot1 requester to a door1 receiver on `store`, in `graph`
 * (dropped at the end), one at a time after `warmupSeconds` of the same, unmeasured: V8
 * optimizes the path after some hundreds of Operations, as the process-level rows and the
 * library floor are warmed too. Returns the per-Operation latency in ms, the calls per
 * Operation each side made to the store, by method, and the store requests per Operation.
 */
export async function dispatchInProcess(store, { n, graph, warmupSeconds }) {
  const sides = { requester: countingStore(store), receiver: countingStore(store) };
  let pair;
  try {
    pair = await startPair(sides, graph);
    const { robot, terminal } = pair;
    const snapshot = () => ({
      requester: { ...sides.requester.calls },
      receiver: { ...sides.receiver.calls },
      requests: store.requestCount,
    });
    const dispatch = async () => terminal(await robot.request(OPEN_REQUEST));
    const warmUntil = performance.now() + warmupSeconds * 1000;
    while (performance.now() < warmUntil) await dispatch();
    const base = snapshot();
    const ms = await timeEach(n, dispatch, 0);
    const end = snapshot();
    const perOp = (side) => Object.fromEntries(Object.keys(end[side]).map((k) => [k, (end[side][k] - base[side][k]) / n]));
    return { ms, requester: perOp('requester'), receiver: perOp('receiver'), requests: (end.requests - base.requests) / n };
  } finally {
    await pair?.stop();
    await store.update(sparql`DROP SILENT GRAPH ${namedNode(graph)}`.text);
  }
}

/**
 * Throughput of the same pair on `store`, in `graph` (dropped at the end): `k` requesters each
 * dispatching and awaiting the outcome from the receiver's feed, one after the other, for
 * `warmupSeconds` unmeasured and then `seconds`; the receiver runs `concurrency` callbacks at
 * once. Returns Operations/s and this process's CPU per Operation (requesters, receiver and
 * embedded store together, on one event loop; V8's helper threads count too).
 */
export async function dispatchInProcessLoad(store, { k, seconds, warmupSeconds, graph, concurrency }) {
  let pair;
  try {
    pair = await startPair({ requester: store, receiver: store }, graph, { concurrency });
    const { robot, terminal } = pair;
    const run = async (s) => {
      let done = 0;
      const end = performance.now() + s * 1000;
      const requester = async () => {
        while (performance.now() < end) {
          await terminal(await robot.request(OPEN_REQUEST));
          done += 1;
        }
      };
      await Promise.all(Array.from({ length: k }, requester));
      return done;
    };
    await run(warmupSeconds);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const n = await run(seconds);
    const elapsed = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return { n, opsPerS: n / elapsed, cpuMsPerOp: (used.user + used.system) / 1000 / n };
  } finally {
    await pair?.stop();
    await store.update(sparql`DROP SILENT GRAPH ${namedNode(graph)}`.text);
  }
}
