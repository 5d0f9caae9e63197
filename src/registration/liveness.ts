import { ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import { namedNode, type NamedNodeTerm } from '../store/terms.js';
import { FailureKind, OperationStatus } from '../vocab/status.js';
import { cfc, sm, svc } from '../vocab/terms.js';
import { graphOf, type GraphOption } from './classes.js';
import {
  runningOperationsQuery,
  type ServiceCutoff,
  staleCutoff,
  staleServicesQuery,
  stillStaleServicesAndPartsMatch,
  strandedOperationsMatch,
} from '../queries/liveness.js';
import { matchedOnce } from '../queries/services.js';
import type { Bindings } from '../store/triple-store.js';
import { checkDate } from './services.js';
import { aliveAt, aliveByOwnInterval, honoredIntervalMs, serviceCutoff } from './staleness.js';

/**
 * Liveness: finding Services whose heartbeat is stale, and the watchdog's sweep that deregisters
 * them and fails the Operations stranded on their resources (`semantic_middleware.registration`).
 */

/** The reason a sweep writes into `svc:executionResult`, as the Python reference does. */
export const SWEEP_REASON = 'stranded operation swept by watchdog: the resource is stale/dead';

export interface StalenessOptions extends GraphOption {
  /** The time staleness is measured at (default: now). */
  now?: Date | null;
}

export interface SweepOptions extends StalenessOptions {
  /** Written into `svc:executionResult` of each failed Operation (default {@link SWEEP_REASON}). */
  reason?: string;
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
interface Judged {
  /** Stale by the rule, sorted, each with its own cutoff (for the sweep's re-check). */
  stale: ServiceCutoff[];
  /** Older than the threshold but alive by their own interval: survivors for the sweep. */
  spared: NamedNodeTerm[];
}

async function judgeStaleCandidates(ogm: OGM, maxAgeSeconds: number, options: StalenessOptions): Promise<Judged> {
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
 * Deregisters every stale Service and fails the Operations stranded on their resources, in at
 * most three requests however many Services are stale:
 *
 * 1. {@link findStaleServices} (one query); nothing more when none is stale.
 * 2. One `OGM.commitMatching` removing `svc:address` and the Workflow and StateProperty
 *    endpoints of every found Service whose staleness still holds when the update runs (the
 *    WHERE re-checks it), so a Service that heartbeated since the find is never swept.
 * 3. One `OGM.commitMatching` failing each stranded Operation: queued or running, of a resource
 *    whose found Service is now deregistered, and whose Capability no surviving Service (address
 *    and a heartbeat at or after the cutoff) realizes through a Workflow. It writes status
 *    "failed", `svc:executionResult` = `reason`, `svc:executionTimestamp` = `now` and
 *    `sm:failureKind` = "swept". The status
 *    condition is in the WHERE, so the sweep never overwrites a "done" written first, and a later
 *    "done" guarded on "running" does not overwrite the sweep's "failed".
 *
 * Measured on the embedded store with 10,000 Services, 1,000 of them stale with one queued
 * Operation each (`npm run bench`, steady state, quiet machine): 75-95 ms in all (find 15-30,
 * deregistration 18-26, failing 22-35 ms); the first sweep of a process that finds stale
 * Services runs cold code paths and may take up to 3x as long; the find alone when none is stale.
 * Folding the find into the deregistration would save one scan but not a request: what an
 * update changed cannot be read back afterwards (a swept Service looks like any Service
 * deregistered earlier, whose queued Operations must be kept for its restart), and the failing
 * step needs exactly the swept ones.
 *
 * Returns the Services found stale in step 1. One that heartbeats in the one round trip between
 * the find and the deregistration is kept reachable and its Operations are kept, but is still in
 * the returned list: telling it apart would cost a fourth request.
 * @throws ValueError for a bad `maxAgeSeconds`, `now` or `reason`.
 * @example const swept = await sweepStaleServices(ogm, 90)
 */
export async function sweepStaleServices(ogm: OGM, maxAgeSeconds: number, options: SweepOptions = {}): Promise<string[]> {
  const graph = graphOf(ogm, options);
  const now = checkDate(options.now ?? new Date(), 'now');
  const cutoff = cutoffOf(maxAgeSeconds, { now });
  const reason = options.reason ?? SWEEP_REASON;
  if (typeof reason !== 'string') throw new ValueError(`reason ${preview(reason)} is not a string`);
  const { stale, spared } = await judgeStaleCandidates(ogm, maxAgeSeconds, { now, namedGraph: graph });
  if (stale.length === 0) return [];
  await ogm.commitMatching({
    match: stillStaleServicesAndPartsMatch(stale),
    subjectClass: svc.Service,
    set: { [svc.address]: [], [svc.endpoint]: [] },
    graph,
  });
  await ogm.commitMatching({
    match: matchedOnce(
      strandedOperationsMatch(
        stale.map((s) => s.service),
        cutoff,
        spared,
      ),
    ),
    subjectClass: cfc.Operation,
    set: {
      [svc.operationStatus]: OperationStatus.FAILED,
      [svc.executionResult]: reason,
      [svc.executionTimestamp]: now,
      [sm.failureKind]: FailureKind.SWEPT,
    },
    graph,
  });
  return stale.map((s) => s.service.value);
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
   * Addresses of the other surviving Services (reachable, alive by the per-Service rule) that
   * realize the Operation's Capability: live twins of the resource that may have claimed it.
   * Sorted; empty when there are none.
   */
  readonly survivors: readonly string[];
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
  const survivors = new Map<string, Set<string>>();
  const byOperation = new Map<string, Bindings[]>();
  for (const row of rows) {
    const operationIri = row.s?.value;
    if (operationIri === undefined) continue;
    byOperation.set(operationIri, [...(byOperation.get(operationIri) ?? []), row]);
  }
  for (const [operationIri, opRows] of byOperation) {
    const addresses = new Set<string>();
    for (const [address, facts] of factsByService(opRows, 'liveness_survivorAddress'))
      if (aliveAt(facts.heartbeats, facts.intervals, now, maxAgeSeconds * 1000)) addresses.add(address);
    survivors.set(operationIri, addresses);
  }
  return [...survivors]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([operationIri, addresses]) => ({ operationIri, survivors: [...addresses].sort() }));
}

function cutoffOf(maxAgeSeconds: number, options: StalenessOptions): Date {
  if (typeof maxAgeSeconds !== 'number' || !Number.isFinite(maxAgeSeconds) || maxAgeSeconds < 0) {
    throw new ValueError(`maxAgeSeconds ${preview(maxAgeSeconds)} is not a finite number of seconds >= 0`);
  }
  return staleCutoff(checkDate(options.now ?? new Date(), 'now'), maxAgeSeconds);
}
