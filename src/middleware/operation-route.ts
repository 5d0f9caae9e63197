import { assertIri } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import { graphOf, type GraphOption } from '../registration/classes.js';
import { graphFragment, sparql } from '../store/sparql.js';
import { namedNode } from '../store/terms.js';
import { cfc, svc } from '../vocab/terms.js';

/** What one read tells about an Operation, seen from one Service. */
export interface OperationRoute {
  /** Every `svc:operationStatus` value (normally one); empty when the Operation does not exist. */
  statuses: string[];
  /** Workflows of the Service that realize the Operation's Capability (sorted). */
  workflowIris: string[];
}

/**
 * The Operation's status and the Workflows of `serviceIri` that realize its Capability
 * (`<op> cfc:implementsCapability ?cap . ?cap svc:realizedByWorkflow ?wf . ?wf svc:isWorkflowOf
 * <service>`), in ONE query starting from the Operation, the most selective term. Used by the
 * event trigger and by claims of Operations found at queue reconstruction.
 * @throws ValueError for a malformed IRI.
 */
export async function readOperationRoute(ogm: OGM, operationIri: string, serviceIri: string, options: GraphOption = {}): Promise<OperationRoute> {
  const op = namedNode(assertIri(operationIri, 'operationIri'));
  const service = namedNode(assertIri(serviceIri, 'serviceIri'));
  const where = sparql`${op} ${namedNode(svc.operationStatus)} ?st .
    OPTIONAL { ${op} ${namedNode(cfc.implementsCapability)} ?cap . ?cap ${namedNode(svc.realizedByWorkflow)} ?wf . ?wf ${namedNode(svc.isWorkflowOf)} ${service} . }`;
  const rows = await ogm.db.select(sparql`SELECT ?st ?wf WHERE { ${graphFragment(graphOf(ogm, options), where)} }`.text);
  const statuses = [...new Set(rows.flatMap((r) => (r.st ? [r.st.value] : [])))];
  const workflowIris = [...new Set(rows.flatMap((r) => (r.wf ? [r.wf.value] : [])))].sort();
  return { statuses, workflowIris };
}
