import { concat, graphFragment, sparql, variable, type SparqlFragment } from '../store/sparql.js';
import { literal, namedNode, type LiteralTerm, type NamedNodeTerm } from '../store/terms.js';
import type { OperationStatus } from '../vocab/status.js';
import { cfc, sm, svc, w3 } from '../vocab/terms.js';
import { operationOfService } from './services.js';

/**
 * SPARQL text about Operations: finding them by resource or Service and status, reading one
 * Operation's status, outcome and route. Each is one query, most selective term first.
 */

/**
 * The literal of an `svc:operationStatus` value: a plain string, as the Python reference writes
 * it, so both implementations read each other's Operations. The one place its form is fixed.
 */
export function statusLiteral(status: OperationStatus): LiteralTerm {
  return literal(status);
}

function operationsWhere(graph: string, body: SparqlFragment): string {
  return sparql`SELECT DISTINCT ?op WHERE { ${graphFragment(graph, body)} }`.text;
}

/**
 * `SELECT DISTINCT ?op`: the resource's Operations whose status is one of `statuses`, through
 * `<resource> cfc:hasCapability ?cap . ?op cfc:implementsCapability ?cap` (never IRI names).
 */
export function resourceOperationsQuery(graph: string, resource: NamedNodeTerm, statuses: readonly OperationStatus[]): string {
  const body = sparql`${resource} ${namedNode(cfc.hasCapability)} ?cap .
    ?op ${namedNode(cfc.implementsCapability)} ?cap .
    ?op ${namedNode(svc.operationStatus)} ?st . FILTER(?st IN ${statuses.map(statusLiteral)})`;
  return operationsWhere(graph, body);
}

/** `SELECT DISTINCT ?op`: the Operations whose Capability a Workflow of `service` realizes, with one of `statuses`. */
export function serviceOperationsQuery(graph: string, service: NamedNodeTerm, statuses: readonly OperationStatus[]): string {
  const op = variable('op');
  const body = sparql`${operationOfService(service, op, variable('cap'))}
    ${op} ${namedNode(svc.operationStatus)} ?st . FILTER(?st IN ${statuses.map(statusLiteral)})`;
  return operationsWhere(graph, body);
}

/**
 * `SELECT ?st ?cr ?cb`: every `svc:operationStatus` of the Operation (normally one), with its
 * `sm:cancelRequested` and `sm:cancelledBy` when set (what a lost transition reports).
 */
export function operationStatusesQuery(graph: string, operationIri: string): string {
  const operation = namedNode(operationIri);
  const where = sparql`${operation} ${namedNode(svc.operationStatus)} ?st .
    OPTIONAL { ${operation} ${namedNode(sm.cancelRequested)} ?cr . }
    OPTIONAL { ${operation} ${namedNode(sm.cancelledBy)} ?cb . }`;
  return sparql`SELECT ?st ?cr ?cb WHERE { ${graphFragment(graph, where)} }`.text;
}

/**
 * `SELECT ?st ?res ?fs ?wf ?ts ?kind ?deadline ?cr ?cb`: the Operation's status and outcome
 * (`svc:executionResult`, `svc:failureState`, `svc:executedByWorkflow`, `svc:executionTimestamp`,
 * `sm:failureKind`), its `sm:deadline` and its cancellation (`sm:cancelRequested`,
 * `sm:cancelledBy`), whatever its status.
 */
export function operationOutcomeQuery(graph: string, operationIri: string): string {
  const operation = namedNode(operationIri);
  const optional = (property: string, name: string) => sparql`OPTIONAL { ${operation} ${namedNode(property)} ${variable(name)} . }`;
  const where = sparql`${operation} ${namedNode(svc.operationStatus)} ?st .
    ${optional(svc.executionResult, 'res')} ${optional(svc.failureState, 'fs')}
    ${optional(svc.executedByWorkflow, 'wf')} ${optional(svc.executionTimestamp, 'ts')}
    ${optional(sm.failureKind, 'kind')} ${optional(sm.deadline, 'deadline')}
    ${optional(sm.cancelRequested, 'cr')} ${optional(sm.cancelledBy, 'cb')}
    ${optional(sm.requestedBy, 'rb')} ${optional(sm.createdAt, 'ca')}
    ${optional(sm.claimedAt, 'cl')} ${optional(sm.finishedAt, 'fa')}`;
  return sparql`SELECT ?st ?res ?fs ?wf ?ts ?kind ?deadline ?cr ?cb ?rb ?ca ?cl ?fa WHERE { ${graphFragment(graph, where)} } LIMIT 1`.text;
}

/** `SELECT ?ca`: the Operation's `sm:createdAt`, which a revert must delete exactly as written. */
export function operationCreatedAtQuery(graph: string, operationIri: string): string {
  const where = sparql`${namedNode(operationIri)} ${namedNode(sm.createdAt)} ?ca .`;
  return sparql`SELECT ?ca WHERE { ${graphFragment(graph, where)} } LIMIT 1`.text;
}

/**
 * `SELECT ?op ?cb`: which of `operations` carry `sm:cancelRequested`, with who asked
 * (`sm:cancelledBy`): what a receiver's cancel watch reads for its running Operations.
 */
export function cancelRequestsQuery(graph: string, operations: readonly NamedNodeTerm[]): string {
  const op = variable('op');
  const where = sparql`VALUES ${op} { ${concat(operations.map((t) => sparql`${t}`))} }
    ${op} ${namedNode(sm.cancelRequested)} ?cr .
    OPTIONAL { ${op} ${namedNode(sm.cancelledBy)} ?cb . }`;
  return sparql`SELECT ?op ?cb WHERE { ${graphFragment(graph, where)} }`.text;
}

/**
 * `SELECT ?st ?wf ?type ?deadline`: the Operation's status, the Workflows of `service` that
 * realize its Capability (`<op> cfc:implementsCapability ?cap . ?cap svc:realizedByWorkflow ?wf .
 * ?wf svc:isWorkflowOf <service>`), its classes and its `sm:deadline`, starting from the
 * Operation, the most selective term.
 */
export function operationRouteQuery(graph: string, operationIri: string, serviceIri: string): string {
  const [operation, service] = [namedNode(operationIri), namedNode(serviceIri)];
  const where = sparql`${operation} ${namedNode(svc.operationStatus)} ?st .
    OPTIONAL { ${operation} ${namedNode(cfc.implementsCapability)} ?cap . ?cap ${namedNode(svc.realizedByWorkflow)} ?wf . ?wf ${namedNode(svc.isWorkflowOf)} ${service} . }
    OPTIONAL { ${operation} ${namedNode(w3.type)} ?type . }
    OPTIONAL { ${operation} ${namedNode(sm.deadline)} ?deadline . }`;
  return sparql`SELECT ?st ?wf ?type ?deadline WHERE { ${graphFragment(graph, where)} }`.text;
}
