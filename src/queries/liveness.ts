import { concat, graphFragment, sparql, type SparqlFragment, type Variable, variable } from '../store/sparql.js';
import { dateTimeLiteral, namedNode, type NamedNodeTerm } from '../store/terms.js';
import { OperationStatus } from '../vocab/status.js';
import { cfc, sm, svc } from '../vocab/terms.js';
import { statusLiteral } from './operations.js';
import { matchedOnce, operationOfService, S, selfAndParts, SVC } from './services.js';

/**
 * SPARQL text of liveness: finding stale Services, the sweep's two bulk matches, and the running
 * Operations queue reconstruction checks. The pieces of the liveness rules are reusable by other
 * queries (queue reconstruction uses the same per-Operation rule as the sweep). Variables a piece
 * introduces for itself are prefixed `liveness_` so they never capture a caller's variable
 * (inside `NOT EXISTS` a variable bound outside would be substituted).
 *
 * Timestamps are compared as timestamp literals (`dateTimeLiteral`) against a cutoff. A heartbeat that cannot be
 * compared (an untyped string) counts as fresh, as in the Python reference, whose comparison
 * never matches it: such a Service is never stale, so never swept, so it survives. The pieces
 * say so with `COALESCE(?hb >= cutoff, true)`, which both stores evaluate alike (Oxigraph raises
 * a type error, Virtuoso compares the string as greater).
 *
 * The cutoff here is the threshold's, the floor of the per-Service rule (`registration/staleness.ts`):
 * a Service fresh by it is alive whatever its interval. Whether one older than it is alive by its
 * own `sm:heartbeatInterval` is decided by the reader on the rows these queries return, and
 * handed back to the updates as explicit lists (`spared`) or per-Service cutoffs.
 */

const address = namedNode(svc.address);
const lastHeartbeat = namedNode(svc.lastHeartbeat);
const heartbeatInterval = namedNode(sm.heartbeatInterval);

/** A Service and the instant before which its heartbeat is stale, by the per-Service rule. */
export interface ServiceCutoff {
  readonly service: NamedNodeTerm;
  readonly cutoff: Date;
}

/** The instant before which a heartbeat is stale: `now - maxAgeSeconds`. */
export function staleCutoff(now: Date, maxAgeSeconds: number): Date {
  return new Date(now.getTime() - maxAgeSeconds * 1000);
}

/**
 * Binds `service` to every stale Service: one that carries `svc:address` and no heartbeat at or
 * after `cutoff` (none at all, or only older ones). Written as a scan of the addresses `MINUS`
 * the fresh heartbeats, a hash anti-join on Oxigraph. Measured on the embedded store with 10,000
 * Services, 1,000 of them stale (query alone, medians, round-robin on a busy machine): this form
 * 17-24 ms; `OPTIONAL { heartbeat } FILTER(!bound(..) || .. < cutoff)` 22-34 ms; a UNION of
 * "old heartbeat" and "no heartbeat" 20-31 ms; `FILTER NOT EXISTS { fresh heartbeat }` 21-34 ms.
 * Every form scans the Services' addresses or heartbeats once: the store indexes no literal
 * ranges. Must not be placed after patterns that bind `?liveness_heartbeat`.
 */
export function staleServicePattern(service: Variable, cutoff: Date): SparqlFragment {
  return sparql`${service} ${address} ?liveness_address .
    MINUS { ${service} ${lastHeartbeat} ?liveness_heartbeat . FILTER(COALESCE(?liveness_heartbeat >= ${dateTimeLiteral(cutoff)}, true)) }`;
}

/**
 * Holds for an already bound `service` that is still stale at `cutoff`, a variable bound to its
 * own cutoff (as in {@link staleServicePattern}): it carries `svc:address` and no heartbeat at or
 * after `cutoff`.
 * The re-check a sweep's deregistration carries, so a Service that heartbeated since the find is
 * left alone. A per-row lookup, cheap for a bound `service`; its leading triple pattern also
 * gives Virtuoso the start it needs for {@link selfAndParts}.
 */
export function stillStale(service: Variable, cutoff: Variable): SparqlFragment {
  return sparql`${service} ${address} ?liveness_stillAddress .
    FILTER NOT EXISTS { ${service} ${lastHeartbeat} ?liveness_freshHeartbeat . FILTER(COALESCE(?liveness_freshHeartbeat >= ${cutoff}, true)) }`;
}

