import { graphFragment, sparql, type SparqlFragment, type Variable, variable } from '../store/sparql.js';
import { namedNode, type NamedNodeTerm } from '../store/terms.js';
import { cfc, svc, w3 } from '../vocab/terms.js';

/**
 * SPARQL text about Services: the pieces shared by deregistration and the liveness sweep, the
 * resource's Services, and the readiness check. Every piece is built with the `sparql` template
 * from vocabulary terms and checked IRIs only.
 */

/** `?s`: the individual a bulk commit changes. */
export const S = variable('s');
/** `?svc`: the Service a deregistration is about. */
export const SVC = variable('svc');

const isWorkflowOf = namedNode(svc.isWorkflowOf);
const isStatePropertyOf = namedNode(svc.isStatePropertyOf);

/**
 * `{ SELECT DISTINCT ?s WHERE { match } }`: a bulk commit's match as a subquery, so the engine
 * evaluates it once before joining the commit's old-value patterns. Measured on Oxigraph with
 * 10,000 Services: deregistering 50 Services with the match inline took 4-5 s (the engine
 * re-evaluated the match for every candidate old value) and 1,000 took 94 s; as a subquery,
 * 52 ms and ~200 ms.
 */
export function matchedOnce(match: SparqlFragment): SparqlFragment {
  return sparql`{ SELECT DISTINCT ${S} WHERE { ${match} } }`;
}

/**
 * WHERE fragment binding `?s` to the given Service and to every Workflow and StateProperty of it,
 * with `?svc` bound to the Service: the Service's `rdf:type` gives {@link selfAndParts} the start
 * Virtuoso needs. One pattern rather than a `VALUES` + UNION branch per kind: in a full parallel
 * run Virtuoso 7 once left the StateProperty branch of that UNION out (the deregistration kept the
 * StateProperty's endpoint), and it silently drops a UNION branch made of a `VALUES` block alone.
 */
export function serviceAndPartsMatch(service: NamedNodeTerm): SparqlFragment {
  return sparql`VALUES ${SVC} { ${service} } ${SVC} ${namedNode(w3.type)} ?serviceType . ${selfAndParts(S, SVC)}`;
}

/**
 * Binds `part` to the already bound `service` itself and to each of its Workflows and
 * StateProperties: `?part (svc:isWorkflowOf|svc:isStatePropertyOf)? ?service`, a zero-or-one
 * path whose zero-length match is the Service. The bulk form of {@link serviceAndPartsMatch}
 * for many Services, named once: measured on the embedded store, deregistering 1,000 stale
 * Services among 10,000 took 20-29 ms this way against 38-45 ms for the three `VALUES` + UNION
 * branches. `service` must be bound by a triple pattern placed before this one: Virtuoso 7
 * evaluates the path as a transitive subquery and, with `service` bound only by a `VALUES` block
 * of several rows, refuses the query ("transitive start not given").
 */
export function selfAndParts(part: Variable, service: Variable): SparqlFragment {
  return sparql`${part} (${isWorkflowOf}|${isStatePropertyOf})? ${service} .`;
}

/**
 * `operation` is an Operation whose Capability (`capability`) a Workflow of `service` realizes:
 * the per-Operation rule that tells a Service's own work (a resource's monitor, which realizes no
 * Workflow, has none). Starts from the Service, the most selective term.
 */
export function operationOfService(service: NamedNodeTerm, operation: Variable, capability: Variable): SparqlFragment {
  return sparql`?w ${isWorkflowOf} ${service} .
    ${capability} ${namedNode(svc.realizedByWorkflow)} ?w .
    ${operation} ${namedNode(cfc.implementsCapability)} ${capability} .`;
}

/**
 * `SELECT DISTINCT ?s` of the Services bound to `resource` by `svc:isServiceOf` (with
 * `reachableOnly`, only those carrying `svc:address`), ordered. Starts from
 * `?s svc:isServiceOf <resource>`.
 */
export function servicesOfResourceQuery(graph: string, resource: NamedNodeTerm, reachableOnly: boolean): string {
  const reachable = reachableOnly ? sparql`${S} ${namedNode(svc.address)} ?address .` : sparql``;
  const where = graphFragment(graph, sparql`${S} ${namedNode(svc.isServiceOf)} ${resource} . ${reachable}`);
  return sparql`SELECT DISTINCT ${S} WHERE { ${where} } ORDER BY ${S}`.text;
}

/** ASK: does the Service carry `svc:address` (is it registered and reachable)? The readiness check. */
export function serviceReachableAsk(graph: string, serviceIri: string): string {
  return sparql`ASK { ${graphFragment(graph, sparql`${namedNode(serviceIri)} ${namedNode(svc.address)} ?address .`)} }`.text;
}
