import { afterAll, beforeAll, beforeEach, it } from '@jest/globals';
import { buildWorkflowEndpoint, mintCapabilityIri, mintServiceIri, mintWorkflowIri } from '../../../src/iri/index.js';
import { OGM } from '../../../src/ogm/index.js';
import type { TripleStore } from '../../../src/store/triple-store.js';
import { cfc, ONTOLOGY_GRAPHS, plant, svc } from '../../../src/vocab/index.js';
import { openTestStore, type StoreKind } from '../../support/fixtures.js';

/**
 * Registered Services, Workflows and Capabilities for the registration tests, written with
 * `ogm.create` / `ogm.db.append` directly (as registration writes them), so these tests do not
 * depend on `services.ts`.
 */

/** One Workflow of a Service and the Capability it realizes. */
export interface WorkflowSpec {
  name: string;
  workflowClass: string;
  capabilityClass: string;
}

export interface ServiceSpec {
  resourceIri: string;
  address: string;
  serviceClass?: string;
  /** `svc:lastHeartbeat`; none when null. Default: now. */
  heartbeat?: Date | null;
  workflows?: readonly WorkflowSpec[];
  graph?: string;
}

export interface RegisteredService {
  serviceIri: string;
  address: string;
  workflows: { workflowIri: string; capabilityIri: string; endpoint: string }[];
  graph?: string;
}

export const OPEN_DOOR: WorkflowSpec = { name: 'open', workflowClass: plant.OpenDoorWorkflow, capabilityClass: plant.DoorOpeningCapability };
export const CLOSE_DOOR: WorkflowSpec = { name: 'close', workflowClass: plant.CloseDoorWorkflow, capabilityClass: plant.DoorClosingCapability };

/** Registers a reachable Service with its Workflows and Capabilities; returns their IRIs. */
export async function addService(ogm: OGM, spec: ServiceSpec): Promise<RegisteredService> {
  const serviceIri = mintServiceIri(spec.resourceIri, spec.address);
  const graph = spec.graph;
  const heartbeat = spec.heartbeat === undefined ? new Date() : spec.heartbeat;
  await ogm.create({
    iri: serviceIri,
    type: spec.serviceClass ?? plant.ControllerService,
    properties: { [svc.isServiceOf]: spec.resourceIri, [svc.address]: spec.address, ...(heartbeat ? { [svc.lastHeartbeat]: heartbeat } : {}) },
    graph,
  });
  const workflows: RegisteredService['workflows'] = [];
  for (const w of spec.workflows ?? [OPEN_DOOR]) {
    const workflowIri = mintWorkflowIri(serviceIri, w.name);
    const capabilityIri = mintCapabilityIri(spec.resourceIri, w.name);
    const endpoint = buildWorkflowEndpoint(spec.address, w.name);
    await ogm.create({ iri: workflowIri, type: w.workflowClass, properties: { [svc.isWorkflowOf]: serviceIri, [svc.endpoint]: endpoint }, graph });
    await ogm.create({ iri: capabilityIri, type: w.capabilityClass, properties: { [svc.realizedByWorkflow]: workflowIri }, graph });
    await ogm.db.append({ subject: spec.resourceIri, predicate: cfc.hasCapability, object: capabilityIri }, graph);
    workflows.push({ workflowIri, capabilityIri, endpoint });
  }
  return { serviceIri, address: spec.address, workflows, ...(graph ? { graph } : {}) };
}

/** Deregisters as the spec says: removes `svc:address` and the Workflows' `svc:endpoint`. */
export async function deregister(ogm: OGM, service: RegisteredService): Promise<void> {
  await ogm.commit({ iri: service.serviceIri, set: { [svc.address]: [] }, graph: service.graph });
  for (const w of service.workflows) await ogm.commit({ iri: w.workflowIri, set: { [svc.endpoint]: [] }, graph: service.graph });
}

/** The shared state of a suite run on one store kind. */
export interface StoreSuite {
  readonly kind: StoreKind;
  store: TripleStore | undefined;
  ogm: OGM;
  /** Registers a test that runs only when this store is configured (warns when skipped). */
  onStore(name: string, fn: () => Promise<void>, timeout?: number): void;
  /** N-Quads of the suite's data graph. */
  dump(graph?: string): Promise<string>;
  /** Requests the store has served so far. */
  requests(): number;
}

/**
 * Opens the store (embedded, or the remote one when SPARQL_ENDPOINT is set), creates an OGM on
 * `graph` and empties the graphs before each test and at the end. `ontology` is a test-only
 * ontology module loaded for the suite (and removed at the end).
 */
export function storeSuite(kind: StoreKind, graph: string, options: { extraGraphs?: readonly string[]; ontology?: { graph: string; turtle: string } } = {}): StoreSuite {
  const extraGraphs = options.extraGraphs ?? [];
  const suite: StoreSuite = {
    kind,
    store: undefined,
    ogm: undefined as unknown as OGM,
    onStore(name, fn, timeout) {
      it(
        name,
        async () => {
          if (!suite.store) {
            console.warn(`SKIPPED (${kind} store not configured: set SPARQL_ENDPOINT): ${name}`);
            return;
          }
          await fn();
        },
        timeout,
      );
    },
    dump: (g = graph) => suite.store!.dump({ graph: g }),
    requests: () => suite.store!.requestCount,
  };
  const drop = async (): Promise<void> => {
    for (const g of [graph, ...extraGraphs]) await suite.store?.update(`DROP SILENT GRAPH <${g}>`);
  };
  beforeAll(async () => {
    suite.store = await openTestStore(kind);
    if (suite.store && options.ontology) await suite.store.load(options.ontology.turtle, { graph: options.ontology.graph, format: 'text/turtle' });
    if (suite.store) suite.ogm = new OGM({ store: suite.store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  });
  afterAll(async () => {
    await drop();
    if (options.ontology) await suite.store?.update(`DROP SILENT GRAPH <${options.ontology.graph}>`);
    await suite.store?.close();
  });
  beforeEach(async () => {
    await drop();
    // A fresh OGM per test: the type cache must not outlive the triples it describes.
    if (suite.store) suite.ogm = new OGM({ store: suite.store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  });
  return suite;
}

/** Resolves to the error a promise rejects with (undefined when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}
