import { TransitionConflictError } from '../../errors.js';
import { findRunningOperations, type RunningOperation } from '../../registration/liveness.js';
import { findServiceOperations, markOperationFailed, type MarkOperationFailedOptions } from '../../registration/operations.js';
import { cancelReason } from '../../registration/cancellation.js';
import { readOperation } from '../operations/operation-watch.js';
import { FailureKind, OperationStatus } from '../../vocab/status.js';
import { RECLAIM_REASON } from '../constants.js';
import type { MiddlewareContext } from './context.js';
import { liveTwins } from './twin-probe.js';

// Failed store requests each instance had seen when it last read its queued Operations.
const seenStoreFailures = new WeakMap<MiddlewareContext, number>();

/**
 * Queue reconstruction at start-up, with the per-Operation rule: the Operations of this Service
 * are those whose Capability a Workflow of THIS Service realizes (`findServiceOperations`), so a
 * monitor on the same resource never picks up its controller's work. Queued ones are enqueued
 * again (their Workflow is resolved when claimed). Running ones were orphaned by a previous run
 * and are failed with {@link RECLAIM_REASON} (kind `orphaned`; `cancelled` when a cancel of it
 * was pending), never re-run (a planner decides on re-dispatch),
 * unless a live twin may be running them: another Service of the graph that realizes their
 * Capability (the sweep's rule) and answers its `/healthz` now (a twin killed moments ago still
 * looks fresh in the graph). Failing a live twin's work would invite a second dispatch of work
 * under way. Nothing on an Operation says which twin claimed it, so one that a twin was running
 * when it died stays `running` while another twin lives; callers see it through their timeout.
 */
export async function reconstructQueue(ctx: MiddlewareContext, serviceIri: string): Promise<{ queued: number; failed: number }> {
  const { ogm, graph, logger } = ctx;
  seenStoreFailures.set(ctx, ogm.store.failedRequests ?? 0);
  const [queued, candidates] = await Promise.all([
    findServiceOperations(ogm, serviceIri, [OperationStatus.QUEUED], graph),
    findRunningOperations(ogm, serviceIri, ctx.options.stalenessThreshold, graph),
  ]);
  const running = await withoutLiveTwins(ctx, candidates);
  let failed = 0;
  for (const operationIri of running) {
    try {
      await markOperationFailed(ogm, operationIri, ...(await orphanOutcome(ctx, operationIri)));
      failed += 1;
      logger.warn({ operation: operationIri }, 'orphaned running operation failed at start-up (not re-run)');
    } catch (error) {
      if (!(error instanceof TransitionConflictError)) throw error;
      logger.info({ operation: operationIri, err: error }, 'orphaned operation moved meanwhile; left as it is');
    }
  }
  // Sorted: the graph keeps no creation order, and a stable order makes restarts predictable.
  for (const operationIri of queued.sort()) ctx.queue.push({ operationIri });
  ctx.record('reconstructed', { service: serviceIri, queued: queued.length, failed });
  return { queued: queued.length, failed };
}

/**
 * The reason and kind an orphan is failed with: `orphaned`, or `cancelled` when a cancel of it was
 * requested before its receiver died (the cancel is what the caller asked for, and it holds).
 */
async function orphanOutcome(ctx: MiddlewareContext, operationIri: string): Promise<[string, MarkOperationFailedOptions]> {
  const found = await readOperation(ctx.ogm, operationIri, ctx.graph);
  if (found?.cancelRequested === undefined) return [RECLAIM_REASON, { kind: FailureKind.ORPHANED, ...ctx.graph }];
  const reason = `${cancelReason(found.cancelledBy ?? 'an unnamed caller', 'running')}; its receiver had stopped before it finished`;
  return [reason, { kind: FailureKind.CANCELLED, ...ctx.graph }];
}

/** The candidates no live twin may be running, logging the ones left to a twin. */
async function withoutLiveTwins(ctx: MiddlewareContext, candidates: readonly RunningOperation[]): Promise<string[]> {
  // Each twin asked once, though it may realize the Capability of several candidates.
  const twins = new Map(candidates.flatMap((c) => c.survivors).map((s) => [`${s.serviceIri} ${s.address}`, s]));
  const alive = await liveTwins(ctx.fetch, [...twins.values()]);
  const orphans: string[] = [];
  for (const { operationIri, survivors } of candidates) {
    const twin = survivors.find((s) => alive.has(s.serviceIri));
    if (twin === undefined) orphans.push(operationIri);
    else
      ctx.logger.info(
        { operation: operationIri, twin: twin.address, twinService: twin.serviceIri },
        'running operation left to a live twin that realizes its Capability',
      );
  }
  return orphans;
}

/**
 * Enqueues again the queued Operations of this Service that its queue does not hold, once the
 * store failed a request since the last look (start-up, or the previous call). A trigger that
 * reached this instance while its store link was down was refused (503); when the caller could
 * not revert the Operation either (its link was down too), the Operation stayed `queued` in the
 * graph with nobody to run it. Called after each heartbeat, so such work is picked up as soon as
 * the link is back, and costs nothing while the store answers. Queued Operations already here,
 * or in flight, are not enqueued twice; the claim's compare-and-set runs each one once.
 * @returns how many Operations were enqueued.
 * @throws StoreError when the store fails again (the next heartbeat retries).
 */
export async function requeueAfterStoreFailures(ctx: MiddlewareContext, serviceIri: string): Promise<number> {
  const failures = ctx.ogm.store.failedRequests ?? 0;
  if (failures === (seenStoreFailures.get(ctx) ?? 0)) return 0;
  const queued = await findServiceOperations(ctx.ogm, serviceIri, [OperationStatus.QUEUED], ctx.graph);
  seenStoreFailures.set(ctx, failures);
  let added = 0;
  for (const operationIri of queued.sort()) if (ctx.queue.push({ operationIri })) added += 1;
  if (added > 0) {
    ctx.logger.info({ service: serviceIri, operations: added }, 'queued operations picked up after the store failed requests');
    ctx.record('reconstructed', { service: serviceIri, queued: added, failed: 0 });
  }
  return added;
}
