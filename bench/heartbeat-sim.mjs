// The pieces of the heartbeat-scale simulation: Services registered through the registration
// library as a sidecar registers them at start, a heartbeat burst, and three concurrent loops
// for a window of seconds: heartbeats paced at the plant's rate, the watchdog's sweep, and
// discovery (unpinned and pinned).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildWorkflowEndpoint, mintCapabilityIri, mintServiceIri, mintWorkflowIri } from '../dist/iri/index.js';
import {
  makeServiceReachable,
  registerService,
  registerWorkflow,
  resolveDispatchTarget,
  sweepStaleServices,
  updateHeartbeat,
} from '../dist/registration/index.js';
import { PLANT, plant } from '../dist/vocab/index.js';

/** Staleness threshold of the sweep and freshness window of discovery: the product's default. */
export const STALENESS_S = 90;

/**
 * Registers the Service of resource plant:hbRes<i> as a sidecar does at start: the Service
 * unreachable, its Workflow and Capability, then address and heartbeat in one commit. Returns
 * the resource, the Service and its class.
 */
export async function registerOne(ogm, i, heartbeat = new Date()) {
  const resourceIri = PLANT(`hbRes${i}`);
  // Never called: nothing in the simulation sends a request to a Service's address.
  const address = `http://127.0.0.1:9/hb/${i}`;
  const serviceIri = mintServiceIri(resourceIri, address);
  const serviceClass = plant.ControllerService;
  await registerService(ogm, { resourceIri, serviceIri, serviceClass, address, reachable: false });
  await registerWorkflow(ogm, {
    resourceIri,
    serviceIri,
    workflowIri: mintWorkflowIri(serviceIri, 'open'),
    workflowClass: plant.OpenDoorWorkflow,
    capabilityIri: mintCapabilityIri(resourceIri, 'open'),
    capabilityClass: plant.DoorOpeningCapability,
    endpoint: buildWorkflowEndpoint(address, 'open'),
  });
  await makeServiceReachable(ogm, serviceIri, address, { heartbeat });
  return { resourceIri, serviceIri, serviceClass };
}

/**
 * One heartbeat of `service` (as {@link registerOne} returns it), as its own sidecar sends it.
 * A sidecar's OGM knows its Service's class from registering it and validates the heartbeat
 * without a read; the one OGM standing in for N sidecars here holds at most 4,096 individuals
 * (`LIMITS.ogmTypeCacheEntries`, three or more per Service), so past ~1,300 Services a
 * round-robin would read every Service's types before its heartbeat, a request no sidecar
 * sends. Telling the OGM the class first keeps the simulation to the sidecar's one request.
 */
export function heartbeat(ogm, service) {
  ogm.rememberTypes(service.serviceIri, [service.serviceClass]);
  return updateHeartbeat(ogm, service.serviceIri);
}

/**
 * `services` in the order their heartbeats fall due in each period: `registration` keeps the
 * order they were registered in, `phases` (the default) shuffles them with a fixed seed, the
 * same in every run. A sidecar beats on the phase its own start gave it, and sidecars register
 * far slower than they beat at plant scale (31 a second here, against 333 heartbeats a second
 * at 10,000 Services), so Services registered one after the other do not beat together. In
 * registration order the 3-4 heartbeats issued at each tick are of exactly such neighbours,
 * which sit next to each other in the store's indexes (Virtuoso numbers IRIs as it first meets
 * them): with serializable updates each one's lock on the next key (its neighbour's heartbeat)
 * deadlocks with the neighbour's own update. Measured at 5,000 Services, 16 in flight on
 * Virtuoso: 4-16 deadlocks per 4 s in registration order, none shuffled. `registration` keeps
 * that worst case measurable.
 */
export function heartbeatOrder(services, order = 'phases') {
  if (order === 'registration') return [...services];
  if (order !== 'phases') throw new Error(`heartbeat order must be "phases" or "registration", got "${order}"`);
  // mulberry32: small, seeded, good enough to spread the phases.
  let seed = 0x5eed;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...services];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Runs `fn(item)` for every item, `concurrency` at a time; resolves with the seconds it took. */
export async function pool(items, concurrency, fn) {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return (performance.now() - started) / 1000;
}

/**
 * Heartbeats paced at `rate` per second for `seconds`, round-robin over `services` (in the order
 * {@link heartbeatOrder} gives), at most
 * `concurrency` in flight (an open loop: when the store is slower than the rate, the due
 * heartbeats pile up and the achieved rate falls behind). Returns the heartbeats completed in
 * the window, those due, their latencies and the failures.
 */
export async function paceHeartbeats(ogm, services, { rate, seconds, concurrency }) {
  const started = performance.now();
  const end = started + seconds * 1000;
  const ms = [];
  const pending = new Set();
  let [issued, completed, failed, next] = [0, 0, 0, 0];
  while (performance.now() < end) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (issued < due && pending.size < concurrency) {
      const service = services[next++ % services.length];
      const t = performance.now();
      issued += 1;
      const ok = () => {
        const now = performance.now();
        ms.push(now - t);
        if (now <= end) completed += 1;
      };
      const p = heartbeat(ogm, service)
        .then(ok, () => void (failed += 1))
        .finally(() => pending.delete(p));
      pending.add(p);
    }
    await sleep(10);
  }
  await Promise.all(pending);
  return { completed, due: Math.floor(seconds * rate), ms, failed };
}

/**
 * The watchdog's sweep every `everyMs` until `until` (performance.now() time), threshold
 * {@link STALENESS_S}. Returns each sweep's ms and the Services each swept.
 */
export async function sweepLoop(ogm, { everyMs, until }) {
  const sweeps = [];
  while (performance.now() < until) {
    const t = performance.now();
    const swept = await sweepStaleServices(ogm, STALENESS_S);
    const ms = performance.now() - t;
    sweeps.push({ ms, swept });
    await sleep(Math.max(0, Math.min(everyMs - ms, until - performance.now())));
  }
  return sweeps;
}

/**
 * Discovery until `until`, alternating unpinned (any door) and pinned (a random live
 * resource), `pauseMs` apart. Counts wrong answers: a pinned one naming another Service, an
 * unpinned one naming a stale Service.
 */
export async function discoveryLoop(ogm, live, stale, { until, pauseMs = 10 }) {
  const out = { unpinned: [], pinned: [], wrong: 0, failed: 0 };
  const staleSet = new Set(stale.map((s) => s.serviceIri));
  for (let k = 0; performance.now() < until; k++) {
    const target = k % 2 ? live[Math.floor(Math.random() * live.length)] : undefined;
    const t = performance.now();
    try {
      const found = await resolveDispatchTarget(ogm, plant.DoorOpeningCapability, {
        targetResource: target?.resourceIri,
        freshWithinSeconds: STALENESS_S,
      });
      (target ? out.pinned : out.unpinned).push(performance.now() - t);
      if (target ? found.serviceIri !== target.serviceIri : staleSet.has(found.serviceIri)) out.wrong += 1;
    } catch {
      out.failed += 1;
    }
    await sleep(pauseMs);
  }
  return out;
}
