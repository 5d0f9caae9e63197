import { assertIri } from '../../iri/validate.js';
import type { OGM } from '../../ogm/ogm.js';
import { graphOf, type GraphOption } from '../../registration/classes.js';
import { operationRouteQuery } from '../../queries/operations.js';

/** What one read tells about an Operation, seen from one Service. */
export interface OperationRoute {
  /** Every `svc:operationStatus` value (normally one); empty when the Operation does not exist. */
  statuses: string[];
  /** Workflows of the Service that realize the Operation's Capability (sorted). */
  workflowIris: string[];
  /** `sm:deadline`, when the Operation has one. */
  deadline?: Date;
}

/**
 * The Operation's status and the Workflows of `serviceIri` that realize its Capability
 * (`<op> cfc:implementsCapability ?cap . ?cap svc:realizedByWorkflow ?wf . ?wf svc:isWorkflowOf
 * <service>`), in ONE query starting from the Operation, the most selective term. Used by the
 * event trigger and by claims of Operations found at queue reconstruction. The Operation's
 * classes come with it and go into the OGM's type cache.
 * @throws ValueError for a malformed IRI.
 */
export async function readOperationRoute(
  ogm: OGM,
  operationIri: string,
  serviceIri: string,
  options: GraphOption = {},
): Promise<OperationRoute> {
  const op = assertIri(operationIri, 'operationIri');
  const service = assertIri(serviceIri, 'serviceIri');
  const graph = graphOf(ogm, options);
  const rows = await ogm.db.select(operationRouteQuery(graph, op, service));
  const values = (name: string) => [...new Set(rows.flatMap((r) => (r[name] ? [r[name].value] : [])))];
  // The claim's status write validates against the Operation's classes: read here, they cost no
  // request of their own.
  ogm.rememberTypes(operationIri, values('type'), graph);
  const [deadline] = values('deadline');
  return { statuses: values('st'), workflowIris: values('wf').sort(), ...(deadline !== undefined && { deadline: new Date(deadline) }) };
}
