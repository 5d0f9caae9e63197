// Store requests per dispatched Operation, counted exactly: a requester and a receiver
// SemanticMiddleware in this process on one store, each behind its own counting wrapper, no
// heartbeats, and the outcome taken from the receiver's activity feed (no status polling).
import { createLogger } from '../dist/lib/logger.js';
import { SemanticMiddleware } from '../dist/middleware/index.js';
import { OGM } from '../dist/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../dist/ontology/files.js';
import { provisionOntology } from '../dist/ontology/provision.js';
import { openEmbeddedStore } from '../dist/store/embedded-store.js';
import { openRemoteStore } from '../dist/store/remote-store.js';
import { sparql } from '../dist/store/sparql.js';
import { namedNode } from '../dist/store/terms.js';
import { ONTOLOGY_GRAPHS, plant } from '../dist/vocab/index.js';
import { timeEach } from './support.mjs';

const OPEN = { capabilityClass: plant.DoorOpeningCapability, workflowClass: plant.OpenDoorWorkflow, name: 'open' };
export const OPEN_REQUEST = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation };

/** Passes every call to `inner`, counting calls by method and the store requests they caused. */
function countingStore(inner) {
  const calls = { select: 0, ask: 0, update: 0, conditionalUpdate: 0 };
  const wrap =
    (method) =>
    (...args) => ((calls[method] += 1), inner[method](...args));
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

/** Opens the embedded store in memory, or the remote endpoint `url`; provisioned with the example plant. */
export async function openBenchStore(url) {
  const store = url ? openRemoteStore({ queryUrl: url }) : await openEmbeddedStore({});
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  return store;
}

/**
 * Dispatches `n` Operations (after a warm-up) from a robot1 requester to a door1 receiver on
 * `store`, in `graph` (dropped at the end). Returns the per-Operation latency in ms, the calls
 * per Operation each side made to the store, by method, and the store requests per Operation.
 */
export async function dispatchInProcess(store, { n, graph }) {
  const logger = createLogger({ level: 'silent' });
  const sides = { requester: countingStore(store), receiver: countingStore(store) };
  const ogm = (s) => new OGM({ store: s, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  const common = { serviceClass: plant.ControllerService, port: 0, heartbeatInterval: null, logger };
  const door = new SemanticMiddleware({ ...common, resourceIri: plant.door1, ogm: ogm(sides.receiver), activityFeed: true });
  door.workflow(OPEN, () => 'opened');
  door.registerCallback(() => 'opened');
  const robot = new SemanticMiddleware({ ...common, resourceIri: plant.robot1, ogm: ogm(sides.requester) });
  try {
    await door.start();
    await robot.start();
    const terminal = terminalWatch(door.activity);
    const snapshot = () => ({
      requester: { ...sides.requester.calls },
      receiver: { ...sides.receiver.calls },
      requests: store.requestCount,
    });
    let base;
    const ms = await timeEach(
      n,
      async (i, warmup) => {
        if (!warmup && i === 0) base = snapshot();
        await terminal(await robot.request(OPEN_REQUEST));
      },
      Math.min(20, n),
    );
    const end = snapshot();
    const perOp = (side) => Object.fromEntries(Object.keys(end[side]).map((k) => [k, (end[side][k] - base[side][k]) / n]));
    return { ms, requester: perOp('requester'), receiver: perOp('receiver'), requests: (end.requests - base.requests) / n };
  } finally {
    await robot.stop();
    await door.stop();
    await store.update(sparql`DROP SILENT GRAPH ${namedNode(graph)}`.text);
  }
}
