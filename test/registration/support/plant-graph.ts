import { buildWorkflowEndpoint, mintCapabilityIri, mintServiceIri, mintWorkflowIri } from '../../../src/iri/index.js';
import { OGM } from '../../../src/ogm/index.js';
import { cfc, plant, sm, svc } from '../../../src/vocab/index.js';

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
  /** `sm:heartbeatInterval` in ms, as this project's sidecars write it; none by default (a reference-shaped Service). */
  heartbeatIntervalMs?: number;
  /** `sm:deviceUnavailableSince`: the Service's device is marked down. */
  deviceUnavailableSince?: Date;
  workflows?: readonly WorkflowSpec[];
  graph?: string;
}

export interface RegisteredService {
  serviceIri: string;
  address: string;
  workflows: { workflowIri: string; capabilityIri: string; endpoint: string }[];
  graph?: string;
}

export const OPEN_DOOR: WorkflowSpec = {
  name: 'open',
  workflowClass: plant.OpenDoorWorkflow,
  capabilityClass: plant.DoorOpeningCapability,
};
export const CLOSE_DOOR: WorkflowSpec = {
  name: 'close',
  workflowClass: plant.CloseDoorWorkflow,
  capabilityClass: plant.DoorClosingCapability,
};

/** Registers a reachable Service with its Workflows and Capabilities; returns their IRIs. */
export async function addService(ogm: OGM, spec: ServiceSpec): Promise<RegisteredService> {
  const serviceIri = mintServiceIri(spec.resourceIri, spec.address);
  const graph = spec.graph;
  const heartbeat = spec.heartbeat === undefined ? new Date() : spec.heartbeat;
  await ogm.create({
    iri: serviceIri,
    type: spec.serviceClass ?? plant.ControllerService,
    properties: {
      [svc.isServiceOf]: spec.resourceIri,
      [svc.address]: spec.address,
      ...(heartbeat ? { [svc.lastHeartbeat]: heartbeat } : {}),
      ...(spec.heartbeatIntervalMs !== undefined && { [sm.heartbeatInterval]: spec.heartbeatIntervalMs }),
      ...(spec.deviceUnavailableSince !== undefined && { [sm.deviceUnavailableSince]: spec.deviceUnavailableSince }),
    },
    graph,
  });
  const workflows: RegisteredService['workflows'] = [];
  for (const w of spec.workflows ?? [OPEN_DOOR]) {
    const workflowIri = mintWorkflowIri(serviceIri, w.name);
    const capabilityIri = mintCapabilityIri(spec.resourceIri, w.name);
    const endpoint = buildWorkflowEndpoint(spec.address, w.name);
    await ogm.create({
      iri: workflowIri,
      type: w.workflowClass,
      properties: { [svc.isWorkflowOf]: serviceIri, [svc.endpoint]: endpoint },
      graph,
    });
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

export { storeSuite, rejection, type StoreSuite } from '../../support/per-store.js';
