import { describe, expect } from '@jest/globals';
import { nearestInterfaceProperty } from '../../src/connectors/recognize.js';
import {
  ConnectorRegistry,
  SyncDirection,
  type ConnectorBinding,
  type ConnectorContext,
  type ParameterDeclaration,
  type ParameterValue,
} from '../../src/middleware/index.js';
import { namedNode } from '../../src/store/terms.js';
import { inf, RDFS, XSD } from '../../src/vocab/index.js';
import { middlewareSuite } from '../middleware/support/harness.js';
import { DOOR, DOOR_ABOX, EX, lit } from './support.js';

const G = 'urn:test:connectors:custom';
const IS_FAKE = `${EX}isFakeParameter`;
const CHANNEL = `${EX}fakeChannel`;

/** A protocol a user adds from TypeScript: parameters under ex:isFakeParameter, one session per channel host. */
function fakeBinding(): { binding: ConnectorBinding; writes: [string, ParameterValue][]; contexts: ConnectorContext[] } {
  const writes: [string, ParameterValue][] = [];
  const contexts: ConnectorContext[] = [];
  const binding: ConnectorBinding = {
    interfaceProperty: IS_FAKE,
    metadataProperties: [CHANNEL],
    transport: (p: ParameterDeclaration) => ({ host: p.metadata.get(CHANNEL) ?? 'none', port: 1 }),
    canWrite: () => true,
    open: (_transport, _parameters, context) => {
      contexts.push(context);
      return Promise.resolve({
        connected: () => true,
        write: (name: string, value: ParameterValue) => Promise.resolve(void writes.push([name, value])),
        close: () => Promise.resolve(),
      });
    },
  };
  return { binding, writes, contexts };
}

const TURTLE = `
<${IS_FAKE}> <${RDFS('subPropertyOf')}> <${inf.isInterfaceAccessibleParameter}> .
<${EX}hasTemperature> <${RDFS('subPropertyOf')}> <${IS_FAKE}> ;
  <${RDFS('range')}> [ <http://www.w3.org/2002/07/owl#onProperty> <${inf.hasValue}> ; <http://www.w3.org/2002/07/owl#allValuesFrom> <${XSD('integer')}> ] .
<${EX}hasMode> <${RDFS('subPropertyOf')}> <${IS_FAKE}> .
${DOOR_ABOX}
<${DOOR}> <${EX}hasTemperature> [ <${inf.accessMode}> "readwrite" ; <${CHANNEL}> ${lit('a')} ] .
<${DOOR}> <${EX}hasMode> [ <${inf.accessMode}> "sideways" ; <${inf.hasValue}> true ; <${CHANNEL}> ${lit('b')} ] .
`;

describe.each(['embedded', 'remote'] as const)('a custom connector binding on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);

  suite.onStore('should recognize its parameters, type their values and route writes to it', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    const fake = fakeBinding();
    const registry = new ConnectorRegistry();
    registry.register(fake.binding);
    expect(() => registry.register(fake.binding)).toThrow(/has a connector binding already/);
    const calls: unknown[] = [];
    const mw = suite.controller({
      resourceIri: DOOR,
      connectorRegistry: registry,
      connectorMaxAge: 1,
      ensureTransport: (...args) => void calls.push(args),
    });
    await mw.start();
    // The HTTP listen address, then each transport once, in parameter-name order (hasMode on "b" first).
    expect(calls).toEqual([
      ['127.0.0.1', 0],
      ['b', 1],
      ['a', 1],
    ]);
    const list = async (): Promise<unknown> =>
      ((await (await fetch(`${mw.address!}/parameters`)).json()) as { parameters: unknown }).parameters;
    expect(await list()).toEqual([
      expect.objectContaining({ name: 'hasMode', datatype: 'xsd:boolean', accessMode: 'read', writable: false, value: null }),
      expect.objectContaining({ name: 'hasTemperature', datatype: 'xsd:integer', accessMode: 'readwrite', writable: true, value: null }),
    ]);
    const [first] = fake.contexts;
    first!.received('hasTemperature', { candidate: 21 });
    first!.received('hasTemperature', { candidate: 21.5 });
    const put = await fetch(`${mw.address!}/parameters/hasTemperature`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"value": 22}',
    });
    expect(put.status).toBe(200);
    expect(fake.writes).toEqual([['hasTemperature', 22]]);
    expect(await list()).toContainEqual(
      expect.objectContaining({
        name: 'hasTemperature',
        value: 21,
        stale: false,
        lastRejection: expect.objectContaining({ reason: 'expected xsd:integer, got a number' }),
      }),
    );
    // Older than connectorMaxAge: still served, but as stale, never as fresh.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await list()).toContainEqual(expect.objectContaining({ name: 'hasTemperature', value: 21, stale: true }));
  });

  suite.onStore('should serve nothing from a registry without bindings, and write nothing when observing', async () => {
    await suite.store!.load(TURTLE, { graph: G, format: 'text/turtle' });
    const empty = suite.controller({ resourceIri: DOOR, connectorRegistry: new ConnectorRegistry(), port: 0 });
    await empty.start();
    expect(await (await fetch(`${empty.address!}/parameters`)).json()).toEqual({ parameters: [] });
    await empty.stop();
    const fake = fakeBinding();
    const registry = new ConnectorRegistry();
    registry.register(fake.binding);
    const observer = suite.controller({
      resourceIri: DOOR,
      connectorRegistry: registry,
      connectorSyncDirection: SyncDirection.TO_PERSISTENCE,
    });
    await observer.start();
    const put = await fetch(`${observer.address!}/parameters/hasTemperature`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"value": 22}',
    });
    expect(put.status).toBe(405);
    expect(fake.writes).toEqual([]);
  });
});

describe('interface property closure', () => {
  const edge = (sub: string, sup: string) => ({ sub: namedNode(sub), super: namedNode(sup) });
  it('should map each descendant to the nearest registered interface property, through cycles', () => {
    const nearest = nearestInterfaceProperty(
      [
        edge(inf.isInterfaceAccessibleMQTTParameter, inf.isInterfaceAccessibleParameter),
        edge(`${EX}a`, inf.isInterfaceAccessibleMQTTParameter),
        edge(`${EX}b`, `${EX}a`),
        edge(`${EX}c`, inf.isInterfaceAccessibleParameter),
        edge(`${EX}x`, `${EX}y`),
        edge(`${EX}y`, `${EX}x`),
      ],
      [inf.isInterfaceAccessibleMQTTParameter],
    );
    expect(Object.fromEntries(nearest)).toEqual({
      [inf.isInterfaceAccessibleMQTTParameter]: inf.isInterfaceAccessibleMQTTParameter,
      [`${EX}a`]: inf.isInterfaceAccessibleMQTTParameter,
      [`${EX}b`]: inf.isInterfaceAccessibleMQTTParameter,
    });
  });
});
