import { StoreError, ValueError } from '../errors.js';
import { preview } from '../iri/validate.js';
import { LIMITS } from '../limits.js';
import type { OGM } from '../ogm/ogm.js';
import { batchRealizersQuery, type ServiceCutoff, stillStaleServicesAndPartsMatch, strandedOperationsMatch } from '../queries/liveness.js';
import { matchedOnce } from '../queries/services.js';
import type { NamedNodeTerm } from '../store/terms.js';
import { FailureKind, OperationStatus } from '../vocab/status.js';
import { cfc, sm, svc } from '../vocab/terms.js';
import { graphOf } from './classes.js';
import { cutoffOf, judgeStaleCandidates, type StalenessOptions } from './liveness.js';
import { checkDate } from './services.js';

/**
 * The watchdog's sweep (`semantic_middleware.registration`): deregisters the stale Services and
 * fails the Operations stranded on their resources, in batches of bounded size.
 */

/** The reason a sweep writes into `svc:executionResult`, as the Python reference does. */
export const SWEEP_REASON = 'stranded operation swept by watchdog: the resource is stale/dead';

export interface SweepOptions extends StalenessOptions {
  /** Written into `svc:executionResult` of each failed Operation (default {@link SWEEP_REASON}). */
  reason?: string;
  /**
   * Stale Services per batch: each batch is one deregistering and one failing update (default
   * `LIMITS.sweepBatchServices`, chosen for Virtuoso 7; see there).
   */
  batchSize?: number;
}

/**
 * Deregisters every stale Service and fails the Operations stranded on their resources:
 *
 * 1. `findStaleServices` (one query); nothing more when none is stale.
 * 2. Then, per batch of at most `batchSize` found Services (in sorted order), two updates:
 *    - one `OGM.commitMatching` failing each stranded Operation: queued or running, of a
 *      resource whose Service of the batch is still stale when the update runs (the WHERE
 *      re-checks it, so a Service that heartbeated since the find keeps its work), and whose
 *      Capability no surviving Service (address and a heartbeat at or after the cutoff)
 *      realizes through a Workflow. It writes status "failed", `svc:executionResult` = `reason`,
 *      `svc:executionTimestamp` = `now` and `sm:failureKind` = "swept". The status condition is
 *      in the WHERE, so the sweep never overwrites a "done" written first, and a later "done"
 *      guarded on "running" does not overwrite the sweep's "failed";
 *    - one `OGM.commitMatching` removing `svc:address` and the Workflow and StateProperty
 *      endpoints of each Service of the batch whose staleness still holds.
 *
 * So `1 + 2 x ceil(stale / batchSize)` requests, and one read more per batch when the find
 * spared some Service by its own interval: it narrows those survivors to the ones realizing a
 * Capability of the batch's resources, so the failing update never lists every Service a long
 * interval spares across the plant. Failing comes first because a deregistered
 * Service is no longer found stale: had the failing update been lost after the deregistration,
 * no later sweep would find the Operations stranded (a Service deregistered on purpose keeps its
 * queue for its restart). In this order a batch the store fails at either step is found again by
 * the next sweep, which finishes it. Batches do not change the outcome: a survivor is told by
 * its fresh heartbeat, not by its address, so a stale Service of a later batch never shields an
 * Operation, and an Operation failed by one batch is no longer in flight for the next. A batch
 * whose update fails stops the sweep with a StoreError naming the batch, the step, and what was
 * done before it.
 *
 * Measured on the embedded store with 10,000 Services, 1,000 of them stale with one queued
 * Operation each (`npm run bench`, steady state, quiet machine, two batches): 89 ms in all (find
 * 28, failing 16, deregistration 11 ms per batch); the first sweep of a process that finds stale
 * Services runs cold code paths and may take up to 3x as long; the find alone when none is stale.
 * Folding the find into the updates would save one scan but not a request: the per-Service
 * rule (spared Services, each one's own cutoff) is judged on the rows the find returns.
 *
 * Returns the Services found stale in step 1. One that heartbeats between the find and its
 * batch's failing update is kept reachable and its Operations are kept; one that heartbeats
 * between the two updates of its batch is kept reachable, its stranded Operations failed (it was
 * stale when they were). Either is still in the returned list: telling it apart would cost
 * another request.
 * @throws ValueError for a bad `maxAgeSeconds`, `now`, `reason` or `batchSize`.
 * @throws StoreError when the store fails (see above).
 * @example const swept = await sweepStaleServices(ogm, 90)
 */
