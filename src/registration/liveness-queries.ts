import { sparql, type SparqlFragment, type Variable, variable } from '../store/sparql.js';
import { dateTimeLiteral, literal, namedNode, type NamedNodeTerm } from '../store/terms.js';
import { OperationStatus } from '../vocab/status.js';
import { cfc, svc } from '../vocab/terms.js';
import { concat, S } from './service-queries.js';

/**
 * SPARQL pieces of the liveness rules, reusable by other queries (queue reconstruction uses the
 * same per-Operation rule as the sweep). Variables a piece introduces for itself are prefixed
 * `liveness_` so they never capture a caller's variable (inside `NOT EXISTS` a variable bound
 * outside would be substituted).
 *
 * Timestamps are compared as `xsd:dateTime` against a cutoff literal, so an untyped heartbeat
 * (a plain string) never matches a comparison: as in the Python reference, it is never stale.
 */

const address = namedNode(svc.address);
const lastHeartbeat = namedNode(svc.lastHeartbeat);

/** The instant before which a heartbeat is stale: `now - maxAgeSeconds`. */
export function staleCutoff(now: Date, maxAgeSeconds: number): Date {
  return new Date(now.getTime() - maxAgeSeconds * 1000);
}

/**
 * Binds `service` to every stale Service: one that carries `svc:address` and has no
 * `svc:lastHeartbeat` or one older than `cutoff`. Measured on the embedded store with 10,000
 * Services (query alone, medians of two runs on a busy machine): this `OPTIONAL` +
 * `!bound(..) || ..` form 19-23 ms with none stale, 22-38 ms with 1,000 and 51-85 ms with all
 * 10,000 stale; a UNION of the two cases (each starting from its own predicate) 20-30, 27-29 and
 * 107-112 ms; `FILTER NOT EXISTS { heartbeat >= cutoff }` 18-24, 28-37 and 51-80 ms, but it
 * counts an untyped heartbeat as stale. Every form scans the Services' addresses or heartbeats
 * once (the store indexes no literal ranges); DESIGN §1's 1.9 s for the `OPTIONAL` form came
 * from the WASM term garbage that the JSON result format now avoids.
 */
export function staleServicePattern(service: Variable, cutoff: Date): SparqlFragment {
  return sparql`${service} ${address} ?liveness_address .
    OPTIONAL { ${service} ${lastHeartbeat} ?liveness_heartbeat . }
    FILTER(!BOUND(?liveness_heartbeat) || ?liveness_heartbeat < ${dateTimeLiteral(cutoff)})`;
}

/**
 * Holds for an already bound `service` that is still stale at `cutoff`: it carries
 * `svc:address` and no heartbeat at or after `cutoff`. The re-check a sweep's deregistration
 * carries, so a Service that heartbeated since the find is left alone.
 */
export function stillStale(service: Variable, cutoff: Date): SparqlFragment {
  return sparql`${service} ${address} ?liveness_stillAddress .
    FILTER NOT EXISTS { ${service} ${lastHeartbeat} ?liveness_freshHeartbeat . FILTER(?liveness_freshHeartbeat >= ${dateTimeLiteral(cutoff)}) }`;
}

/** Binds or checks `service` as a surviving Service: it carries `svc:address` and a heartbeat at or after `cutoff`. */
export function survivingServicePattern(service: Variable, cutoff: Date): SparqlFragment {
  return sparql`${service} ${address} ?liveness_survivorAddress . ${service} ${lastHeartbeat} ?liveness_survivorHeartbeat .
    FILTER(?liveness_survivorHeartbeat >= ${dateTimeLiteral(cutoff)})`;
}

/**
 * The per-Operation rule, as a `MINUS`: drops every solution whose `capability` is realized by
 * a surviving Service (see {@link survivingServicePattern}) through one of its Workflows
 * (`?capability svc:realizedByWorkflow ?w . ?w svc:isWorkflowOf ?survivor`). What is left are
 * the stranded ones: a stale monitor does not drag down its live controller's work, and a
 * surviving monitor that realizes no Workflow does not shield a dead controller's queue.
 *
 * `scope` binds `capability` to the Capabilities worth checking (for example
 * `<resource> cfc:hasCapability ?cap`); it starts the `MINUS` group, which is evaluated on its
 * own, so it must not rely on outer bindings, and its other variables must not occur outside
 * (they would become join keys of the `MINUS`). A `FILTER NOT EXISTS` over the same chain is
 * the textbook form, but Oxigraph evaluates a multi-pattern `NOT EXISTS` without pushing the
 * outer bindings into it: 15-24 s for 1,000 Operations among 10,000 Services, against 25 ms
 * for this scoped `MINUS`.
 */
export function withoutSurvivingRealizer(capability: Variable, scope: SparqlFragment, cutoff: Date): SparqlFragment {
  const survivor = variable('liveness_survivor');
  return sparql`MINUS { ${scope} ${capability} ${namedNode(svc.realizedByWorkflow)} ?liveness_survivorWorkflow .
    ?liveness_survivorWorkflow ${namedNode(svc.isWorkflowOf)} ${survivor} . ${survivingServicePattern(survivor, cutoff)} }`;
}

/** `?s` is an Operation still in flight: its `svc:operationStatus` is "queued" or "running". */
export function inFlightOperation(operation: Variable = S): SparqlFragment {
  const statuses = [literal(OperationStatus.QUEUED), literal(OperationStatus.RUNNING)];
  return sparql`${operation} ${namedNode(svc.operationStatus)} ?liveness_status . FILTER(?liveness_status IN ${statuses})`;
}

/**
 * WHERE fragment binding `?s` to every stranded Operation of a swept resource: `dead` are the
 * swept Services; a resource counts as swept through one of them that no longer carries
 * `svc:address` (a Service that heartbeated in time kept it). An Operation of that resource
 * (`?resource cfc:hasCapability ?cap . ?s cfc:implementsCapability ?cap`) is stranded when it is
 * queued or running and no surviving Service realizes its Capability
 * ({@link withoutSurvivingRealizer}, scoped to the swept resources' Capabilities). Starts from
 * the given Services, the most selective part.
 */
export function strandedOperationsMatch(dead: readonly NamedNodeTerm[], cutoff: Date): SparqlFragment {
  const deadList = concat(dead.map((t) => sparql`${t}`));
  const deadService = variable('liveness_dead');
  const cap = variable('liveness_capability');
  const isServiceOf = namedNode(svc.isServiceOf);
  const hasCapability = namedNode(cfc.hasCapability);
  const scope = sparql`VALUES ?liveness_scopeDead { ${deadList} } ?liveness_scopeDead ${isServiceOf} ?liveness_scopeResource .
    ?liveness_scopeResource ${hasCapability} ${cap} .`;
  return sparql`VALUES ${deadService} { ${deadList} }
    ${deadService} ${isServiceOf} ?liveness_resource .
    FILTER NOT EXISTS { ${deadService} ${address} ?liveness_deadAddress }
    ?liveness_resource ${hasCapability} ${cap} .
    ${S} ${namedNode(cfc.implementsCapability)} ${cap} .
    ${inFlightOperation(S)}
    ${withoutSurvivingRealizer(cap, scope, cutoff)}`;
}