/**
 * Binds or checks `service` as a surviving Service: it carries `svc:address` and a heartbeat at
 * or after `cutoff` (or one that cannot be compared, which is never stale), or it is one of
 * `spared`: older than `cutoff` but alive by its own interval.
 */
export function survivingServicePattern(service: Variable, cutoff: Date, spared: readonly NamedNodeTerm[] = []): SparqlFragment {
  const fresh = sparql`COALESCE(?liveness_survivorHeartbeat >= ${dateTimeLiteral(cutoff)}, true)`;
  const alive = spared.length === 0 ? fresh : sparql`${fresh} || ${service} IN ${spared}`;
  return sparql`${service} ${address} ?liveness_survivorAddress . ${service} ${lastHeartbeat} ?liveness_survivorHeartbeat .
    FILTER(${alive})`;
}

/**
 * The per-Operation rule: keeps a solution only if no surviving Service (see
 * {@link survivingServicePattern}) realizes its `capability` through one of its Workflows
 * (`?capability svc:realizedByWorkflow ?w . ?w svc:isWorkflowOf ?survivor`). What is left are
 * the stranded ones: a stale monitor does not drag down its live controller's work, and a
 * surviving monitor that realizes no Workflow does not shield a dead controller's queue.
 *
 * Place it after the patterns that bind `capability`: it is an `OPTIONAL` over the survivors
 * of the bound Capability and a group `FILTER(!BOUND(..))`, so the engine looks the survivors
 * up per candidate. Measured on the embedded store (1,000 Operations among 10,000 Services,
 * whole failing update): 24 ms, against 47 ms for a `MINUS` that had to be scoped by its own
 * copy of the candidates (a `MINUS` is evaluated on its own) and 15-24 s for
 * `FILTER NOT EXISTS` over the chain (Oxigraph does not push the outer bindings into it).
 */
export function noSurvivingRealizer(capability: Variable, cutoff: Date, spared: readonly NamedNodeTerm[] = []): SparqlFragment {
  const survivor = variable('liveness_survivor');
  return sparql`OPTIONAL { ${realizerOf(capability, survivor)} ${survivingServicePattern(survivor, cutoff, spared)} }
    FILTER(!BOUND(${survivor}))`;
}

/** `survivor` is a Service that realizes `capability` through one of its Workflows. */
function realizerOf(capability: Variable, survivor: Variable): SparqlFragment {
  return sparql`${capability} ${namedNode(svc.realizedByWorkflow)} ?liveness_survivorWorkflow .
    ?liveness_survivorWorkflow ${namedNode(svc.isWorkflowOf)} ${survivor} .`;
}

/** `?s` is an Operation still in flight: its `svc:operationStatus` is "queued" or "running". */
export function inFlightOperation(operation: Variable = S): SparqlFragment {
  const statuses = [statusLiteral(OperationStatus.QUEUED), statusLiteral(OperationStatus.RUNNING)];
  return sparql`${operation} ${namedNode(svc.operationStatus)} ?liveness_status . FILTER(?liveness_status IN ${statuses})`;
}

/**
 * WHERE fragment binding `?s` to every stranded Operation of a resource being swept: `dead` are
 * the batch's stale Services, each with its own cutoff; a resource counts as dead through one of
 * them that is still stale when the update runs ({@link stillStale}: a Service that heartbeated
 * since the find is not). An Operation of that resource
 * (`?resource cfc:hasCapability ?cap . ?s cfc:implementsCapability ?cap`) is stranded when it is
 * queued or running and no surviving Service realizes its Capability
 * ({@link noSurvivingRealizer}). Starts from the given Services, the most selective part, named
 * once (one `VALUES` block of pairs): each block of 1,000 costs the embedded store a few
 * milliseconds to parse and join.
 */