export async function sweepStaleServices(ogm: OGM, maxAgeSeconds: number, options: SweepOptions = {}): Promise<string[]> {
  const graph = graphOf(ogm, options);
  const now = checkDate(options.now ?? new Date(), 'now');
  const cutoff = cutoffOf(maxAgeSeconds, { now });
  const reason = options.reason ?? SWEEP_REASON;
  if (typeof reason !== 'string') throw new ValueError(`reason ${preview(reason)} is not a string`);
  const batchSize = checkBatchSize(options.batchSize ?? LIMITS.sweepBatchServices);
  const { stale, spared } = await judgeStaleCandidates(ogm, maxAgeSeconds, { now, namedGraph: graph });
  const sweep: Sweep = { ogm, graph, now, cutoff, reason, spared };
  for (let from = 0; from < stale.length; from += batchSize) {
    const batch = stale.slice(from, from + batchSize);
    const at: BatchPosition = { from, size: batch.length, stale: stale.length };
    await inBatch(at, 'failing', () => failStranded(sweep, batch));
    await inBatch(at, 'deregistering', () => deregister(sweep, batch));
  }
  return stale.map((s) => s.service.value);
}

/** What every batch of one sweep shares. */
interface Sweep {
  ogm: OGM;
  graph: string;
  now: Date;
  /** The threshold's cutoff. */
  cutoff: Date;
  reason: string;
  /** Older than the threshold but alive by their own interval: survivors. */
  spared: NamedNodeTerm[];
}

/** Where a batch lies among the stale Services of a sweep, for an error's message. */
interface BatchPosition {
  from: number;
  size: number;
  stale: number;
}

/** One update of the batch's Services whose still-stale ones it deregisters (after their Operations were failed). */
async function deregister(sweep: Sweep, batch: readonly ServiceCutoff[]): Promise<void> {
  await sweep.ogm.commitMatching({
    match: stillStaleServicesAndPartsMatch(batch),
    subjectClass: svc.Service,
    set: { [svc.address]: [], [svc.endpoint]: [] },
    graph: sweep.graph,
  });
}

/** One update failing the Operations stranded by the batch's (still stale) Services. */
async function failStranded(sweep: Sweep, batch: readonly ServiceCutoff[]): Promise<void> {
  const spared = sweep.spared.length === 0 ? sweep.spared : await sparedRealizers(sweep, batch);
  await sweep.ogm.commitMatching({
    match: matchedOnce(strandedOperationsMatch(batch, sweep.cutoff, spared)),
    subjectClass: cfc.Operation,
    set: {
      [svc.operationStatus]: OperationStatus.FAILED,
      [svc.executionResult]: sweep.reason,
      [svc.executionTimestamp]: sweep.now,
      [sm.failureKind]: FailureKind.SWEPT,
    },
    graph: sweep.graph,
  });
}

/**
 * The spared Services that realize a Capability of one of the batch's resources (one read): the
 * only ones the batch's failing update needs to know as survivors.
 */
async function sparedRealizers(sweep: Sweep, batch: readonly ServiceCutoff[]): Promise<NamedNodeTerm[]> {
  const rows = await sweep.ogm.db.select(batchRealizersQuery(sweep.graph, batch));
  const realizers = new Set(rows.map((row) => row.survivor?.value));
  return sweep.spared.filter((service) => realizers.has(service.value));
}

/**
 * Runs one step of a batch. A StoreError it throws is wrapped in one that keeps its endpoint,
 * status and message and says which batch and step failed and what was done; any other error (a
 * validation error, which the first batch meets) is thrown as it is.
 */
async function inBatch(at: BatchPosition, step: 'deregistering' | 'failing', run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    const which = `Services ${at.from + 1}-${at.from + at.size} of the ${at.stale} stale ones`;
    const state =
      step === 'failing'
        ? 'they stay registered with their Operations as they were'
        : 'the Operations they stranded are failed, but they stay registered';
    const message = `sweep: ${step} ${which} failed (${at.from} swept before them; ${state}, and the next sweep finds them again): ${error.message}`;
    throw new StoreError(message, error.endpoint, error.httpStatus, { cause: error });
  }
}

function checkBatchSize(size: number): number {
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1)
    throw new ValueError(`batchSize ${preview(size)} is not an integer >= 1 (stale Services per sweep batch)`);
  return size;
}
