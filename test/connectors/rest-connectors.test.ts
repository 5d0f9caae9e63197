import { describe, expect } from '@jest/globals';
import { restBinding } from '../../src/connectors/rest/binding.js';
import {
  ConnectorRegistry,
  defaultConnectorRegistry,
  SyncDirection,
  type ConnectorBinding,
  type ConnectorContext,
  type ParameterValue,
  type SemanticMiddleware,
  type SemanticMiddlewareOptions,
} from '../../src/middleware/index.js';
import { inf, plant, RDFS, sm, XSD } from '../../src/vocab/index.js';
import { middlewareSuite, until } from '../middleware/support/harness.js';
import { EX, getJson, lit, put } from './support.js';

const G = 'urn:test:connectors:rest';
const IS_FAKE = `${EX}isFakeParameter`;
// Resources of this file only: suites on one Virtuoso run in parallel, and recognition reads every graph.
const READER = `${EX}restReader`;
const PEER = `${EX}restPeer`;

/** A value range restriction on `inf:hasValue`. */
const range = (datatype: string): string =>
  `<${RDFS('range')}> [ <http://www.w3.org/2002/07/owl#onProperty> <${inf.hasValue}> ; <http://www.w3.org/2002/07/owl#allValuesFrom> <${XSD(datatype)}> ]`;

/**
 * robot1 (the peer) serves `robotTemperature` through an in-process binding and the state
 * property `gripper`; door1 reads both over REST (`peerTemperature` readwrite, `peerGripper` read).
 */
const TURTLE = `
<${IS_FAKE}> <${RDFS('subPropertyOf')}> <${inf.isInterfaceAccessibleParameter}> .
<${EX}robotTemperature> <${RDFS('subPropertyOf')}> <${IS_FAKE}> ; ${range('integer')} .
<${PEER}> <${EX}robotTemperature> [ <${inf.accessMode}> "readwrite" ] .
<${EX}peerTemperature> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleRESTParameter}> ; ${range('integer')} .
<${EX}peerGripper> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleRESTParameter}> ; ${range('string')} .
<${READER}> <${EX}peerTemperature> [ <${inf.accessMode}> "readwrite" ; <${sm.hasRESTPeer}> <${PEER}> ; <${sm.hasRESTPeerParameter}> ${lit('robotTemperature')} ] .
<${READER}> <${EX}peerGripper> [ <${inf.accessMode}> "readwrite" ; <${sm.hasRESTPeer}> <${PEER}> ; <${sm.hasRESTPeerState}> ${lit('gripper')} ] .
`;

/** The peer's protocol: values pushed by the test, setpoints recorded. */
function fakeDevice(): { binding: ConnectorBinding; writes: ParameterValue[]; push: (value: unknown) => void } {
  const writes: ParameterValue[] = [];
  let context: ConnectorContext | undefined;
  const binding: ConnectorBinding = {
    interfaceProperty: IS_FAKE,
    metadataProperties: [],
    transport: () => ({ host: 'fake', port: 1 }),
    canWrite: () => true,
    open: (_transport, _parameters, c) => {
      context = c;
      return Promise.resolve({
        connected: () => true,
        write: (_name: string, value: ParameterValue) => Promise.resolve(void writes.push(value)),
        close: () => Promise.resolve(),
      });
    },
  };
  return { binding, writes, push: (value) => context!.received('robotTemperature', { candidate: value }) };
}

const ready = (mw: SemanticMiddleware) => async (): Promise<boolean> => (await fetch(`${mw.address!}/readyz`)).status === 200;

