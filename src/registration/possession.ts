import { TransitionConflictError, ValidationError } from '../errors.js';
import { assertIri } from '../iri/validate.js';
import { mintPossessionStateIri } from '../iri/mint.js';
import type { OGM, PropertyInputs } from '../ogm/ogm.js';
import { pointsAtStateAsk } from '../queries/possession.js';
import { namedNode, type Term } from '../store/terms.js';
import { cfc, sm } from '../vocab/terms.js';
import { assertCaller } from './cancellation.js';
import { checkOptions, graphOf, type GraphOption } from './classes.js';
import { checkDate } from './services.js';
import { currentStates, severalStates } from './possession-reads.js';

/**
 * The change-of-possession primitive over Core's reified possession model:
 * `possessor cfc:hasPossessor state` (the spec's low-level atomic append) and
 * `workpiece cfc:hasPossessedWorkpiece state` (exactly one, set and re-pointed through a guarded
 * OGM commit). A new PossessionState is minted for every change; older ones stay as history.
 * The reads (current possession, complementary abilities) are in `possession-reads.ts` and
 * re-exported here.
 */

export { counterpartHasComplementaryAbility, currentPossessor, findPossessionState, type CurrentPossession } from './possession-reads.js';

const node = (iri: string): Term => namedNode(iri);

/** Who changes possession and when: written on the new PossessionState, in the same create. */
export interface PossessionChangeAudit {
  /** `sm:possessionChangedBy`: who initiates the change (see `src/lib/caller-identity.ts`); not written when omitted. */
  changedBy?: string | null;
  /** `sm:possessionChangedAt`; now when omitted. */
  changedAt?: Date | null;
}

/** Options of {@link createPossession}. */
export interface CreatePossessionOptions extends GraphOption, PossessionChangeAudit {
  /** The workpiece; must already exist in the graph typed `cfc:Workpiece` or a subclass. */
  workpieceIri: string;
  /** The resource that comes to possess it. */
  possessorIri: string;
}

/** Options of {@link switchPossession}. */
export interface SwitchPossessionOptions extends GraphOption, PossessionChangeAudit {
  /** The workpiece; must already be possessed (see {@link createPossession}). */
  workpieceIri: string;
  /** The resource that takes the workpiece over. */
  newPossessorIri: string;
  /**
   * The PossessionState the caller checked (for example in a handover's precondition). The
   * switch applies only if the workpiece still points at it. When omitted, the current state is
   * read first (one more query) and the switch applies only if nobody switched in between.
   */
  expectedPossessionState?: string;
}

/**
 * Gives a workpiece that is not possessed yet its first possessor, and returns the new
 * PossessionState IRI. Writes, in order: the PossessionState with `sm:possessionChangedAt` and, when
 * given, `sm:possessionChangedBy` (one `ogm.create`), the possessor's
 * `cfc:hasPossessor` (one atomic append on `ogm.db`), and the workpiece's
 * `cfc:hasPossessedWorkpiece` (one `ogm.commit`, applied only if the workpiece has none yet).
 * Requests, with warm caches: 3; a lost guard adds 1 (the removal). The possessor is not
 * type-checked: the spec's append path is unvalidated, and possessors are usually described in
 * another graph (a plant ontology) than the data graph.
 * @throws ValueError when an IRI is malformed (nothing is sent).
 * @throws ValidationError when the workpiece is untyped or not a `cfc:Workpiece` (nothing written).
 * @throws TransitionConflictError when the workpiece is already possessed: the state and the
 *   append just written are removed again (one `DELETE DATA`); use {@link switchPossession}.
 * @throws StoreError when a write fails: what was written is removed again, unless the
 *   re-point is found to have applied (then the call succeeds) or its outcome cannot be read.
 * @example const state = await createPossession(ogm, { workpieceIri: part, possessorIri: plant.robot1 });
 */
