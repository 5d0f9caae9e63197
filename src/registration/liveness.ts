import { ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import { namedNode, type NamedNodeTerm } from '../store/terms.js';
import { sm } from '../vocab/terms.js';
import { graphOf, type GraphOption } from './classes.js';
import { runningOperationsQuery, type ServiceCutoff, staleCutoff, staleServicesQuery } from '../queries/liveness.js';
import type { Bindings } from '../store/triple-store.js';
import { checkDate } from './services.js';
import { aliveAt, aliveByOwnInterval, honoredIntervalMs, serviceCutoff } from './staleness.js';

/**
 * Liveness: finding Services whose heartbeat is stale (`semantic_middleware.registration`), the
 * judgement the watchdog's sweep (`sweep.ts`) starts from, and the device availability a Service
 * records.
 */

export interface StalenessOptions extends GraphOption {
  /** The time staleness is measured at (default: now). */
  now?: Date | null;
}

/**
 * Services that are stale at `now`: they carry `svc:address` and have no `svc:lastHeartbeat` or
 * one older than `now - max(maxAgeSeconds, 3 x sm:heartbeatInterval)` (the per-Service rule of
 * `staleness.ts`: a Service without the interval is judged by `maxAgeSeconds` alone). One query
 * (see `staleServicePattern` for its shape); sorted.
 * @throws ValueError when `maxAgeSeconds` is not a finite number >= 0 or `now` is not a valid Date.
 * @example const stale = await findStaleServices(ogm, 90)
 */
export async function findStaleServices(ogm: OGM, maxAgeSeconds: number, options: StalenessOptions = {}): Promise<string[]> {
  const { stale } = await judgeStaleCandidates(ogm, maxAgeSeconds, options);
  return stale.map((s) => s.service.value);
}

/** The Services older than the threshold, split by the per-Service rule. */
export interface Judged {
  /** Stale by the rule, sorted, each with its own cutoff (for the sweep's re-check). */
  stale: ServiceCutoff[];
  /** Older than the threshold but alive by their own interval: survivors for the sweep. */
  spared: NamedNodeTerm[];
}

/**
 * The Services the store finds older than the threshold (one query), judged by the per-Service
 * rule: the stale ones, sorted, each with its own cutoff, and the ones spared by their interval.
 * @throws ValueError for a bad `maxAgeSeconds` or `now`.
 */
export async function judgeStaleCandidates(ogm: OGM, maxAgeSeconds: number, options: StalenessOptions): Promise<Judged> {
  const graph = graphOf(ogm, options);
  const now = checkDate(options.now ?? new Date(), 'now');
  const cutoff = cutoffOf(maxAgeSeconds, { now });
  const thresholdMs = maxAgeSeconds * 1000;
  const judged: Judged = { stale: [], spared: [] };
  // Sorted here: cheaper than ORDER BY in the store when thousands are stale.
  for (const [service, facts] of [...factsByService(await ogm.db.select(staleServicesQuery(graph, cutoff)))].sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    const term = namedNode(service);
    if (aliveByOwnInterval(facts.heartbeats, facts.intervals, now, thresholdMs)) judged.spared.push(term);
    else judged.stale.push({ service: term, cutoff: serviceCutoff(now, thresholdMs, honoredIntervalMs(facts.intervals)) });
  }
  return judged;
}

/** A Service's heartbeats and interval values, collected from the rows of one query. */
interface LivenessFacts {
  heartbeats: string[];
  intervals: string[];
}

function factsByService(rows: readonly Bindings[], key = 's'): Map<string, LivenessFacts> {
  const byService = new Map<string, LivenessFacts>();
  for (const row of rows) {
    const service = row[key]?.value;
    if (service === undefined) continue;
    let facts = byService.get(service);
    if (!facts) byService.set(service, (facts = { heartbeats: [], intervals: [] }));
    if (row.hb && !facts.heartbeats.includes(row.hb.value)) facts.heartbeats.push(row.hb.value);
    if (row.interval && !facts.intervals.includes(row.interval.value)) facts.intervals.push(row.interval.value);
  }
  return byService;
}

/**
 * Records whether the Service's device answers, in one `OGM.commit`: `since` sets
 * `sm:deviceUnavailableSince` (discovery then skips the Service), `null` removes it. The Service
 * keeps `svc:address` and its heartbeat either way, so readers that do not know the term (the
 * Python reference) still see a live Service whose queue is kept.
 * @throws ValueError for a malformed IRI or an invalid Date.
 * @example await recordDeviceAvailability(ogm, serviceIri, new Date()) // down since now
 */
export async function recordDeviceAvailability(ogm: OGM, serviceIri: string, since: Date | null, options: GraphOption = {}): Promise<void> {
  const graph = graphOf(ogm, options);
  const iri = assertIri(serviceIri, 'serviceIri');
  const value = since === null ? [] : checkDate(since, 'since');
  await ogm.commit({ iri, set: { [sm.deviceUnavailableSince]: value }, graph });
}

/** A running Operation of a Service, and who else could be running it. */
export interface RunningOperation {
  readonly operationIri: string;
  /**
   * The other surviving Services (reachable, alive by the per-Service rule) that realize the
   * Operation's Capability, with their addresses: live twins of the resource that may have
   * claimed it. Sorted by address; empty when there are none.
   */
  readonly survivors: readonly SurvivingService[];
}

/** A Service that survives by the liveness rule, at its `svc:address`. */
export interface SurvivingService {
  readonly serviceIri: string;
  readonly address: string;
}

/**
 * The running Operations whose Capability a Workflow of `serviceIri` realizes, each with the
 * addresses of the other surviving Services that realize it too: those with none are orphans of
 * a previous run of `serviceIri` by the sweep's per-Operation rule; the others may be running on
 * a live twin (queue reconstruction asks the twins). One query; sorted.
 * @throws ValueError for a malformed IRI, a bad `maxAgeSeconds` or `now`.
 * @example await findRunningOperations(ogm, serviceIri, 90) // [{ operationIri, survivors: [] }]
 */
export async function findRunningOperations(
  ogm: OGM,
  serviceIri: string,
  maxAgeSeconds: number,
  options: StalenessOptions = {},
): Promise<RunningOperation[]> {
  const service = namedNode(assertIri(serviceIri, 'serviceIri'));
  const now = checkDate(options.now ?? new Date(), 'now');
  cutoffOf(maxAgeSeconds, { now });
  const rows = await ogm.db.select(runningOperationsQuery(graphOf(ogm, options), service));
  const survivors = new Map<string, SurvivingService[]>();
  const byOperation = new Map<string, Bindings[]>();
  for (const row of rows) {
    const operationIri = row.s?.value;
    if (operationIri === undefined) continue;
    byOperation.set(operationIri, [...(byOperation.get(operationIri) ?? []), row]);
  }
  for (const [operationIri, opRows] of byOperation) {
    const alive: SurvivingService[] = [];
    for (const [serviceIri, facts] of factsByService(opRows, 'survivor')) {
      if (!aliveAt(facts.heartbeats, facts.intervals, now, maxAgeSeconds * 1000)) continue;
      const addresses = new Set(opRows.filter((r) => r.survivor?.value === serviceIri).map((r) => r.liveness_survivorAddress?.value));
      for (const address of addresses) if (address !== undefined) alive.push({ serviceIri, address });
    }
    survivors.set(operationIri, alive);
  }
  return [...survivors]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([operationIri, alive]) => ({
      operationIri,
      survivors: alive.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)),
    }));
}

/**
 * The threshold's cutoff, `now - maxAgeSeconds`.
 * @throws ValueError when `maxAgeSeconds` is not a finite number >= 0 or `now` is not a valid Date.
 */
export function cutoffOf(maxAgeSeconds: number, options: StalenessOptions): Date {
  if (typeof maxAgeSeconds !== 'number' || !Number.isFinite(maxAgeSeconds) || maxAgeSeconds < 0) {
    throw new ValueError(`maxAgeSeconds ${preview(maxAgeSeconds)} is not a finite number of seconds >= 0`);
  }
  return staleCutoff(checkDate(options.now ?? new Date(), 'now'), maxAgeSeconds);
}
