import { graphFragment, sparql } from '../store/sparql.js';
import { namedNode } from '../store/terms.js';
import { cfc, mes } from '../vocab/terms.js';

/**
 * SPARQL text of Core's reified possession model (`possessor cfc:hasPossessor state`,
 * `workpiece cfc:hasPossessedWorkpiece state`) and of the handover ability check.
 */

const node = namedNode;

/**
 * `SELECT ?ps`: the current PossessionState in which `possessor` holds `workpiece`: the state the
 * workpiece's `cfc:hasPossessedWorkpiece` points at, if the possessor's `cfc:hasPossessor` links to it.
 */
export function possessionStateQuery(graph: string, workpiece: string, possessor: string): string {
  return sparql`SELECT ?ps WHERE { GRAPH ${node(graph)} { ${node(workpiece)} ${node(cfc.hasPossessedWorkpiece)} ?ps . ${node(possessor)} ${node(cfc.hasPossessor)} ?ps . } } LIMIT 1`
    .text;
}

/** `SELECT ?ps ?who`: the workpiece's current PossessionStates and their possessors. */
export function currentPossessionQuery(graph: string, workpiece: string): string {
  return sparql`SELECT ?ps ?who WHERE { GRAPH ${node(graph)} { ${node(workpiece)} ${node(cfc.hasPossessedWorkpiece)} ?ps . OPTIONAL { ?who ${node(cfc.hasPossessor)} ?ps . } } }`
    .text;
}

/** `SELECT ?ps`: the PossessionStates the workpiece's `cfc:hasPossessedWorkpiece` points at now. */
export function currentStatesQuery(graph: string, workpiece: string): string {
  return sparql`SELECT ?ps WHERE { GRAPH ${node(graph)} { ${node(workpiece)} ${node(cfc.hasPossessedWorkpiece)} ?ps . } }`.text;
}

/** ASK: does the workpiece's `cfc:hasPossessedWorkpiece` point at `state`? */
export function pointsAtStateAsk(graph: string, workpiece: string, state: string): string {
  return sparql`ASK { ${graphFragment(graph, sparql`${node(workpiece)} ${node(cfc.hasPossessedWorkpiece)} ${node(state)} .`)} }`.text;
}

/**
 * ASK: has the counterpart a `mes:hasHandoverAbility` ability that `modeAbility` `mes:complements`
 * (either direction: a symmetric property, and no reasoner runs)? Reads every named graph. Most
 * selective first: the counterpart's few abilities, then the complement test on each.
 */
export function complementaryAbilityAsk(counterpart: string, modeAbility: string): string {
  const complements = node(mes.complements);
  return sparql`ASK { GRAPH ?ga { ${node(counterpart)} ${node(mes.hasHandoverAbility)} ?a . } GRAPH ?gc { ${node(modeAbility)} ${complements}|^${complements} ?a . } }`
    .text;
}