export async function createPossession(ogm: OGM, options: CreatePossessionOptions): Promise<string> {
  checkOptions(options, 'createPossession');
  const graph = graphOf(ogm, options);
  const workpiece = assertIri(options.workpieceIri, 'workpieceIri');
  const possessor = assertIri(options.possessorIri, 'possessorIri');
  const state = mintPossessionStateIri(workpiece);
  await assertWorkpiece(ogm, workpiece, graph);
  await writeState(
    ogm,
    { graph, workpiece, possessor, state, expected: [], audit: changeAudit(options) },
    () =>
      new TransitionConflictError(
        `workpiece <${workpiece}> is already possessed (it has a cfc:hasPossessedWorkpiece in <${graph}>); use switchPossession to change its possessor`,
      ),
  );
  return state;
}

/**
 * Hands a possessed workpiece over to a new possessor and returns the new PossessionState IRI.
 * The spec's steps, in order: mint and create a new PossessionState (with when and by whom, as in
 * {@link createPossession}), append the new possessor's
 * `cfc:hasPossessor`, then re-point the workpiece's `cfc:hasPossessedWorkpiece` in one guarded
 * `ogm.commit` (one atomic DELETE/INSERT). The previous state and its possessor link are kept as
 * history. Of several concurrent switches from one state exactly one applies.
 * Requests, with warm caches: 3, plus 1 when `expectedPossessionState` is omitted; a lost guard
 * adds 1 (the removal).
 * @throws ValueError when an IRI is malformed (nothing is sent).
 * @throws ValidationError when the workpiece is untyped or not a `cfc:Workpiece`, or has several
 *   current states (nothing written).
 * @throws TransitionConflictError when the workpiece is not possessed, or no longer points at the
 *   expected state: the new state and its append are removed again (one `DELETE DATA`) and the
 *   prior possession is left intact.
 * @throws StoreError when a write fails; handled as in {@link createPossession}.
 * @example await switchPossession(ogm, { workpieceIri: part, newPossessorIri: plant.conveyor1, expectedPossessionState: state });
 */
export async function switchPossession(ogm: OGM, options: SwitchPossessionOptions): Promise<string> {
  checkOptions(options, 'switchPossession');
  const graph = graphOf(ogm, options);
  const workpiece = assertIri(options.workpieceIri, 'workpieceIri');
  const possessor = assertIri(options.newPossessorIri, 'newPossessorIri');
  let expected =
    options.expectedPossessionState === undefined ? undefined : assertIri(options.expectedPossessionState, 'expectedPossessionState');
  const state = mintPossessionStateIri(workpiece);
  await assertWorkpiece(ogm, workpiece, graph);
  if (expected === undefined) {
    const current = await currentStates(ogm, workpiece, graph);
    if (current.length === 0) {
      throw new TransitionConflictError(
        `workpiece <${workpiece}> is not possessed in <${graph}>; use createPossession to give it a first possessor`,
      );
    }
    if (current.length > 1) throw severalStates(workpiece, current.length);
    expected = current[0]!;
  }
  const prior = expected;
  await writeState(
    ogm,
    { graph, workpiece, possessor, state, expected: [prior], audit: changeAudit(options) },
    () =>
      new TransitionConflictError(
        `workpiece <${workpiece}> no longer points at possession state <${prior}>: another change of possession won; the new state was removed and the current possession is unchanged`,
      ),
  );
  return state;
}

interface StateWrite {
  graph: string;
  workpiece: string;
  possessor: string;
  state: string;
  /** Exact current values of the workpiece's `cfc:hasPossessedWorkpiece` for the commit to apply. */
  expected: string[];
  /** The state's own properties: when and by whom. */
  audit: PropertyInputs;
}

/** The audit properties of a new PossessionState, checked before anything is sent. */
function changeAudit(options: PossessionChangeAudit): PropertyInputs {
  return {
    [sm.possessionChangedAt]: checkDate(options.changedAt ?? new Date(), 'changedAt'),
    ...(options.changedBy != null && { [sm.possessionChangedBy]: assertCaller(options.changedBy, 'changedBy') }),
  };
}

