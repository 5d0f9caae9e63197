import { graphFragment, sparql, variable, type SparqlFragment } from '../store/sparql.js';
import { literal, namedNode, type LiteralTerm, type NamedNodeTerm } from '../store/terms.js';
import type { OperationStatus } from '../vocab/status.js';
import { cfc, svc, w3 } from '../vocab/terms.js';
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

/** `SELECT ?st`: every `svc:operationStatus` of the Operation (normally one). */
export function operationStatusesQuery(graph: string, operationIri: string): string {
  return sparql`SELECT ?st WHERE { ${graphFragment(graph, sparql`${namedNode(operationIri)} ${namedNode(svc.operationStatus)} ?st .`)} }`
    .text;
}

/**
 * `SELECT ?st ?res ?fs ?wf ?ts`: the Operation's status and outcome (`svc:executionResult`,
 * `svc:failureState`, `svc:executedByWorkflow`, `svc:executionTimestamp`), whatever its status.
 */
export function operationOutcomeQuery(graph: string, operationIri: string): string {
  const operation = namedNode(operationIri);
  const where = sparql`${operation} ${namedNode(svc.operationStatus)} ?st .
    OPTIONAL { ${operation} ${namedNode(svc.executionResult)} ?res . }
    OPTIONAL { ${operation} ${namedNode(svc.failureState)} ?fs . }
    OPTIONAL { ${operation} ${namedNode(svc.executedByWorkflow)} ?wf . }
    OPTIONAL { ${operation} ${namedNode(svc.executionTimestamp)} ?ts . }`;
  return sparql`SELECT ?st ?res ?fs ?wf ?ts WHERE { ${graphFragment(graph, where)} } LIMIT 1`.text;
}

/**
 * `SELECT ?st ?wf ?type`: the Operation's status, the Workflows of `service` that realize its
 * Capability (`<op> cfc:implementsCapability ?cap . ?cap svc:realizedByWorkflow ?wf . ?wf
 * svc:isWorkflowOf <service>`) and its classes, starting from the Operation, the most selective term.
 */
export function operationRouteQuery(graph: string, operationIri: string, serviceIri: string): string {
  const [operation, service] = [namedNode(operationIri), namedNode(serviceIri)];
  const where = sparql`${operation} ${namedNode(svc.operationStatus)} ?st .
    OPTIONAL { ${operation} ${namedNode(cfc.implementsCapability)} ?cap . ?cap ${namedNode(svc.realizedByWorkflow)} ?wf . ?wf ${namedNode(svc.isWorkflowOf)} ${service} . }
    OPTIONAL { ${operation} ${namedNode(w3.type)} ?type . }`;
  return sparql`SELECT ?st ?wf ?type WHERE { ${graphFragment(graph, where)} }`.text;
}
