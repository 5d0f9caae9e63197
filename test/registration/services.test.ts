import { describe, expect } from '@jest/globals';
import { OntologyGroundTruthError, ValueError } from '../../src/errors.js';
import {
  buildStateEndpoint,
  buildWorkflowEndpoint,
  mintCapabilityIri,
  mintServiceIri,
  mintStatePropertyIri,
  mintWorkflowIri,
} from '../../src/iri/index.js';
import {
  deregisterService,
  makeServiceReachable,
  registerService,
  registerStateProperty,
  registerWorkflow,
  servicesOfResource,
  updateHeartbeat,
} from '../../src/registration/services.js';
import { literal, namedNode } from '../../src/store/terms.js';
import { cfc, plant, svc, xsd } from '../../src/vocab/index.js';
import { storeSuite } from '../support/per-store.js';

const G = 'urn:test:registration:services';
const R = plant.door1;
const ADDRESS = 'http://127.0.0.1:8101';
const S = mintServiceIri(R, ADDRESS);
const MONITOR_ADDRESS = 'http://127.0.0.1:8102';
const M = mintServiceIri(R, MONITOR_ADDRESS);
const CAP_OPEN = mintCapabilityIri(R, 'open');
const CAP_STATE = mintCapabilityIri(R, 'state');
const WF = mintWorkflowIri(S, 'open');
const SP = mintStatePropertyIri(M, 'state');
/** door1's `open` Workflow on the controller Service S. */
const OPEN_WORKFLOW = {
  resourceIri: R,
  serviceIri: S,
  workflowIri: WF,
  workflowClass: plant.OpenDoorWorkflow,
  capabilityIri: CAP_OPEN,
  capabilityClass: plant.DoorOpeningCapability,
  endpoint: buildWorkflowEndpoint(ADDRESS, 'open'),
  namedGraph: G,
};

