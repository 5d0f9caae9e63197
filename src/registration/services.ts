import { ValueError } from '../errors.js';
import { normalizeHttpAddress } from '../iri/address.js';
import { assertIri, preview } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import { namedNode } from '../store/terms.js';
import { cfc, sm, svc } from '../vocab/terms.js';
import { assertClassRegistered, checkOptions, graphOf, type GraphOption } from './classes.js';
import { matchedOnce, serviceAndPartsMatch, servicesOfResourceQuery } from '../queries/services.js';

/**
 * Registration of a resource's Service, Workflows and StateProperties, deregistration,
 * heartbeats and the Services of a resource (`semantic_middleware.registration`).
 *
 * Only the instance-owned direction of each inverse is written (`svc:isServiceOf`,
 * `svc:isWorkflowOf`, `svc:isStatePropertyOf`, `svc:realizedByWorkflow`,
 * `svc:providedByStateProperty`); every write is one OGM create or commit (or the spec's
 * low-level append of `cfc:hasCapability`), and every input is checked before the first write,
 * so a bad IRI, address or class writes nothing.
 */

export interface RegisterServiceOptions extends GraphOption {
  resourceIri: string;
  serviceIri: string;
  /** `svc:Service` or a subclass of it, declared in the ontology. */
  serviceClass: string;
  /** Absolute http(s) base address; stored normalized (see `normalizeAddress`). */
  address: string;
  /**
   * Write `svc:address` now (default `true`). With `false` the Service is registered
   * unreachable, so a start-up that fails while registering Workflows leaves nothing
   * reachable; {@link makeServiceReachable} then sets the address.
   */
  reachable?: boolean;
}

/**
 * Registers a Service of a resource in one `OGM.create`: its class, `svc:isServiceOf` and (unless
 * `reachable: false`) its normalized `svc:address`. No heartbeat is written: until the first
 * {@link updateHeartbeat} the Service counts as stale, which is why the middleware registers
 * unreachable and calls {@link makeServiceReachable} (address and heartbeat in one commit).
 * @throws ValueError for a malformed IRI or a non-http(s) address.
 * @throws OntologyGroundTruthError when `serviceClass` is not `svc:Service` or a subclass.
 * @example await registerService(ogm, { resourceIri, serviceIri, serviceClass: svc.Service, address: 'http://127.0.0.1:8000' })
 */
export async function registerService(ogm: OGM, options: RegisterServiceOptions): Promise<void> {
  checkOptions(options, 'registerService');
  const graph = graphOf(ogm, options);
  const resourceIri = assertIri(options.resourceIri, 'resourceIri');
  const serviceIri = assertIri(options.serviceIri, 'serviceIri');
  const address = normalizeHttpAddress(options.address);
  await assertClassRegistered(ogm, options.serviceClass, svc.Service, options);
  await ogm.create({
    iri: serviceIri,
    type: options.serviceClass,
    properties: { [svc.isServiceOf]: resourceIri, ...(options.reachable === false ? {} : { [svc.address]: address }) },
    graph,
  });
}

export interface MakeReachableOptions extends GraphOption {
  /**
   * Heartbeat written in the same commit (default: now), so the Service is never reachable
   * with a missing or old heartbeat that a sweep would take for stale; `null` leaves
   * `svc:lastHeartbeat` as it is.
   */
  heartbeat?: Date | null;
  /**
   * The Service's heartbeat period in milliseconds, written as `sm:heartbeatInterval` in the same
   * commit (replacing any earlier value), so the watchdog and discovery judge it by its own
   * period; `null` removes it (no heartbeat: judged by their threshold). Default: left as it is.
   */
  heartbeatIntervalMs?: number | null;
}

/**
 * Makes a registered Service reachable: one `OGM.commit` that sets its normalized `svc:address`
 * and, by default, replaces `svc:lastHeartbeat` with the current time.
 * @throws ValueError for a malformed IRI, a non-http(s) address or an invalid Date.
 * @example await makeServiceReachable(ogm, serviceIri, 'http://127.0.0.1:8000')
 */
