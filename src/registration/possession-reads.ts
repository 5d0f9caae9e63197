import { ValidationError } from '../errors.js';
import { assertIri } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import { complementaryAbilityAsk, currentPossessionQuery, currentStatesQuery, possessionStateQuery } from '../queries/possession.js';
import { cfc } from '../vocab/terms.js';
import { graphOf, type GraphOption } from './classes.js';

/**
 * Reads of Core's reified possession model (`possessor cfc:hasPossessor state`,
 * `workpiece cfc:hasPossessedWorkpiece state`): who holds a workpiece now, and whether a
 * counterpart can take part in a handover. The writes are in `possession.ts`, the query texts in `queries/possession.ts`.
 */

/** A workpiece's current possession, as {@link currentPossessor} reads it. */
export interface CurrentPossession {
  /** The PossessionState the workpiece's `cfc:hasPossessedWorkpiece` points at. */
  possessionState: string;
  /** Every resource linked to that state by `cfc:hasPossessor` (normally one). */
  possessors: string[];
}

/**
 * The current PossessionState in which `possessorIri` holds `workpieceIri`, or undefined: the
 * state the workpiece's `cfc:hasPossessedWorkpiece` points at, if the possessor's
 * `cfc:hasPossessor` links to it. Older (history) states never match. One query.
 * @throws ValueError when an IRI is malformed.
 * @example const state = await findPossessionState(ogm, part, plant.robot1);
 */
export async function findPossessionState(
  ogm: OGM,
  workpieceIri: string,
  possessorIri: string,
  options?: GraphOption,
): Promise<string | undefined> {
  const graph = graphOf(ogm, options);
  const workpiece = assertIri(workpieceIri, 'workpieceIri');
  const possessor = assertIri(possessorIri, 'possessorIri');
  const rows = await ogm.db.select(possessionStateQuery(graph, workpiece, possessor));
  return rows[0]?.ps?.value;
}

/**
 * The workpiece's current PossessionState and its possessors, or undefined when it is not
 * possessed. Used by the middleware's handover precondition. One query.
 * @throws ValueError when an IRI is malformed.
 * @throws ValidationError when the workpiece has several current states (written outside the OGM).
 * @example const current = await currentPossessor(ogm, part); // { possessionState, possessors: [robot1] }
 */
export async function currentPossessor(ogm: OGM, workpieceIri: string, options?: GraphOption): Promise<CurrentPossession | undefined> {
  const graph = graphOf(ogm, options);
  const workpiece = assertIri(workpieceIri, 'workpieceIri');
  const rows = await ogm.db.select(currentPossessionQuery(graph, workpiece));
  const states = [...new Set(rows.map((r) => r.ps!.value))];
  if (states.length === 0) return undefined;
  if (states.length > 1) throw severalStates(workpiece, states.length);
  const possessors = [...new Set(rows.flatMap((r) => (r.who ? [r.who.value] : [])))].sort();
  return { possessionState: states[0]!, possessors };
}

/**
 * True iff the counterpart has a `mes:hasHandoverAbility` ability that `modeAbilityIri`
 * `mes:complements`. One ASK.
 *
 * Graphs read: every named graph, for both patterns, so `namedGraph` is accepted but does not
 * narrow this read (as for the TBox read by `assertClassRegistered`). The complements are ontology
 * facts provisioned into the MES module's graph, and a resource's handover abilities are static
 * plant description that may be provisioned with a plant ontology (the example plant's graph) or
 * written into the data graph; a handover must see them wherever they were loaded. Because
 * `mes:complements` is an `owl:SymmetricProperty` and no reasoner runs, either direction of the
 * assertion counts.
 * @throws ValueError when an IRI is malformed.
 * @example await counterpartHasComplementaryAbility(ogm, plant.conveyor1, mes.Put); // true
 */
export async function counterpartHasComplementaryAbility(
  ogm: OGM,
  counterpartIri: string,
  modeAbilityIri: string,
  options?: GraphOption,
): Promise<boolean> {
  graphOf(ogm, options);
  const counterpart = assertIri(counterpartIri, 'counterpartIri');
  const mode = assertIri(modeAbilityIri, 'modeAbilityIri');
  return ogm.db.ask(complementaryAbilityAsk(counterpart, mode));
}

/** The PossessionStates the workpiece's `cfc:hasPossessedWorkpiece` points at now (normally one). @internal */
export async function currentStates(ogm: OGM, workpiece: string, graph: string): Promise<string[]> {
  const rows = await ogm.db.select(currentStatesQuery(graph, workpiece));
  return rows.map((r) => r.ps!.value);
}

/** The error for a workpiece with several current states (written outside the OGM). @internal */
export function severalStates(workpiece: string, count: number): ValidationError {
  return new ValidationError(
    `workpiece <${workpiece}> has ${count} current possession states (cfc:hasPossessedWorkpiece allows exactly 1); the graph was written outside the OGM (rule: max-cardinality)`,
    { focus: workpiece, property: cfc.hasPossessedWorkpiece, rule: 'max-cardinality' },
  );
}