describe.each(['embedded', 'remote'] as const)('service registration on the %s store', (kind) => {
  const suite = storeSuite(kind, G);
  const { onStore } = suite;

  const dump = (): Promise<string> => suite.store!.dump({ graph: G });
  const values = async (iri: string, property: string): Promise<string[]> =>
    ((await suite.ogm.fetch(iri, { graph: G }))?.properties[property] ?? []).map((t) => t.value).sort();

  // Stores normalize the lexical form of a dateTime (`.000Z` may come back as `Z`): compare instants.
  const heartbeats = async (iri: string): Promise<number[]> => {
    const terms = (await suite.ogm.fetch(iri, { graph: G }))?.properties[svc.lastHeartbeat] ?? [];
    for (const t of terms) expect(t).toMatchObject({ termType: 'Literal', datatype: xsd.dateTime });
    return terms.map((t) => new Date(t.value).getTime());
  };

  async function controller(): Promise<void> {
    await registerService(suite.ogm, {
      resourceIri: R,
      serviceIri: S,
      serviceClass: plant.ControllerService,
      address: ADDRESS,
      namedGraph: G,
    });
    await registerWorkflow(suite.ogm, OPEN_WORKFLOW);
  }

  async function monitor(): Promise<void> {
    await registerService(suite.ogm, {
      resourceIri: R,
      serviceIri: M,
      serviceClass: plant.MonitorService,
      address: MONITOR_ADDRESS,
      namedGraph: G,
    });
    await registerStateProperty(suite.ogm, {
      resourceIri: R,
      serviceIri: M,
      statePropertyIri: SP,
      statePropertyClass: plant.DoorStateProperty,
      capabilityIri: CAP_STATE,
      capabilityClass: plant.DoorStateCapability,
      endpoint: buildStateEndpoint(MONITOR_ADDRESS, 'state'),
      namedGraph: G,
    });
  }

  async function expectNothingWritten(call: () => Promise<unknown>, error: new (...args: never[]) => Error): Promise<void> {
    const before = await dump();
    await expect(call()).rejects.toBeInstanceOf(error);
    expect(await dump()).toBe(before);
  }

  onStore('should register a Service in one create with its class, resource link and normalized address', async () => {
    await suite.ogm.tbox();
    await controller(); // warms the shapes and the type cache
    await suite.store!.update(`DROP SILENT GRAPH <${G}>`);
    const before = suite.store!.requestCount;
    await registerService(suite.ogm, {
      resourceIri: R,
      serviceIri: S,
      serviceClass: plant.ControllerService,
      address: 'HTTP://LocalHost:8101/',
      namedGraph: G,
    });
    expect(suite.store!.requestCount - before).toBe(1);
    const service = await suite.ogm.fetch(S, { graph: G });
    expect(service?.types).toEqual([plant.ControllerService]);
    expect(service?.properties[svc.isServiceOf]).toEqual([namedNode(R)]);
    expect(service?.properties[svc.address]).toEqual([literal('http://localhost:8101', xsd.anyURI)]);
    expect(service?.properties[svc.lastHeartbeat]).toBeUndefined();
    expect(await dump()).not.toContain(svc.hasService);
  });

  onStore('should register unreachable first and make the Service reachable in one commit with a heartbeat', async () => {
    await registerService(suite.ogm, {
      resourceIri: R,
      serviceIri: S,
      serviceClass: svc.Service,
      address: ADDRESS,
      reachable: false,
      namedGraph: G,
    });
    expect(await values(S, svc.address)).toEqual([]);
    expect(await values(S, svc.isServiceOf)).toEqual([R]);
    const before = suite.store!.requestCount;
    const t = new Date('2030-05-06T07:08:09.000Z');
    await makeServiceReachable(suite.ogm, S, `${ADDRESS}/`, { heartbeat: t, namedGraph: G });
    expect(suite.store!.requestCount - before).toBe(1);
    expect(await values(S, svc.address)).toEqual([ADDRESS]);
    expect(await heartbeats(S)).toEqual([t.getTime()]);
    await deregisterService(suite.ogm, S, { namedGraph: G });
    await makeServiceReachable(suite.ogm, S, ADDRESS, { heartbeat: null, namedGraph: G });
    expect(await values(S, svc.address)).toEqual([ADDRESS]);
    expect(await heartbeats(S)).toEqual([t.getTime()]);
  });

  onStore('should refuse a service class that is not svc:Service or a subclass, writing nothing', async () => {
    for (const serviceClass of [plant.Door, cfc.Capability, 'https://example.org/plant#NoSuchService']) {
      await expectNothingWritten(
        () => registerService(suite.ogm, { resourceIri: R, serviceIri: S, serviceClass, address: ADDRESS, namedGraph: G }),
        OntologyGroundTruthError,
      );
    }
  });

  onStore('should register a Workflow and its Capability, writing only the instance-owned direction', async () => {
    await controller();
    const workflow = await suite.ogm.fetch(WF, { graph: G });
    expect(workflow?.types).toEqual([plant.OpenDoorWorkflow]);
    expect(workflow?.properties[svc.isWorkflowOf]).toEqual([namedNode(S)]);
    expect(workflow?.properties[svc.endpoint]).toEqual([literal(`${ADDRESS}/workflows/open/execute`, xsd.anyURI)]);
    const capability = await suite.ogm.fetch(CAP_OPEN, { graph: G });
    expect(capability?.types).toEqual([plant.DoorOpeningCapability]);
    expect(capability?.properties[svc.realizedByWorkflow]).toEqual([namedNode(WF)]);
    expect(await values(R, cfc.hasCapability)).toEqual([CAP_OPEN]);
    const text = await dump();
    for (const inverse of [svc.hasWorkflow, svc.realizesCapability, svc.hasService, svc.hasStateProperty, svc.providesCapability])
      expect(text).not.toContain(inverse);
  });

  onStore('should share a Capability between the Services of a resource by adding a value', async () => {
    await controller();
    const other = mintServiceIri(R, 'http://127.0.0.1:8103');
    const otherWf = mintWorkflowIri(other, 'open');
    await registerService(suite.ogm, {
      resourceIri: R,
      serviceIri: other,
      serviceClass: plant.ControllerService,
      address: 'http://127.0.0.1:8103',
      namedGraph: G,
    });
    await registerWorkflow(suite.ogm, {
      ...OPEN_WORKFLOW,
      serviceIri: other,
      workflowIri: otherWf,
      endpoint: buildWorkflowEndpoint('http://127.0.0.1:8103', 'open'),
    });
    expect(await values(CAP_OPEN, svc.realizedByWorkflow)).toEqual([WF, otherWf].sort());
    expect(await values(R, cfc.hasCapability)).toEqual([CAP_OPEN]);
  });

  onStore('should register a StateProperty with its stable endpoint only', async () => {
    await monitor();
    const state = await suite.ogm.fetch(SP, { graph: G });
    expect(state?.types).toEqual([plant.DoorStateProperty]);
    expect(Object.keys(state?.properties ?? {}).sort()).toEqual([svc.endpoint, svc.isStatePropertyOf].sort());
    expect(state?.properties[svc.endpoint]).toEqual([literal(`${MONITOR_ADDRESS}/state/state`, xsd.anyURI)]);
    expect(await values(CAP_STATE, svc.providedByStateProperty)).toEqual([SP]);
    expect(await values(R, cfc.hasCapability)).toEqual([CAP_STATE]);
  });

  onStore('should refuse workflow, state-property and capability classes of the wrong kind, writing nothing', async () => {
    await registerService(suite.ogm, {
      resourceIri: R,
      serviceIri: S,
      serviceClass: plant.ControllerService,
      address: ADDRESS,
      namedGraph: G,
    });
    const base = OPEN_WORKFLOW;
    await expectNothingWritten(
      () => registerWorkflow(suite.ogm, { ...base, workflowClass: plant.DoorStateProperty }),
      OntologyGroundTruthError,
    );
    await expectNothingWritten(
      () => registerWorkflow(suite.ogm, { ...base, capabilityClass: plant.OpenDoorWorkflow }),
      OntologyGroundTruthError,
    );
    await expectNothingWritten(
      () =>
        registerStateProperty(suite.ogm, {
          resourceIri: R,
          serviceIri: S,
          statePropertyIri: SP,
          statePropertyClass: plant.OpenDoorWorkflow,
          capabilityIri: CAP_STATE,
          capabilityClass: plant.DoorStateCapability,
          endpoint: buildStateEndpoint(ADDRESS, 'state'),
          namedGraph: G,
        }),
      OntologyGroundTruthError,
    );
  });

  onStore('should deregister in one request, removing the address and every endpoint and keeping the rest', async () => {
    await controller();
    await registerStateProperty(suite.ogm, {
      resourceIri: R,
      serviceIri: S,
      statePropertyIri: mintStatePropertyIri(S, 'state'),
      statePropertyClass: plant.DoorStateProperty,
      capabilityIri: CAP_STATE,
      capabilityClass: plant.DoorStateCapability,
      endpoint: buildStateEndpoint(ADDRESS, 'state'),
      namedGraph: G,
    });
    await monitor();
    await updateHeartbeat(suite.ogm, S, { timestamp: new Date('2030-01-01T00:00:00.000Z'), namedGraph: G });
    const before = suite.store!.requestCount;
    await deregisterService(suite.ogm, S, { namedGraph: G });
    expect(suite.store!.requestCount - before).toBe(1);
    expect(await values(S, svc.address)).toEqual([]);
    expect(await values(WF, svc.endpoint)).toEqual([]);
    const kept = await values(mintStatePropertyIri(S, 'state'), svc.endpoint);
    // Seen once on Virtuoso under a full parallel run and never reproduced since: the graph then tells what the match missed.
    if (kept.length > 0) throw new Error(`deregistration kept the StateProperty's endpoint ${kept.join(' ')}; graph:\n${await dump()}`);
    // Kept: types, structural links, Capabilities, heartbeat.
    expect((await suite.ogm.fetch(S, { graph: G }))?.types).toEqual([plant.ControllerService]);
    expect(await values(S, svc.isServiceOf)).toEqual([R]);
    expect(await values(S, svc.lastHeartbeat)).toHaveLength(1);
    expect(await values(WF, svc.isWorkflowOf)).toEqual([S]);
    expect(await values(CAP_OPEN, svc.realizedByWorkflow)).toEqual([WF]);
    expect(await values(R, cfc.hasCapability)).toEqual([CAP_OPEN, CAP_STATE].sort());
    // The sibling monitor is untouched.
    expect(await values(M, svc.address)).toEqual([MONITOR_ADDRESS]);
    expect(await values(SP, svc.endpoint)).toEqual([`${MONITOR_ADDRESS}/state/state`]);
    const again = await dump();
    await deregisterService(suite.ogm, S, { namedGraph: G });
    expect(await dump()).toBe(again);
  });

  onStore('should replace the heartbeat in one request and never resurrect a deregistered Service', async () => {
    await controller();
    const before = suite.store!.requestCount;
    await updateHeartbeat(suite.ogm, S, { namedGraph: G });
    expect(suite.store!.requestCount - before).toBe(1);
    const t = new Date('2031-02-03T04:05:06.789Z');
    await updateHeartbeat(suite.ogm, S, { timestamp: t, namedGraph: G });
    expect(await heartbeats(S)).toEqual([t.getTime()]);
    await deregisterService(suite.ogm, S, { namedGraph: G });
    await updateHeartbeat(suite.ogm, S, { namedGraph: G });
    expect(await values(S, svc.address)).toEqual([]);
    expect(await values(S, svc.lastHeartbeat)).toHaveLength(1);
  });

  onStore('should list the Services of a resource, or only the reachable ones', async () => {
    await controller();
    await monitor();
    const robotService = mintServiceIri(plant.robot1, 'http://127.0.0.1:8104');
    await registerService(suite.ogm, {
      resourceIri: plant.robot1,
      serviceIri: robotService,
      serviceClass: svc.Service,
      address: 'http://127.0.0.1:8104',
      namedGraph: G,
    });
    await deregisterService(suite.ogm, M, { namedGraph: G });
    const before = suite.store!.requestCount;
    expect(await servicesOfResource(suite.ogm, R, { namedGraph: G })).toEqual([S, M].sort());
    expect(suite.store!.requestCount - before).toBe(1);
    expect(await servicesOfResource(suite.ogm, R, { reachableOnly: true, namedGraph: G })).toEqual([S]);
    expect(await servicesOfResource(suite.ogm, plant.conveyor1, { namedGraph: G })).toEqual([]);
  });

  onStore('should refuse hostile IRIs, addresses and endpoints with ValueError and write nothing', async () => {
    await controller();
    const hostile = ['https://example.org/a>b', 'https://example.org/a b', 'https://example.org/a"b', '} } DROP ALL', ''];
    const addresses = [
      'ftp://127.0.0.1:21',
      'javascript:alert(1)',
      'http://127.0.0.1:8000/"> }',
      'http://a b',
      'not a url',
      '127.0.0.1:8000',
    ];
    const service = { resourceIri: R, serviceIri: S, serviceClass: svc.Service, address: ADDRESS, namedGraph: G };
    const workflow = OPEN_WORKFLOW;
    for (const bad of hostile) {
      await expectNothingWritten(() => registerService(suite.ogm, { ...service, resourceIri: bad }), ValueError);
      await expectNothingWritten(() => registerService(suite.ogm, { ...service, serviceIri: bad }), ValueError);
      await expectNothingWritten(() => registerService(suite.ogm, { ...service, namedGraph: bad || 'x' }), ValueError);
      await expectNothingWritten(() => registerWorkflow(suite.ogm, { ...workflow, workflowIri: bad }), ValueError);
      await expectNothingWritten(() => registerWorkflow(suite.ogm, { ...workflow, capabilityIri: bad }), ValueError);
      await expectNothingWritten(() => registerWorkflow(suite.ogm, { ...workflow, resourceIri: bad }), ValueError);
      await expectNothingWritten(() => deregisterService(suite.ogm, bad, { namedGraph: G }), ValueError);
      await expectNothingWritten(() => updateHeartbeat(suite.ogm, bad, { namedGraph: G }), ValueError);
      await expectNothingWritten(() => servicesOfResource(suite.ogm, bad, { namedGraph: G }), ValueError);
    }
    for (const bad of addresses) {
      await expectNothingWritten(() => registerService(suite.ogm, { ...service, address: bad }), ValueError);
      await expectNothingWritten(() => makeServiceReachable(suite.ogm, S, bad, { namedGraph: G }), ValueError);
      await expectNothingWritten(() => registerWorkflow(suite.ogm, { ...workflow, endpoint: bad }), ValueError);
    }
    await expectNothingWritten(() => updateHeartbeat(suite.ogm, S, { timestamp: new Date(Number.NaN), namedGraph: G }), ValueError);
    await expectNothingWritten(
      () => makeServiceReachable(suite.ogm, S, ADDRESS, { heartbeat: new Date('nope'), namedGraph: G }),
      ValueError,
    );
  });
});
