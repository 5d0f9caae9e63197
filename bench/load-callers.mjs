// The callers of the load test and what they saw. Two kinds dispatch concurrently: in-process
// SemanticMiddleware instances in watchdog mode calling `request` (a caller without a surface of
// its own, as `semantic-sidecar request` is) over their own client of the shared store, and
// clients of a requester sidecar's local API (`POST /operations`). Every caller dispatches,
// then waits for the receiver's terminal entry, round-robin over the receivers (pinned with
// `targetResource`), until the run's budget of Operations or seconds is spent. The Operation
// IRI is minted here, so even a dispatch that failed can be checked by the audit.
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { mintOperationIri } from '../dist/iri/index.js';
import { LOCAL_API_SOCKET_CALLER } from '../dist/lib/caller-identity.js';
import { createLogger } from '../dist/lib/logger.js';
import { SemanticMiddleware } from '../dist/middleware/index.js';
import { OGM } from '../dist/ogm/index.js';
import { openRemoteStore } from '../dist/store/remote-store.js';
import { ONTOLOGY_GRAPHS, plant } from '../dist/vocab/index.js';

/** What every caller dispatches: open a door. */
export const OPEN = Object.freeze({ capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation });

/** The run's bound: `take()` grants a dispatch while fewer than `ops` were granted and `seconds` have not passed. */
export function budget({ ops, seconds }) {
  const deadline = performance.now() + seconds * 1000;
  let granted = 0;
  return {
    take: () => granted < ops && performance.now() < deadline && (granted += 1) > 0,
    get granted() {
      return granted;
    },
  };
}

/** A stable name for an error's kind: the product's error code, an HTTP status, or the class name. */
export function kindOf(error) {
  if (typeof error?.code === 'string') return error.code;
  return error?.name ?? typeof error;
}

/** Everything the callers saw: requested and failed dispatches, outcomes, latencies, errors by kind. */
export class Tally {
  requested = [];
  failedDispatches = [];
  outcomes = new Map();
  latencies = [];
  errors = new Map();

  error(kind, message) {
    const seen = this.errors.get(kind) ?? { count: 0, sample: message };
    seen.count += 1;
    this.errors.set(kind, seen);
  }

  errorSummary() {
    return [...this.errors].map(([kind, { count }]) => `${kind}: ${count}`).join(', ') || 'none';
  }
}

/** An in-process watchdog-mode middleware dispatching over its own client of the store. */
export function inProcessCaller(store, label) {
  const client = openRemoteStore({ queryUrl: store.url });
  const ogm = new OGM({ store: client, graph: store.graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  const mw = new SemanticMiddleware({ mode: 'watchdog', ogm, namedGraph: store.graph, logger: createLogger({ level: 'silent' }) });
  // Each caller names itself, so the audit can tell whose Operation names whom.
  const requester = `load:${label}`;
  return {
    label,
    requester,
    dispatch: (operationIri, receiver) => mw.request({ ...OPEN, operationIri, targetResource: receiver.resource, requestedBy: requester }),
    close: () => client.close(),
  };
}

/** A client of the requester sidecar's local API on its Unix socket. */
export function localApiCaller(socketPath, label) {
  const client = new Client('http://localhost', { socketPath });
  const dispatch = async (operationIri, receiver) => {
    const body = JSON.stringify({ ...OPEN, operationIri, targetResource: receiver.resource });
    const res = await client.request({ method: 'POST', path: '/operations', headers: { 'content-type': 'application/json' }, body });
    const text = await res.body.text();
    if (res.statusCode !== 201)
      throw Object.assign(new Error(`POST /operations -> ${res.statusCode} ${text.slice(0, 300)}`), { code: `HTTP ${res.statusCode}` });
  };
  return { label, requester: LOCAL_API_SOCKET_CALLER, dispatch, close: () => client.destroy() };
}

/** One caller's loop: dispatch, wait for the terminal entry, next receiver, until the budget is spent. */
async function callerLoop(caller, { receivers, offset, bound, tally, watch, terminalTimeoutMs }) {
  let k = offset;
  while (bound.take()) {
    const receiver = receivers[k++ % receivers.length];
    const iri = mintOperationIri(OPEN.operationClass);
    const started = performance.now();
    try {
      await caller.dispatch(iri, receiver);
    } catch (error) {
      tally.failedDispatches.push({ iri, receiver: receiver.name, kind: kindOf(error) });
      tally.error(`dispatch ${kindOf(error)}`, error.message);
      continue;
    }
    tally.requested.push({ iri, receiver: receiver.name, caller: caller.label, requester: caller.requester });
    try {
      const outcome = await watch.terminal(iri, terminalTimeoutMs);
      tally.outcomes.set(iri, outcome);
      tally.latencies.push(performance.now() - started);
      if (outcome.kind !== 'done') tally.error('operation failed', outcome.error);
    } catch (error) {
      tally.error(kindOf(error), error.message);
    }
  }
}

/**
 * Runs every caller concurrently until the budget is spent and every wait has ended; reports
 * `progress(granted)` every `progressMs`. Returns the wall time from the first dispatch to the
 * last outcome, in seconds.
 */
export async function drive(callers, { receivers, bound, tally, watch, terminalTimeoutMs, progress, progressMs = 5000 }) {
  const started = performance.now();
  const timer = setInterval(() => progress?.(bound.granted, tally), progressMs);
  try {
    await Promise.all(callers.map((caller, i) => callerLoop(caller, { receivers, offset: i, bound, tally, watch, terminalTimeoutMs })));
  } finally {
    clearInterval(timer);
  }
  return (performance.now() - started) / 1000;
}
