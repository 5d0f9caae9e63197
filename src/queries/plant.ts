/**
 * SPARQL SELECT texts of the web console: the whole plant at once (every Service, Capability,
 * open and recently finished Operation, possessed workpiece), where the other query modules read
 * one resource or one Operation. Built with the `sparql` template from vocabulary terms only;
 * nothing the browser sends reaches them. The console runs them through `src/console/plant-reads.ts`.
 */
import { POSSESSION_STATE_INFIX } from '../iri/mint.js';
import { concat, graphFragment, sparql, variable, type SparqlFragment } from '../store/sparql.js';
import { literal, namedNode } from '../store/terms.js';
import { OperationStatus } from '../vocab/status.js';
import { cfc, sm, svc, w3 } from '../vocab/terms.js';
import { statusLiteral } from './operations.js';

/** Most recently finished Operations the console lists per store. */
export const RECENT_OPERATIONS = 50;
/** Most rows any one console query reads per store, so one huge plant cannot stall the page. */
export const MAX_CONSOLE_ROWS = 2000;

const T = Object.freeze({
  type: namedNode(w3.type),
  NamedIndividual: namedNode(w3.NamedIndividual),
  PossessionState: namedNode(cfc.PossessionState),
  hasCapability: namedNode(cfc.hasCapability),
  implementsCapability: namedNode(cfc.implementsCapability),
  hasPossessor: namedNode(cfc.hasPossessor),
  hasPossessedWorkpiece: namedNode(cfc.hasPossessedWorkpiece),
  isServiceOf: namedNode(svc.isServiceOf),
  address: namedNode(svc.address),
  lastHeartbeat: namedNode(svc.lastHeartbeat),
  realizedByWorkflow: namedNode(svc.realizedByWorkflow),
  providedByStateProperty: namedNode(svc.providedByStateProperty),
  operationStatus: namedNode(svc.operationStatus),
});

/** `OPTIONAL { ?s <p> ?name }` for each `[property, name]`. */
function optionals(subject: string, pairs: readonly (readonly [string, string])[]): SparqlFragment {
  const s = variable(subject);
  return concat(pairs.map(([p, name]) => sparql`OPTIONAL { ${s} ${namedNode(p)} ${variable(name)} . }`));
}

const notIndividual = (name: string): SparqlFragment => sparql`FILTER(${variable(name)} != ${T.NamedIndividual})`;

/** Every Service with its resource, classes, address, heartbeat, interval and device state. */
export function plantServicesQuery(graph: string): string {
  const where = sparql`?svc ${T.isServiceOf} ?res .
    OPTIONAL { ?svc ${T.type} ?cls . ${notIndividual('cls')} }
    ${optionals('svc', [
      [svc.address, 'addr'],
      [svc.lastHeartbeat, 'hb'],
      [sm.heartbeatInterval, 'interval'],
      [sm.deviceUnavailableSince, 'down'],
    ])}`;
  return sparql`SELECT ?svc ?res ?cls ?addr ?hb ?interval ?down WHERE { ${graphFragment(graph, where)} }
    ORDER BY ?res ?svc LIMIT ${MAX_CONSOLE_ROWS}`.text;
}

/** Every Capability of every resource, with its classes, realizing Workflows and providing StateProperties. */
export function plantCapabilitiesQuery(graph: string): string {
  const where = sparql`?res ${T.hasCapability} ?cap .
    { ?cap ${T.type} ?cls . ${notIndividual('cls')} BIND("class" AS ?kind) }
    UNION { ?cap ${T.realizedByWorkflow} ?part . BIND("workflow" AS ?kind) }
    UNION { ?cap ${T.providedByStateProperty} ?part . BIND("state" AS ?kind) }`;
  return sparql`SELECT ?res ?cap ?kind ?cls ?part WHERE { ${graphFragment(graph, where)} } ORDER BY ?res ?cap LIMIT ${MAX_CONSOLE_ROWS}`
    .text;
}

const OPERATION_DETAILS: readonly (readonly [string, string])[] = [
  [svc.executionResult, 'result'],
  [svc.failureState, 'fs'],
  [svc.executedByWorkflow, 'wf'],
  [svc.executionTimestamp, 'ts'],
  [sm.failureKind, 'kind'],
  [sm.requestedBy, 'by'],
  [sm.createdAt, 'created'],
  [sm.claimedAt, 'claimed'],
  [sm.finishedAt, 'finished'],
  [sm.deadline, 'deadline'],
  [sm.cancelRequested, 'cr'],
  [sm.cancelledBy, 'cb'],
];

function operationsSelect(graph: string, chosen: SparqlFragment): string {
  const where = sparql`${chosen}
    ?op ${T.operationStatus} ?st .
    OPTIONAL { ?op ${T.implementsCapability} ?cap . OPTIONAL { ?res ${T.hasCapability} ?cap . } }
    OPTIONAL { ?op ${T.type} ?cls . ${notIndividual('cls')} }
    ${optionals('op', OPERATION_DETAILS)}`;
  const names = concat(OPERATION_DETAILS.map(([, name]) => sparql`${variable(name)}`));
  return sparql`SELECT ?op ?st ?cap ?res ?cls ${names} WHERE { ${graphFragment(graph, where)} } LIMIT ${MAX_CONSOLE_ROWS}`.text;
}

/** Every queued or running Operation, with its Capability's resource, classes, provenance and cancellation. */
export function openOperationsQuery(graph: string): string {
  const open = [OperationStatus.QUEUED, OperationStatus.RUNNING].map(statusLiteral);
  return operationsSelect(graph, sparql`?op ${T.operationStatus} ?open . FILTER(?open IN ${open})`);
}

/**
 * The {@link RECENT_OPERATIONS} most recently finished (`done` or `failed`) Operations, picked in
 * a subquery by `sm:finishedAt` (else `svc:executionTimestamp`), with outcome and provenance.
 */
export function recentOperationsQuery(graph: string): string {
  const finished = [OperationStatus.DONE, OperationStatus.FAILED].map(statusLiteral);
  const pick = sparql`{ SELECT ?op WHERE { ?op ${T.operationStatus} ?end . FILTER(?end IN ${finished})
      OPTIONAL { ?op ${namedNode(sm.finishedAt)} ?fin . } OPTIONAL { ?op ${namedNode(svc.executionTimestamp)} ?ets . } }
    ORDER BY DESC(COALESCE(?fin, ?ets)) LIMIT ${RECENT_OPERATIONS} }`;
  return operationsSelect(graph, pick);
}

/**
 * Every possessed workpiece with its current PossessionState and its earlier ones (found by the
 * minted IRI `{workpiece}_possession_{suffix}`: Core's model links only the current state to the
 * workpiece), each with its possessor and when and by whom possession changed.
 */
export function possessionQuery(graph: string): string {
  const where = sparql`?wp ${T.hasPossessedWorkpiece} ?cur .
    ?ps ${T.type} ${T.PossessionState} .
    FILTER(?ps = ?cur || STRSTARTS(STR(?ps), CONCAT(STR(?wp), ${literal(POSSESSION_STATE_INFIX)})))
    OPTIONAL { ?who ${T.hasPossessor} ?ps . }
    ${optionals('ps', [
      [sm.possessionChangedAt, 'at'],
      [sm.possessionChangedBy, 'by'],
    ])}`;
  return sparql`SELECT ?wp ?cur ?ps ?who ?at ?by WHERE { ${graphFragment(graph, where)} } ORDER BY ?wp DESC(?at) LIMIT ${MAX_CONSOLE_ROWS}`
    .text;
}