describe.each(['embedded', 'remote'] as const)('REST connectors between two middlewares on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);

  /** Starts the peer robot1: its parameter through the fake device, its gripper state from `gripper`. */
  async function startPeer(state: { gripper: unknown }, device = fakeDevice(), options: Partial<SemanticMiddlewareOptions> = {}) {
    const registry = new ConnectorRegistry();
    registry.register(device.binding);
    const peer = suite.create({
      resourceIri: PEER,
      serviceClass: plant.ControllerService,
      connectorRegistry: registry,
      ...options,
    });
    peer.state(
      { capabilityClass: plant.DoorStateCapability, statePropertyClass: plant.DoorStateProperty, name: 'gripper' },
      () => state.gripper,
    );
    await peer.start();
    return { peer, device };
  }

  /** Starts door1 reading robot1 over REST, polling every 50 ms. */
  async function startReader(options: Partial<SemanticMiddlewareOptions> = {}) {
    const registry = new ConnectorRegistry();
    registry.register(restBinding({ pollIntervalMs: 50, resolveMs: 200 }));
    const mw = suite.controller({ resourceIri: READER, connectorRegistry: registry, ...options });
    await mw.start();
    return { mw, url: (path: string) => `${mw.address!}${path}` };
  }

  suite.onStore('should read the peer parameter and state property, typed, and set the peer parameter under driving wiring', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    const state = { gripper: 'closed' as unknown };
    const { device } = await startPeer(state);
    const { mw, url } = await startReader();
    device.push(21);
    await until(ready(mw), 'the reader to reach its peer');
    await until(async () => (await getJson(url('/parameters/peerTemperature'))).body.value === 21, 'the peer temperature');
    await until(async () => (await getJson(url('/parameters/peerGripper'))).body.value === 'closed', 'the peer gripper');
    const { body } = await getJson(url('/parameters'));
    expect(body.parameters).toEqual([
      expect.objectContaining({ name: 'peerGripper', datatype: 'xsd:string', accessMode: 'readwrite', writable: false, value: 'closed' }),
      expect.objectContaining({ name: 'peerTemperature', datatype: 'xsd:integer', accessMode: 'readwrite', writable: true, value: 21 }),
    ]);

    expect(await put(url('/parameters/peerTemperature'), { value: 23 })).toMatchObject({ status: 200 });
    expect(device.writes).toEqual([23]);
    // A state property is read only, whatever the access mode says.
    expect(await put(url('/parameters/peerGripper'), { value: 'open' })).toEqual({
      status: 405,
      body: { detail: 'parameter "peerGripper" has no setpoint connector' },
    });
    expect((await put(url('/parameters/peerTemperature'), { value: 'hot' })).status).toBe(400);
    expect(device.writes).toEqual([23]);

    // A value that does not fit this side's datatype is refused with a reason, never served.
    state.gripper = 7;
    await until(async () => (await getJson(url('/parameters/peerGripper'))).body.lastRejection !== null, 'the gripper refusal');
    expect((await getJson(url('/parameters/peerGripper'))).body).toMatchObject({
      value: 'closed',
      lastRejection: { reason: 'expected xsd:string, got an integer' },
    });
    // The live value is never written to the graph.
    expect(await suite.dump()).not.toContain('"21"');
  });

  suite.onStore('should keep the age the peer reports, and refuse a value the peer itself serves as stale', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    const { device } = await startPeer({ gripper: 'closed' }, fakeDevice(), { connectorMaxAge: 0.6 });
    const { mw, url } = await startReader();
    await until(ready(mw), 'the reader to reach its peer');
    device.push(5);
    const temperature = url('/parameters/peerTemperature');
    await until(async () => (await getJson(temperature)).body.value === 5, 'the peer temperature');
    // Polled every 50 ms, but its age is the peer's: it keeps growing.
    await until(
      async () => (await getJson(temperature)).body.lastRejection?.reason === 'the peer serves its value as stale',
      'the stale refusal',
    );
    const { body } = await getJson(temperature);
    expect(body).toMatchObject({ value: 5 });
    // The reader ages the last value it accepted on its own clock from the peer's answer: up to
    // one answer's transit short of the age at which the peer called it stale.
    expect(body.ageMs).toBeGreaterThanOrEqual(600 - 50);
  });

  suite.onStore('should refuse writes when observing and connect nothing when inspecting', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    const { device } = await startPeer({ gripper: 'closed' });
    device.push(1);
    const observer = await startReader({ connectorSyncDirection: SyncDirection.TO_PERSISTENCE });
    await until(async () => (await getJson(observer.url('/parameters/peerTemperature'))).body.value === 1, 'the observed temperature');
    expect(await put(observer.url('/parameters/peerTemperature'), { value: 9 })).toEqual({
      status: 405,
      body: { detail: 'parameter "peerTemperature" is not writable here: this instance observes' },
    });
    const inspector = await startReader({ autoregisterConnectors: false });
    await new Promise((r) => setTimeout(r, 200));
    expect((await getJson(inspector.url('/parameters/peerTemperature'))).body).toMatchObject({ value: null, writable: false });
    expect(await put(inspector.url('/parameters/peerTemperature'), { value: 9 })).toMatchObject({ status: 405 });
    expect(device.writes).toEqual([]);
  });

  suite.onStore('should say not ready while the peer is down, keep the last value ageing, and resume when it is back', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    const first = await startPeer({ gripper: 'closed' });
    first.device.push(30);
    const { mw, url } = await startReader({ connectorMaxAge: 0.5 });
    await until(async () => (await getJson(url('/parameters/peerTemperature'))).body.value === 30, 'the first temperature');
    expect(await ready(mw)()).toBe(true);

    await first.peer.stop();
    await until(async () => !(await ready(mw)()), 'the reader to say not ready');
    expect(await put(url('/parameters/peerTemperature'), { value: 31 })).toEqual({
      status: 503,
      body: { detail: 'parameter "peerTemperature": its peer is not reachable; nothing was sent' },
    });
    await until(async () => (await getJson(url('/parameters/peerTemperature'))).body.stale === true, 'the value to go stale');
    expect((await getJson(url('/parameters/peerTemperature'))).body.value).toBe(30);

    // Back on another port, as a restarted sidecar on port 0 is: found again through the graph.
    const second = await startPeer({ gripper: 'open' });
    second.device.push(32);
    await until(ready(mw), 'the reader to reach the restarted peer');
    await until(async () => (await getJson(url('/parameters/peerTemperature'))).body.value === 32, 'the resumed temperature');
    expect((await getJson(url('/parameters/peerTemperature'))).body.stale).toBe(false);
    expect((await put(url('/parameters/peerTemperature'), { value: 33 })).status).toBe(200);
    expect(second.device.writes).toEqual([33]);
    expect(first.device.writes).toEqual([]);
  });

  suite.onStore('should send the outgoing token to a peer that requires one, and only probe it when writing only', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    const token = 'plant-token-0123456789abcdef';
    const { device } = await startPeer({ gripper: 'closed' }, fakeDevice(), { httpToken: token });
    device.push(12);
    const refused = await startReader();
    await until(
      async () =>
        /^the peer refused this instance's token \(HTTP 401\)/u.test(
          (await getJson(refused.url('/parameters/peerTemperature'))).body.lastRejection?.reason ?? '',
        ),
      'the token refusal',
    );
    expect((await getJson(refused.url('/parameters/peerTemperature'))).body.value).toBeNull();
    expect((await put(refused.url('/parameters/peerTemperature'), { value: 13 })).status).toBe(502);

    const trusted = await startReader({ outgoingTokens: { default: token } });
    await until(async () => (await getJson(trusted.url('/parameters/peerTemperature'))).body.value === 12, 'the value read with the token');

    // Writing only: nothing is read, but readiness still follows the peer.
    const writer = await startReader({ outgoingTokens: { default: token }, connectorSyncDirection: SyncDirection.FROM_PERSISTENCE });
    await until(ready(writer.mw), 'the writer to reach its peer');
    expect((await getJson(writer.url('/parameters/peerTemperature'))).body.value).toBeNull();
    expect((await put(writer.url('/parameters/peerTemperature'), { value: 14 })).status).toBe(200);
    expect(device.writes).toEqual([14]);
  });

  suite.onStore('should ship in the default registry', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    expect(defaultConnectorRegistry().interfaceProperties()).toContain(sm.isInterfaceAccessibleRESTParameter);
    const mw = suite.controller({ resourceIri: READER });
    await mw.start();
    const { body } = await getJson(`${mw.address!}/parameters`);
    expect(body.parameters!.map((p) => p.name)).toEqual(['peerGripper', 'peerTemperature']);
  });
});
