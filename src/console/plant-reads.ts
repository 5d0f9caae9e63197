/**
 * Every store read of the web console: SPARQL SELECT texts over the whole plant (Services,
 * Capabilities, open and recently finished Operations, possession), run against each configured
 * store through one seam, {@link selectAcrossStores}, so every row names the store it came from.
 * Each text is built with the `sparql` template from vocabulary terms only; nothing the browser
 * sends reaches a query.
 */
import { POSSESSION_STATE_INFIX } from '../iri/mint.js';
import { statusLiteral } from '../queries/operations.js';
import { concat, graphFragment, sparql, variable, type SparqlFragment } from '../store/sparql.js';
import { literal, namedNode } from '../store/terms.js';
import type { Bindings, TripleStore } from '../store/triple-store.js';
import { OperationStatus } from '../vocab/status.js';
import { cfc, sm, svc, w3 } from '../vocab/terms.js';
import { capabilitiesFrom, operationsFrom, servicesFrom, workpiecesFrom, type PlantView } from './plant-view.js';

/** A store the console reads: its URL (what rows name) and a client of it. */
export interface PlantStore {
  readonly url: string;
  readonly client: TripleStore;
}

/** One result row and the store (its URL) it came from. */
export interface SourcedRow {
  readonly store: string;
  readonly bindings: Bindings;
}

/**
 * Runs one SELECT against every store at once and tags each row with its store's URL. The one
 * place the console's reads meet the stores: a federated engine can take its place as is.
 * @throws the first store's error when a store fails (the console then shows the failure).
 */
export async function selectAcrossStores(stores: readonly PlantStore[], query: string): Promise<SourcedRow[]> {
  const answers = await Promise.all(
    stores.map(async ({ url, client }) => (await client.select(query)).map((b) => ({ store: url, bindings: b }))),
  );
  return answers.flat();
}

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

/** Options of {@link readPlant}. */
export interface ReadPlantOptions {
  /** Named graph of the registrations, the same in every store. */
  graph: string;
  /** The watchdog's staleness threshold, in milliseconds: the floor of the liveness rule. */
  stalenessThresholdMs: number;
  /** The instant the liveness rule judges at; default now. */
  now?: Date;
}

/** Reads the whole plant from every store: five SELECTs, each sent to every store at once. */
export async function readPlant(stores: readonly PlantStore[], options: ReadPlantOptions): Promise<PlantView> {
  const now = options.now ?? new Date();
  const { graph } = options;
  const [services, capabilities, open, recent, possession] = await Promise.all(
    [plantServicesQuery, plantCapabilitiesQuery, openOperationsQuery, recentOperationsQuery, possessionQuery].map((query) =>
      selectAcrossStores(stores, query(graph)),
    ),
  );
  return {
    at: now.toISOString(),
    stores: stores.map((s) => s.url),
    services: servicesFrom(services!, now, options.stalenessThresholdMs),
    capabilities: capabilitiesFrom(capabilities!),
    openOperations: operationsFrom(open!),
    recentOperations: operationsFrom(recent!),
    workpieces: workpiecesFrom(possession!),
  };
}
