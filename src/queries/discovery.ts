import { graphFragment, sparql } from '../store/sparql.js';
import { namedNode } from '../store/terms.js';
import type { Bindings, TripleStore } from '../store/triple-store.js';
import { cfc, sm, svc, w3 } from '../vocab/terms.js';

/**
 * The reads of `discover` and `status` that the registration module has no function for (it
 * resolves one dispatch target; these list every candidate), and the description of a resource
 * a failure snapshot records. Built with the `sparql` template from vocabulary terms and checked
 * IRIs only, each written most-selective-first.
 */

const T = Object.freeze({
  type: namedNode(w3.type),
  NamedIndividual: namedNode(w3.NamedIndividual),
  realizedByWorkflow: namedNode(svc.realizedByWorkflow),
  providedByStateProperty: namedNode(svc.providedByStateProperty),
  isWorkflowOf: namedNode(svc.isWorkflowOf),
  isServiceOf: namedNode(svc.isServiceOf),
  address: namedNode(svc.address),
  lastHeartbeat: namedNode(svc.lastHeartbeat),
  heartbeatInterval: namedNode(sm.heartbeatInterval),
  deviceUnavailableSince: namedNode(sm.deviceUnavailableSince),
  hasCapability: namedNode(cfc.hasCapability),
});

/** A reachable receiver of a Capability class: the Capability instance and who realizes it. */
export interface Receiver {
  capability: string;
  capabilityClass: string;
  workflow: string;
  service: string;
  /** The resource the Service belongs to (`svc:isServiceOf`), when recorded. */
  resource?: string;
  address: string;
  /** `svc:lastHeartbeat` as stored, when there is one. */
  lastHeartbeat?: string;
  /** `sm:heartbeatInterval` as stored (milliseconds), when the Service records it. */
  heartbeatInterval?: string;
  /** `sm:deviceUnavailableSince` as stored, while its device does not answer. */
  deviceUnavailableSince?: string;
}

const value = (row: Bindings, name: string): string | undefined => row[name]?.value;

/**
 * Every reachable receiver of a Capability whose class is one of `classes` (a class and its
 * subclasses): Capability -> `svc:realizedByWorkflow` -> Workflow -> `svc:isWorkflowOf` ->
 * Service carrying `svc:address`. The class is the only bound input, so the walk starts there;
 * the freshest heartbeats come first and at most `limit` rows are read.
 */
export async function findReceivers(
  store: TripleStore,
  options: { graph: string; classes: readonly string[]; limit: number },
): Promise<Receiver[]> {
  const classes = options.classes.map((c) => namedNode(c));
  const where = sparql`?cap ${T.type} ?cls . FILTER(?cls IN ${classes})
    ?cap ${T.realizedByWorkflow} ?wf .
    ?wf ${T.isWorkflowOf} ?svc .
    ?svc ${T.address} ?addr .
    OPTIONAL { ?svc ${T.isServiceOf} ?res }
    OPTIONAL { ?svc ${T.lastHeartbeat} ?hb }
    OPTIONAL { ?svc ${T.heartbeatInterval} ?interval }
    OPTIONAL { ?svc ${T.deviceUnavailableSince} ?down }`;
  const query = sparql`SELECT ?cap ?cls ?wf ?svc ?res ?addr ?hb ?interval ?down WHERE { ${graphFragment(options.graph, where)} }
    ORDER BY DESC(?hb) ?svc ?cap LIMIT ${options.limit}`;
  const rows = await store.select(query.text);
  return rows.flatMap((row) => {
    const [capability, capabilityClass, workflow, service, address] = ['cap', 'cls', 'wf', 'svc', 'addr'].map((n) => value(row, n));
    if (!capability || !capabilityClass || !workflow || !service || !address) return [];
    const [resource, lastHeartbeat, heartbeatInterval, deviceUnavailableSince] = ['res', 'hb', 'interval', 'down'].map((n) =>
      value(row, n),
    );
    return [
      {
        capability,
        capabilityClass,
        workflow,
        service,
        address,
        ...(resource && { resource }),
        ...(lastHeartbeat && { lastHeartbeat }),
        ...(heartbeatInterval && { heartbeatInterval }),
        ...(deviceUnavailableSince && { deviceUnavailableSince }),
      },
    ];
  });
}

