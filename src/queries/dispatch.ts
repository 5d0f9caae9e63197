import { concat, graphFragment, sparql, type SparqlFragment } from '../store/sparql.js';
import { dateTimeLiteral, namedNode, type NamedNodeTerm } from '../store/terms.js';
import { cfc, sm, svc, w3 } from '../vocab/terms.js';

/**
 * SPARQL text of dispatch: choosing the Service that receives an Operation of a Capability
 * class, and the Workflow an Operation is executed by. Each is one query.
 */

/** Fresh candidates unpinned discovery ranks by heartbeat. */
export const FRESH_CANDIDATES = 16;
/**
 * Rows read when no candidate is fresh by the threshold (or when discovery is pinned), for the
 * reader to judge each Service by its own interval and to count the ones it skips.
 */
export const JUDGED_CANDIDATE_ROWS = 1_000;

const T = Object.freeze({
  type: namedNode(w3.type),
  realizedByWorkflow: namedNode(svc.realizedByWorkflow),
  isWorkflowOf: namedNode(svc.isWorkflowOf),
  isServiceOf: namedNode(svc.isServiceOf),
  address: namedNode(svc.address),
  lastHeartbeat: namedNode(svc.lastHeartbeat),
  heartbeatInterval: namedNode(sm.heartbeatInterval),
  deviceUnavailableSince: namedNode(sm.deviceUnavailableSince),
  implementsCapability: namedNode(cfc.implementsCapability),
  hasCapability: namedNode(cfc.hasCapability),
});

/** What the reader judges each candidate by: every heartbeat, interval and device mark of its Service. */
const JUDGED = sparql`OPTIONAL { ?svc ${T.lastHeartbeat} ?hb }
    OPTIONAL { ?svc ${T.heartbeatInterval} ?interval }
    OPTIONAL { ?svc ${T.deviceUnavailableSince} ?down }`;

/**
 * Pinned: start from the resource's few Services (`?svc svc:isServiceOf <R>`), the most
 * selective pattern, walk back to the Capability and test its class last, then every candidate
 * (a resource has few Services) with what the reader judges it by: `SELECT ?cap ?svc ?addr ?hb
 * ?interval ?down`, freshest first. The Capability is also anchored on the resource
 * (`<R> cfc:hasCapability ?cap`, which registration always writes): without it Virtuoso's planner
 * starts from the class and took 140-220 ms at 10,000 Services instead of ~10 ms.
 */
export function pinnedDispatchQuery(graph: string, resource: NamedNodeTerm, classes: readonly NamedNodeTerm[]): string {
  const where = sparql`?svc ${T.isServiceOf} ${resource} .
    ?svc ${T.address} ?addr .
    ?wf ${T.isWorkflowOf} ?svc .
    ?cap ${T.realizedByWorkflow} ?wf .
    ${resource} ${T.hasCapability} ?cap .
    ?cap ${T.type} ?cls . FILTER(?cls IN ${classes})
    ${JUDGED}`;
  return sparql`SELECT ?cap ?svc ?addr ?hb ?interval ?down WHERE { ${graphFragment(graph, where)} }
    ORDER BY DESC(?hb) ?svc ?cap LIMIT ${JUDGED_CANDIDATE_ROWS}`.text;
}

/**
 * Unpinned: the class is the only bound input, so the walk starts there: `?cap rdf:type <C>`, or
 * a `VALUES` block for a closure of several classes (on the embedded store both are 15-20% faster
 * than `FILTER(?cls IN (...))`, which tests every type triple). Ordering every candidate by
 * heartbeat is a whole-class scan (about 100 ms at 10,000 Services of one class on the embedded
 * store), so the choice is made among a bounded sample: the first {@link FRESH_CANDIDATES}
 * candidates whose heartbeat is within the threshold's window and whose device is not marked
 * unavailable (the scan skips the others, so a block of dead Services does not hide the live
 * ones). Such a candidate is alive whatever its interval. When there is none,
 * {@link judgedCandidatesQuery} reads the rest for the reader to judge.
 *
 * Cost: each candidate skipped (stale, or deregistered and so without address) costs the
 * embedded store 7-11 us, and candidates are met in the store's order, on Oxigraph most recently
 * written first. With the dead Services spread through the plant (1,000 among 10,000) the query
 * takes 0.2-0.4 ms; a block of 1,000 dead ones registered after every live one is met first and
 * costs 7-12 ms, whatever the heartbeats' values.
 */
export function unpinnedDispatchQuery(graph: string, classes: readonly NamedNodeTerm[], cutoff: Date): string {
  const where = sparql`{ SELECT ?cap ?svc ?addr ?hb WHERE { ${unpinnedChain(classes)} ?svc ${T.lastHeartbeat} ?hb .
      FILTER(?hb >= ${dateTimeLiteral(cutoff)}) OPTIONAL { ?svc ${T.deviceUnavailableSince} ?down } FILTER(!BOUND(?down)) }
    LIMIT ${FRESH_CANDIDATES} }`;
  return sparql`SELECT ?cap ?svc ?addr WHERE { ${graphFragment(graph, where)} } ORDER BY DESC(?hb) ?svc ?cap LIMIT 1`.text;
}

/**
 * Unpinned, when no candidate is fresh by the threshold: up to {@link JUDGED_CANDIDATE_ROWS}
 * rows of candidates of any heartbeat with what the reader judges them by (`SELECT ?cap ?svc
 * ?addr ?hb ?interval ?down`): some may be alive by their own interval, the others are counted
 * as skipped. A whole-class walk, paid only when discovery would otherwise find nobody.
 */
export function judgedCandidatesQuery(graph: string, classes: readonly NamedNodeTerm[]): string {
  const where = sparql`${unpinnedChain(classes)} ${JUDGED}`;
  return sparql`SELECT ?cap ?svc ?addr ?hb ?interval ?down WHERE { ${graphFragment(graph, where)} } LIMIT ${JUDGED_CANDIDATE_ROWS}`.text;
}

function unpinnedChain(classes: readonly NamedNodeTerm[]): SparqlFragment {
  const typed =
    classes.length === 1
      ? sparql`?cap ${T.type} ${classes[0]!} .`
      : sparql`VALUES ?cls { ${concat(classes.map((c) => sparql`${c}`))} } ?cap ${T.type} ?cls .`;
  return sparql`${typed}
    ?cap ${T.realizedByWorkflow} ?wf .
    ?wf ${T.isWorkflowOf} ?svc .
    ?svc ${T.address} ?addr .`;
}

/**
 * `SELECT ?wf ?addr ?hb`: every Workflow realizing the Operation's Capability, with its
 * Service's address and heartbeat when it has them (few rows: one per Workflow of the Capability).
 */
export function operationWorkflowsQuery(graph: string, operation: NamedNodeTerm): string {
  const where = sparql`${operation} ${T.implementsCapability} ?cap .
    ?cap ${T.realizedByWorkflow} ?wf .
    OPTIONAL { ?wf ${T.isWorkflowOf} ?svc . ?svc ${T.address} ?addr . }
    OPTIONAL { ?wf ${T.isWorkflowOf} ?hsvc . ?hsvc ${T.lastHeartbeat} ?hb . }`;
  return sparql`SELECT ?wf ?addr ?hb WHERE { ${graphFragment(graph, where)} }`.text;
}