export function strandedOperationsMatch(
  dead: readonly ServiceCutoff[],
  cutoff: Date,
  spared: readonly NamedNodeTerm[] = [],
): SparqlFragment {
  const deadService = variable('liveness_dead');
  const deadCutoff = variable('liveness_deadCutoff');
  const pairs = concat(dead.map((s) => sparql`(${s.service} ${dateTimeLiteral(s.cutoff)})`));
  const cap = variable('liveness_capability');
  return sparql`VALUES (${deadService} ${deadCutoff}) { ${pairs} }
    ${stillStale(deadService, deadCutoff)}
    ${deadService} ${namedNode(svc.isServiceOf)} ?liveness_resource .
    ?liveness_resource ${namedNode(cfc.hasCapability)} ${cap} .
    ${S} ${namedNode(cfc.implementsCapability)} ${cap} .
    ${inFlightOperation(S)}
    ${noSurvivingRealizer(cap, cutoff, spared)}`;
}

/**
 * `SELECT DISTINCT ?survivor`: every Service with `svc:address` that realizes, through one of its
 * Workflows, a Capability of the resource of one of `dead` (one `VALUES` block). Only these can
 * shield an Operation the batch strands, so the sweep names no other spared Service in its
 * failing update: where long heartbeat intervals spare thousands of Services across a plant, the
 * update would otherwise carry every one of them (Virtuoso refuses such a block near 10,000).
 */
export function batchRealizersQuery(graph: string, dead: readonly ServiceCutoff[]): string {
  const [deadService, capability, survivor] = [variable('dead'), variable('capability'), variable('survivor')];
  const body = sparql`VALUES ${deadService} { ${concat(dead.map((s) => sparql`${s.service}`))} }
    ${deadService} ${namedNode(svc.isServiceOf)} ?resource .
    ?resource ${namedNode(cfc.hasCapability)} ${capability} .
    ${realizerOf(capability, survivor)}
    ${survivor} ${address} ?survivorAddress .`;
  return sparql`SELECT DISTINCT ${survivor} WHERE { ${graphFragment(graph, body)} }`.text;
}

/**
 * `SELECT ?s ?hb ?interval` of every Service stale at the threshold's `cutoff` (see
 * {@link staleServicePattern}), with each of its heartbeats and `sm:heartbeatInterval` values
 * (unbound when it has none), so the reader can spare those alive by their own interval.
 */
export function staleServicesQuery(graph: string, cutoff: Date): string {
  const body = sparql`${staleServicePattern(S, cutoff)}
    OPTIONAL { ${S} ${lastHeartbeat} ?hb }
    OPTIONAL { ${S} ${heartbeatInterval} ?interval }`;
  return sparql`SELECT ${S} ?hb ?interval WHERE { ${graphFragment(graph, body)} }`.text;
}

/**
 * The sweep's deregistration match: binds `?s` to each of `services` that is still stale at its
 * own cutoff when the update runs (see {@link stillStale}; the pairs are one `VALUES` block), and
 * to its Workflows and StateProperties, evaluated once as a subquery.
 */
export function stillStaleServicesAndPartsMatch(services: readonly ServiceCutoff[]): SparqlFragment {
  const cutoff = variable('liveness_cutoff');
  const pairs = concat(services.map((s) => sparql`(${s.service} ${dateTimeLiteral(s.cutoff)})`));
  return matchedOnce(sparql`VALUES (${SVC} ${cutoff}) { ${pairs} } ${stillStale(SVC, cutoff)} ${selfAndParts(S, SVC)}`);
}

/**
 * `SELECT DISTINCT ?s ?liveness_survivorAddress ?hb ?interval`: the running Operations whose
 * Capability a Workflow of `service` realizes, each with every other reachable Service that
 * realizes it too, its heartbeats and `sm:heartbeatInterval` values (unbound when there is none),
 * for the reader to judge by the per-Service rule. Starts from the Service; a Capability has few
 * realizers.
 */
export function runningOperationsQuery(graph: string, service: NamedNodeTerm): string {
  const [capability, survivor] = [variable('cap'), variable('survivor')];
  const body = sparql`${operationOfService(service, S, capability)}
    ${S} ${namedNode(svc.operationStatus)} ${statusLiteral(OperationStatus.RUNNING)} .
    OPTIONAL { ${realizerOf(capability, survivor)} FILTER(${survivor} != ${service})
      ${survivor} ${address} ?liveness_survivorAddress . ${survivor} ${lastHeartbeat} ?hb .
      OPTIONAL { ${survivor} ${heartbeatInterval} ?interval } }`;
  return sparql`SELECT DISTINCT ${S} ${survivor} ?liveness_survivorAddress ?hb ?interval WHERE { ${graphFragment(graph, body)} }`.text;
}