/** One Service of a resource as `status` shows it. */
export interface ServiceState {
  service: string;
  /** Its classes (`owl:NamedIndividual` left out). */
  classes: string[];
  /** `svc:address`, present only while the Service is reachable. */
  address?: string;
  lastHeartbeat?: string;
}

/** Every Service bound to the resource by `svc:isServiceOf`, sorted by IRI. One query, starting from the resource. */
export async function servicesOf(store: TripleStore, graph: string, resource: string): Promise<ServiceState[]> {
  const where = sparql`?svc ${T.isServiceOf} ${namedNode(resource)} .
    OPTIONAL { ?svc ${T.type} ?cls . FILTER(?cls != ${T.NamedIndividual}) }
    OPTIONAL { ?svc ${T.address} ?addr }
    OPTIONAL { ?svc ${T.lastHeartbeat} ?hb }`;
  const rows = await store.select(sparql`SELECT ?svc ?cls ?addr ?hb WHERE { ${graphFragment(graph, where)} } ORDER BY ?svc ?cls`.text);
  const byService = new Map<string, ServiceState>();
  for (const row of rows) {
    const service = value(row, 'svc');
    if (!service) continue;
    let state = byService.get(service);
    if (!state) byService.set(service, (state = { service, classes: [] }));
    const cls = value(row, 'cls');
    if (cls && !state.classes.includes(cls)) state.classes.push(cls);
    state.address ??= value(row, 'addr');
    state.lastHeartbeat ??= value(row, 'hb');
  }
  return [...byService.values()].map(({ address, lastHeartbeat, ...rest }) =>
    Object.assign(rest, address && { address }, lastHeartbeat && { lastHeartbeat }),
  );
}

/** One Capability of a resource as `status` shows it. */
export interface CapabilityState {
  capability: string;
  classes: string[];
  /** Workflows realizing it and StateProperties providing it. */
  workflows: string[];
  stateProperties: string[];
}

/** Every Capability of the resource (`cfc:hasCapability`), sorted by IRI. One query, starting from the resource. */
export async function capabilitiesOf(store: TripleStore, graph: string, resource: string): Promise<CapabilityState[]> {
  const where = sparql`${namedNode(resource)} ${T.hasCapability} ?cap .
    { ?cap ${T.type} ?cls . FILTER(?cls != ${T.NamedIndividual}) BIND("class" AS ?kind) }
    UNION { ?cap ${T.realizedByWorkflow} ?part . BIND("workflow" AS ?kind) }
    UNION { ?cap ${T.providedByStateProperty} ?part . BIND("state" AS ?kind) }`;
  const rows = await store.select(
    sparql`SELECT ?cap ?kind ?cls ?part WHERE { ${graphFragment(graph, where)} } ORDER BY ?cap ?cls ?part`.text,
  );
  const byCapability = new Map<string, CapabilityState>();
  for (const row of rows) {
    const capability = value(row, 'cap');
    if (!capability) continue;
    let state = byCapability.get(capability);
    if (!state) byCapability.set(capability, (state = { capability, classes: [], workflows: [], stateProperties: [] }));
    const kind = value(row, 'kind');
    const item = value(row, kind === 'class' ? 'cls' : 'part');
    const list = kind === 'class' ? state.classes : kind === 'workflow' ? state.workflows : state.stateProperties;
    if (item && !list.includes(item)) list.push(item);
  }
  return [...byCapability.values()];
}

/**
 * `SELECT DISTINCT ?p ?o`: the resource's types and properties from every graph (a resource's
 * description often lives in a plant ontology's graph while its registrations live in the data
 * graph), at most `limit` values.
 */
export function resourceDescriptionQuery(resourceIri: string, limit: number): string {
  return sparql`SELECT DISTINCT ?p ?o WHERE { GRAPH ?g { ${namedNode(resourceIri)} ?p ?o . } } LIMIT ${limit}`.text;
}