export async function makeServiceReachable(
  ogm: OGM,
  serviceIri: string,
  address: string,
  options: MakeReachableOptions = {},
): Promise<void> {
  const graph = graphOf(ogm, options);
  assertIri(serviceIri, 'serviceIri');
  const set: Record<string, string | number | Date | never[]> = { [svc.address]: normalizeHttpAddress(address) };
  if (options.heartbeat !== null) set[svc.lastHeartbeat] = checkDate(options.heartbeat ?? new Date(), 'heartbeat');
  const interval = options.heartbeatIntervalMs;
  if (interval === null) set[sm.heartbeatInterval] = [];
  else if (interval !== undefined) set[sm.heartbeatInterval] = checkIntervalMs(interval);
  await ogm.commit({ iri: serviceIri, set, graph });
}

interface PartOptions extends GraphOption {
  resourceIri: string;
  serviceIri: string;
  capabilityIri: string;
  /** `cfc:Capability` or a subclass of it. */
  capabilityClass: string;
  /** Absolute http(s) URL of the part's route (build it with `buildWorkflowEndpoint` / `buildStateEndpoint`). */
  endpoint: string;
}

export interface RegisterWorkflowOptions extends PartOptions {
  workflowIri: string;
  /** `svc:Workflow` or a subclass of it. */
  workflowClass: string;
}

export interface RegisterStatePropertyOptions extends PartOptions {
  statePropertyIri: string;
  /** `svc:StateProperty` or a subclass of it. */
  statePropertyClass: string;
}

/**
 * Registers a Workflow of a Service and the Capability it realizes, in three single writes:
 * `OGM.create` of the Workflow (`svc:isWorkflowOf`, `svc:endpoint`), `OGM.create` of the
 * Capability (`svc:realizedByWorkflow`; a Capability is shared by the resource's Services, so on
 * an existing one this only adds a value) and the low-level append of `cfc:hasCapability`.
 * @throws ValueError for a malformed IRI or endpoint.
 * @throws OntologyGroundTruthError when a class is not the required kind.
 */
export async function registerWorkflow(ogm: OGM, options: RegisterWorkflowOptions): Promise<void> {
  checkOptions(options, 'registerWorkflow');
  await registerPart(ogm, options, {
    iri: assertIri(options.workflowIri, 'workflowIri'),
    cls: options.workflowClass,
    base: svc.Workflow,
    linkToService: svc.isWorkflowOf,
    linkFromCapability: svc.realizedByWorkflow,
  });
}

/**
 * Registers a StateProperty of a Service and the Capability it provides, like
 * {@link registerWorkflow} with `svc:isStatePropertyOf` and `svc:providedByStateProperty`. Only
 * the stable endpoint is written, never a live value.
 * @throws ValueError for a malformed IRI or endpoint.
 * @throws OntologyGroundTruthError when a class is not the required kind.
 */
export async function registerStateProperty(ogm: OGM, options: RegisterStatePropertyOptions): Promise<void> {
  checkOptions(options, 'registerStateProperty');
  await registerPart(ogm, options, {
    iri: assertIri(options.statePropertyIri, 'statePropertyIri'),
    cls: options.statePropertyClass,
    base: svc.StateProperty,
    linkToService: svc.isStatePropertyOf,
    linkFromCapability: svc.providedByStateProperty,
  });
}

interface PartKind {
  iri: string;
  cls: string;
  base: string;
  linkToService: string;
  linkFromCapability: string;
}

