// The heartbeats of the heartbeat-scale simulation on a remote store, paced in a worker thread
// with a store client of its own, as sidecars send them from processes of their own. Paced in the
// thread that also times discovery, a few hundred heartbeats a second kept its event loop 55-85%
// busy (validation, request and answer handling), so a discovery's measured time included its
// wait for the loop: the bench was partly timing itself.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { OGM } from '../dist/ogm/index.js';
import { openRemoteStore } from '../dist/store/remote-store.js';
import { ONTOLOGY_GRAPHS } from '../dist/vocab/index.js';
import { heartbeat, paceHeartbeats } from './heartbeat-sim.mjs';

/**
 * Starts a worker thread with its own client of the store at `queryUrl` and an OGM on `graph`.
 * `pace(services, options)` runs {@link paceHeartbeats} there: `started` resolves when the window
 * opens (after a first heartbeat has warmed the OGM up, as a registered sidecar is), `done` with
 * its result plus `retried` (requests its client sent again as deadlock victims). `close()` ends it.
 */
export function startHeartbeatWorker({ queryUrl, graph }) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { queryUrl, graph } });
  let waiting;
  const fail = (error) => waiting?.reject(error);
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`heartbeat worker exited with code ${code}`)));
  worker.on('message', (m) => (m.type === 'started' ? waiting?.started() : waiting?.resolve(m.result)));
  return {
    pace(services, options) {
      let started;
      const begun = new Promise((resolve) => (started = resolve));
      const done = new Promise((resolve, reject) => (waiting = { started, resolve, reject }));
      worker.postMessage({ services, options });
      return { started: begun, done };
    },
    close: () => worker.terminate(),
  };
}

if (!isMainThread) {
  const store = openRemoteStore({ queryUrl: workerData.queryUrl });
  const ogm = new OGM({ store, graph: workerData.graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  parentPort.on('message', async ({ services, options }) => {
    await heartbeat(ogm, services[0]);
    const retried = store.retriedRequests;
    parentPort.postMessage({ type: 'started' });
    const hb = await paceHeartbeats(ogm, services, options);
    parentPort.postMessage({ type: 'done', result: { ...hb, retried: store.retriedRequests - retried } });
  });
}
