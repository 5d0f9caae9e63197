import { UnavailableError, ValidationError } from '../../errors.js';
import { sweepStaleServices } from '../../registration/sweep.js';
import { makeServiceReachable } from '../../registration/services.js';
import { svc } from '../../vocab/terms.js';
import type { MiddlewareContext } from './context.js';
import { requeueAfterStoreFailures } from './reconstruct.js';
import { registerServiceAndParts } from './register-parts.js';

/**
 * The instance's side of liveness: its heartbeat (resource mode) and the watchdog's sweep.
 */

/**
 * Refreshes the Service's heartbeat in ONE guarded commit: `svc:lastHeartbeat` is replaced only
 * if the Service still carries its `svc:address`. If it does not, the Service was deregistered
 * behind this instance's back (a sweep during a store or network outage): that is logged at warn
 * and the Service is registered again (Workflows, StateProperties, then reachable with a fresh
 * heartbeat), so it comes back by itself. When the store failed requests since the last look,
 * the Service's queued Operations that its queue does not hold are enqueued again (see
 * `requeueAfterStoreFailures`).
 * @throws RuntimeError outside resource mode; UnavailableError unless registered; StoreError.
 */
export async function emitHeartbeat(ctx: MiddlewareContext): Promise<void> {
  ctx.resource('emitHeartbeat');
  if (!ctx.registered) throw new UnavailableError('emitHeartbeat: the Service is not registered (start() the middleware first)');
  const { serviceIri, address } = ctx.service('emitHeartbeat');
  const timestamp = new Date();
  let applied: boolean;
  try {
    ({ applied } = await ctx.ogm.commit({
      iri: serviceIri,
      set: { [svc.lastHeartbeat]: timestamp },
      guard: { [svc.address]: address },
      graph: ctx.graphIri,
    }));
  } catch (error) {
    // The Service has no type at all: someone removed it entirely; register it again too.
    if (!(error instanceof ValidationError && error.details.rule === 'typed-individual')) throw error;
    applied = false;
  }
  if (applied) {
    ctx.logger.trace({ service: serviceIri }, 'heartbeat');
    // `at`, not `time`: the feed stamps every entry with its own `time`.
    ctx.record('heartbeat', { service: serviceIri, at: timestamp.toISOString() });
  } else {
    // stop() deregisters after the loop ended; a heartbeat racing it must not bring the Service back.
    if (ctx.phase !== 'started') return;
    ctx.logger.warn(
      { service: serviceIri, address },
      'the Service was deregistered behind this instance (swept during an outage?); registering it again',
    );
    await registerServiceAndParts(ctx);
    await becomeReachable(ctx, true);
    ctx.record('registered', { service: serviceIri, address, again: true });
  }
  // The store answers again: work whose trigger was refused during an outage is picked up now.
  await requeueAfterStoreFailures(ctx, serviceIri);
}

/**
 * Makes the registered Service reachable: first the device's availability
 * (`sm:deviceUnavailableSince`), so the Service is never offered with a device known to be down,
 * then `svc:address` with a fresh heartbeat and `sm:heartbeatInterval` (removed when the heartbeat
 * is off), so the watchdog and discovery judge it by its own period.
 */
export async function becomeReachable(ctx: MiddlewareContext, again = false): Promise<void> {
  const { serviceIri, address } = ctx.service('registration');
  const interval = ctx.options.heartbeatInterval;
  await ctx.device.writeGraph(again);
  await makeServiceReachable(ctx.ogm, serviceIri, address, {
    heartbeat: new Date(),
    heartbeatIntervalMs: interval === null ? null : Math.max(1, Math.round(interval * 1000)),
    ...ctx.graph,
  });
}

/**
 * Sweeps once: deregisters every Service whose heartbeat is older than `stalenessThreshold` and
 * fails the Operations stranded on their resources (per Operation: only those whose Capability
 * no surviving Service realizes). Returns the swept Service IRIs.
 * @throws StoreError when the store fails.
 */
export async function sweep(ctx: MiddlewareContext): Promise<string[]> {
  const run = (): Promise<string[]> => sweepStaleServices(ctx.ogm, ctx.options.stalenessThreshold, ctx.graph);
  const swept = await (ctx.metrics ? ctx.metrics.timeSweep(run) : run());
  if (swept.length > 0) ctx.logger.info({ swept }, 'swept stale services');
  ctx.record('sweep', { swept });
  return swept;
}