async function registerPart(ogm: OGM, options: PartOptions, part: PartKind): Promise<void> {
  const graph = graphOf(ogm, options);
  const resourceIri = assertIri(options.resourceIri, 'resourceIri');
  const serviceIri = assertIri(options.serviceIri, 'serviceIri');
  const capabilityIri = assertIri(options.capabilityIri, 'capabilityIri');
  const endpoint = normalizeHttpAddress(options.endpoint, 'endpoint');
  await assertClassRegistered(ogm, part.cls, part.base, options);
  await assertClassRegistered(ogm, options.capabilityClass, cfc.Capability, options);
  await ogm.create({ iri: part.iri, type: part.cls, properties: { [part.linkToService]: serviceIri, [svc.endpoint]: endpoint }, graph });
  await ogm.create({ iri: capabilityIri, type: options.capabilityClass, properties: { [part.linkFromCapability]: part.iri }, graph });
  await ogm.db.append({ subject: resourceIri, predicate: cfc.hasCapability, object: capabilityIri }, graph);
}

/**
 * Deregisters a Service in one request (`OGM.commitMatching`): removes its `svc:address` and the
 * `svc:endpoint` of every Workflow and StateProperty of it. Types, structural links,
 * Capabilities and `svc:lastHeartbeat` are kept. Deregistering an unknown or already
 * deregistered Service changes nothing.
 * @throws ValueError for a malformed IRI.
 */
export async function deregisterService(ogm: OGM, serviceIri: string, options: GraphOption = {}): Promise<void> {
  const graph = graphOf(ogm, options);
  const service = namedNode(assertIri(serviceIri, 'serviceIri'));
  await ogm.commitMatching({
    match: matchedOnce(serviceAndPartsMatch(service)),
    subjectClass: svc.Service,
    set: { [svc.address]: [], [svc.endpoint]: [] },
    graph,
  });
}

export interface HeartbeatOptions extends GraphOption {
  /** Time of the heartbeat (default: now). */
  timestamp?: Date | null;
}

/**
 * Replaces the Service's `svc:lastHeartbeat` (an `xsd:dateTime`) in one `OGM.commit`. Nothing is
 * guarded, but a heartbeat never writes `svc:address`: it does not resurrect a deregistered
 * (swept) Service, which stays unreachable, and so not stale, until it is made reachable again.
 * @throws ValueError for a malformed IRI or an invalid Date.
 * @example await updateHeartbeat(ogm, serviceIri)
 */
export async function updateHeartbeat(ogm: OGM, serviceIri: string, options: HeartbeatOptions = {}): Promise<void> {
  const graph = graphOf(ogm, options);
  assertIri(serviceIri, 'serviceIri');
  const timestamp = checkDate(options.timestamp ?? new Date(), 'timestamp');
  await ogm.commit({ iri: serviceIri, set: { [svc.lastHeartbeat]: timestamp }, graph });
}

export interface ServicesOfResourceOptions extends GraphOption {
  /** Keep only Services that carry `svc:address` (default `false`). */
  reachableOnly?: boolean;
}

/**
 * Every Service bound to the resource by `svc:isServiceOf` (sorted), or with `reachableOnly`
 * only those carrying `svc:address`. One query, starting from `?s svc:isServiceOf <resource>`.
 * @throws ValueError for a malformed IRI.
 */
export async function servicesOfResource(ogm: OGM, resourceIri: string, options: ServicesOfResourceOptions = {}): Promise<string[]> {
  const graph = graphOf(ogm, options);
  const resource = namedNode(assertIri(resourceIri, 'resourceIri'));
  const rows = await ogm.db.select(servicesOfResourceQuery(graph, resource, Boolean(options.reachableOnly)));
  return rows.map((r) => r.s?.value).filter((s): s is string => s !== undefined);
}

function checkIntervalMs(ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 1) {
    throw new ValueError(`heartbeatIntervalMs ${preview(ms)} is not a whole number of milliseconds >= 1`);
  }
  return ms;
}

/** Returns `d` when it is a valid Date, else throws a ValueError naming `what`. @internal */
export function checkDate(d: unknown, what: string): Date {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new ValueError(`${what} ${preview(d)} is not a valid Date`);
  return d;
}