/**
 * Creates the state, appends the possessor link and points the workpiece at the state under the
 * guard. When the guard fails, removes the state and the append in one `DELETE DATA` and throws
 * `conflict()`. When a step fails with an error (a store error, a dropped connection), the outcome
 * of a commit already sent is unknown, so it is read back: if the workpiece points at the new
 * state the change happened and counts as done; otherwise the state and append are removed and
 * the error is rethrown. If even the read-back fails, nothing is removed, so a failure never
 * leaves the workpiece pointing at a removed state (at worst an unreferenced state remains).
 */
async function writeState(ogm: OGM, w: StateWrite, conflict: () => Error): Promise<void> {
  const create = { iri: w.state, type: cfc.PossessionState, properties: w.audit, graph: w.graph };
  const { triples } = await ogm.createTriples(create);
  const written = [...triples, { subject: w.possessor, predicate: cfc.hasPossessor, object: node(w.state) }];
  const undo = async (): Promise<void> => {
    await withRetry(() => ogm.db.tripleDelete(written, w.graph));
    ogm.forget(w.state, w.graph);
  };
  let commitSent = false;
  let applied: boolean;
  try {
    await ogm.create(create);
    await ogm.db.append({ subject: w.possessor, predicate: cfc.hasPossessor, object: w.state }, w.graph);
    commitSent = true;
    ({ applied } = await ogm.commit({
      iri: w.workpiece,
      graph: w.graph,
      set: { [cfc.hasPossessedWorkpiece]: [w.state] },
      guard: { [cfc.hasPossessedWorkpiece]: w.expected },
    }));
  } catch (error) {
    const pointsAtNew = commitSent ? await withRetry(() => ogm.db.ask(askPointsAt(w))).catch(() => undefined) : false;
    if (pointsAtNew === true) return;
    if (pointsAtNew === false) await undo().catch(() => undefined);
    throw error;
  }
  if (!applied) {
    await undo();
    throw conflict();
  }
}

// Clean-up and read-back are idempotent, so a request dropped by an overloaded store is retried.
const RETRY_DELAYS_MS = [20, 100, 400];

async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (const delay of RETRY_DELAYS_MS) {
    try {
      return await fn();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  return fn();
}

function askPointsAt(w: StateWrite): string {
  return pointsAtStateAsk(w.graph, w.workpiece, w.state);
}

/**
 * Checks, before anything is written, that the workpiece exists in the graph typed
 * `cfc:Workpiece` or a subclass (the domain of `cfc:hasPossessedWorkpiece`), so that the commit
 * cannot fail validation after the state was written. Uses the OGM's type cache: the commit
 * reads the same types, so this costs no request beyond the commit's own.
 */
async function assertWorkpiece(ogm: OGM, workpiece: string, graph: string): Promise<void> {
  const classes = await ogm.typesOf(workpiece, graph);
  const rule = { focus: workpiece, property: cfc.hasPossessedWorkpiece };
  if (classes.length === 0) {
    throw new ValidationError(
      `workpiece <${workpiece}> has no type in graph <${graph}>: create it first as a <${cfc.Workpiece}> or a subclass (rule: typed-individual)`,
      { ...rule, rule: 'typed-individual' },
    );
  }
  let tbox = await ogm.tbox();
  const isWorkpiece = (): boolean => classes.some((c) => tbox.hasClass(c) && tbox.isSubClassOf(c, cfc.Workpiece));
  if (!isWorkpiece() && ogm.refreshAfterMiss()) tbox = await ogm.tbox();
  if (!isWorkpiece()) {
    throw new ValidationError(
      `<${workpiece}> is typed ${classes.map((c) => `<${c}>`).join(', ')} in <${graph}>, none of which is <${cfc.Workpiece}> or a subclass: it cannot be possessed (rule: domain)`,
      { ...rule, rule: 'domain' },
    );
  }
}
