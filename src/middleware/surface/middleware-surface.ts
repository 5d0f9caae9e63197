import { UnavailableError } from '../../errors.js';
import { TRIVIAL_SELECT } from '../../queries/probes.js';
import { serviceReachableAsk } from '../../queries/services.js';
import { APP_WELCOME } from '../constants.js';
import type { MiddlewareContext } from '../runtime/context.js';
import type { HttpSurface } from './contract.js';
import { Mode } from '../runtime/mode.js';
import { handleTrigger, type TriggerWorker } from '../operations/trigger.js';
import { parseDescription } from '../operations/operation-description.js';
import type { SurfaceCall } from '../../metrics/middleware-metrics.js';

/**
 * The {@link HttpSurface} one middleware instance serves: its registered workflows and state
 * getters, its event trigger, its probes and its activity feed. In watchdog mode there are no
 * workflows or states and the trigger answers 503.
 */
export function buildSurface(ctx: MiddlewareContext, worker: TriggerWorker): HttpSurface {
  const resource = ctx.options.mode === Mode.RESOURCE;
  return {
    welcome: APP_WELCOME,
    workflow: (name) => measured(ctx, 'workflow', name, ctx.registry.workflows.get(name)?.handler),
    state: (name) => measured(ctx, 'state', name, ctx.registry.states.get(name)?.getter),
    trigger: async (operationIri, description, trace) => {
      const down = ctx.device.unavailability;
      // Refused before the graph is read: the caller reverts its Operation and may pick another realizer.
      if (down !== undefined)
        throw new UnavailableError(`${down}: the Operation was not enqueued; dispatch to another realizer or retry when it answers`);
      return handleTrigger(ctx, operationIri, worker, description === undefined ? undefined : parseDescription(description), trace);
    },
    ...(resource && { outcome: (operationIri: string) => ctx.outcomes.listen(operationIri) }),
    live: () => ctx.phase !== 'stopped',
    isService: (serviceIri) => ctx.serviceIri === serviceIri,
    ready: async () => {
      if (!resource) return storeAnswers(ctx);
      const down = ctx.device.unavailability;
      if (down !== undefined) throw new UnavailableError(down);
      return ctx.connectors.connected() && (await registeredAndStoreAnswers(ctx));
    },
    parameters: ctx.connectors,
    ...(ctx.activity ? { activity: ctx.activity } : {}),
    metrics: () => (ctx.metrics ? ctx.metrics.text() : Promise.reject(new UnavailableError('metrics: the middleware is not started'))),
    ...(ctx.options.httpToken !== undefined && { token: ctx.options.httpToken }),
    logger: ctx.logger,
  };
}

/** A registered call's handler, counted and timed once the instance has metrics. */
function measured<H extends (...args: never[]) => unknown>(
  ctx: MiddlewareContext,
  call: SurfaceCall,
  name: string,
  handler: H | undefined,
): H | undefined {
  return handler && ctx.metrics ? (ctx.metrics.measured(call, name, handler) as H) : handler;
}

/**
 * Resource mode is ready when started, registered, and the store confirms the Service carries
 * its address (one ASK: cheap, and false once a sweep deregistered it).
 */
async function registeredAndStoreAnswers(ctx: MiddlewareContext): Promise<boolean> {
  if (ctx.phase !== 'started' || !ctx.registered || !ctx.serviceIri) return false;
  try {
    return await ctx.ogm.db.ask(serviceReachableAsk(ctx.graphIri, ctx.serviceIri));
  } catch (error) {
    ctx.logger.debug({ err: error }, 'readiness: the store did not answer');
    return false;
  }
}

/** Watchdog mode is ready when started and the store answers a trivial query. */
async function storeAnswers(ctx: MiddlewareContext): Promise<boolean> {
  if (ctx.phase !== 'started') return false;
  try {
    await ctx.ogm.db.select(TRIVIAL_SELECT);
    return true;
  } catch (error) {
    ctx.logger.debug({ err: error }, 'readiness: the store did not answer');
    return false;
  }
}
