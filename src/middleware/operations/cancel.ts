import { ValueError } from '../../errors.js';
import { preview } from '../../iri/validate.js';
import { libraryCaller } from '../../lib/caller-identity.js';
import { cancelOperation, type CancelResult } from '../../registration/cancellation.js';
import { cancelFlight } from '../runtime/cancel-watch.js';
import type { MiddlewareContext } from '../runtime/context.js';

/** Options of `mw.cancel`. */
export interface CancelOptions {
  /** Who cancels, recorded as `sm:cancelledBy`; default this instance's Service IRI, else its resource IRI, else `library`. */
  by?: string | null;
}

/**
 * `cancel`: cancels an Operation through the graph (`cancelOperation`). When this instance runs
 * the Operation itself, its work is aborted at once rather than at the next look of the cancel watch.
 * @throws ValueError for a malformed IRI or caller; TransitionConflictError (409) when it is done
 *   or failed already; OperationResolutionError (404) when it does not exist.
 */
export async function cancel(ctx: MiddlewareContext, operationIri: string, options: CancelOptions = {}): Promise<CancelResult> {
  if (typeof options !== 'object' || options === null) throw new ValueError(`cancel options must be an object, got ${preview(options)}`);
  const by = options.by ?? libraryCaller(ctx.serviceIri, ctx.options.resourceIri ?? undefined);
  const result = await cancelOperation(ctx.ogm, operationIri, { by, ...ctx.graph });
  const flight = ctx.queue.flights().find((f) => f.operationIri === result.operationIri && f.running);
  if (result.outcome === 'requested' && flight) cancelFlight(ctx, flight, result.cancelledBy);
  if (result.outcome === 'cancelled') {
    ctx.logger.info({ operation: result.operationIri, cancelledBy: by }, 'queued operation cancelled');
    ctx.record('cancel', { operation: result.operationIri, cancelledBy: by, status: 'queued' });
  }
  return result;
}
