import { HandoverPreconditionError, ValueError } from '../../errors.js';
import { assertIri, preview } from '../../iri/validate.js';
import { libraryCaller } from '../../lib/caller-identity.js';
import { assertCaller } from '../../registration/cancellation.js';
import { counterpartHasComplementaryAbility, currentPossessor, switchPossession } from '../../registration/possession.js';
import type { MiddlewareContext } from '../runtime/context.js';

/**
 * `handover`: change of possession of a workpiece from this instance's resource to a
 * counterpart. Both preconditions are checked before the body (the domain's physical work), and
 * the switch is guarded on the possession state that was checked.
 */

/** Options of `mw.handover`. */
export interface HandoverOptions {
  /** This resource's handover ability for this change (`mes:Put`, `mes:Pick`, ...). */
  mode: string;
  /** The workpiece this resource possesses now. */
  workpiece: string;
  /** The resource taking the workpiece over; it needs an ability that `mes:complements` `mode`. */
  counterpart: string;
  /** Who initiates the change, recorded as `sm:possessionChangedBy`; default this instance's Service IRI, else its resource IRI. */
  by?: string | null;
}

/** The body of `handover`: the physical transfer; throwing aborts with no switch. */
export type HandoverBody = () => unknown;

/**
 * Checks both preconditions (in parallel, two reads), runs the body, then switches possession
 * to the counterpart; returns the new PossessionState IRI.
 * @throws HandoverPreconditionError naming each failed precondition, before the body runs.
 * @throws the body's error (no switch).
 * @throws TransitionConflictError when possession changed between the check and the switch.
 * @throws RuntimeError outside resource mode; ValueError for a malformed IRI.
 */
export async function handover(ctx: MiddlewareContext, options: HandoverOptions, body?: HandoverBody): Promise<string> {
  const resourceIri = ctx.resource('handover');
  ctx.requireNotStopped('handover');
  if (typeof options !== 'object' || options === null) throw new ValueError(`handover options must be an object, got ${preview(options)}`);
  if (body !== undefined && typeof body !== 'function') throw new ValueError(`handover body must be a function, got ${typeof body}`);
  const mode = assertIri(options.mode, 'mode');
  const workpiece = assertIri(options.workpiece, 'workpiece');
  const counterpart = assertIri(options.counterpart, 'counterpart');
  const by = assertCaller(options.by ?? libraryCaller(ctx.serviceIri, resourceIri), 'by');
  const [possession, complementary] = await Promise.all([
    currentPossessor(ctx.ogm, workpiece, ctx.graph),
    counterpartHasComplementaryAbility(ctx.ogm, counterpart, mode, ctx.graph),
  ]);
  const failed: string[] = [];
  const holds = possession?.possessors.includes(resourceIri) === true;
  if (!holds) {
    const who = possession
      ? `it is possessed by ${possession.possessors.map((p) => `<${p}>`).join(', ') || 'nobody'}`
      : 'it is not possessed at all';
    failed.push(`<${resourceIri}> does not possess workpiece <${workpiece}> (${who})`);
  }
  if (!complementary) failed.push(`counterpart <${counterpart}> has no mes:hasHandoverAbility that mes:complements <${mode}>`);
  if (failed.length > 0) throw new HandoverPreconditionError(`handover precondition failed: ${failed.join('; ')}`);
  if (body) await body();
  const state = await switchPossession(ctx.ogm, {
    workpieceIri: workpiece,
    newPossessorIri: counterpart,
    expectedPossessionState: possession!.possessionState,
    changedBy: by,
    ...ctx.graph,
  });
  ctx.logger.info({ workpiece, counterpart, possessionState: state, by }, 'handover done');
  ctx.record('handover', { workpiece, from: resourceIri, to: counterpart, mode, possessionState: state, by });
  return state;
}
