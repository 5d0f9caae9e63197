import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import type { ParameterView } from '../../src/middleware/index.js';
import { inf, OWL, plant, RDFS, XSD } from '../../src/vocab/index.js';
import { brokerAddress } from '../support/broker.js';

/** Test-only domain vocabulary: a component link and two MQTT parameters. */
export const EX = 'urn:test:connectors#';

/**
 * The door these tests declare connectors on. Not the example plant's door1: queries see the
 * union of all graphs, so on a store shared by the whole suite a door1 sidecar of another test
 * would take up these declarations.
 */
export const DOOR = `${EX}door`;

/** Makes {@link DOOR} a door of the example plant. */
export const DOOR_ABOX = `<${DOOR}> a <${plant.Door}> , <${OWL('NamedIndividual')}> .`;

/** A Turtle string literal (JSON escapes are Turtle escapes for what we write). */
export const lit = (text: string): string => JSON.stringify(text);

/** A parameter node as the reference's seed data writes it. */
export interface ParameterNode {
  holder: string;
  property: string;
  mode?: string;
  topic?: string;
  setTopic?: string;
  host?: string;
  port?: number | string;
  valuePath?: string;
}

/** The interface axioms plus the test domain (float speed, boolean occupancy, string label). */
export const TBOX = `
<${inf.isInterfaceAccessibleMQTTParameter}> <${RDFS('subPropertyOf')}> <${inf.isInterfaceAccessibleParameter}> .
<${EX}hasSpeed> <${RDFS('subPropertyOf')}> <${inf.isInterfaceAccessibleMQTTParameter}> ;
  <${RDFS('range')}> [ <${OWL('intersectionOf')}> ( [ <${OWL('onProperty')}> <${inf.hasValue}> ; <${OWL('allValuesFrom')}> <${XSD('float')}> ] ) ] .
<${EX}isOccupied> <${RDFS('subPropertyOf')}> <${inf.isInterfaceAccessibleMQTTParameter}> ;
  <${RDFS('range')}> [ <${OWL('intersectionOf')}> ( [ <${OWL('onProperty')}> <${inf.hasValue}> ; <${OWL('allValuesFrom')}> <${XSD('boolean')}> ] ) ] .
<${EX}hasLabel> <${RDFS('subPropertyOf')}> <${inf.isInterfaceAccessibleMQTTParameter}> ;
  <${RDFS('range')}> [ <${OWL('onProperty')}> <${inf.hasValue}> ; <${OWL('allValuesFrom')}> <${XSD('string')}> ] .
`;

/** Turtle of parameter nodes on the test broker (host and port default to MQTT_URL's). */
export function parametersTurtle(nodes: readonly ParameterNode[]): string {
  const { host, port } = brokerAddress();
  return nodes
    .map((n) => {
      const facts = [
        n.mode && `<${inf.accessMode}> ${lit(n.mode)}`,
        n.topic !== undefined && `<${inf.hasMQTTTopic}> ${lit(n.topic)}`,
        n.setTopic !== undefined && `<${inf.hasMQTTSetTopic}> ${lit(n.setTopic)}`,
        `<${inf.hasMQTTBrokerIP}> ${lit(n.host ?? host)}`,
        `<${inf.hasMQTTBrokerPort}> "${n.port ?? port}"^^<${XSD('integer')}>`,
        n.valuePath !== undefined && `<${inf.hasMQTTValuePath}> ${lit(n.valuePath)}`,
      ].filter(Boolean);
      return `<${n.holder}> <${n.property}> [ ${facts.join(' ; ')} ] .`;
    })
    .join('\n');
}

/** A unique topic prefix per test, so retained or late messages never cross tests. */
export const topicPrefix = (): string => `sm-test-${randomBytes(4).toString('hex')}`;

/** A connected test client on the broker, and the messages it received per topic. */
export async function testClient(): Promise<{
  client: MqttClient;
  received: Map<string, string[]>;
  subscribe(topic: string): Promise<void>;
}> {
  const mqtt = await import('mqtt');
  const { host, port } = brokerAddress();
  const client = await mqtt.connectAsync({ host, port, protocol: 'mqtt', reconnectPeriod: 0 });
  const received = new Map<string, string[]>();
  client.on('message', (topic, payload) => received.set(topic, [...(received.get(topic) ?? []), payload.toString('utf8')]));
  return {
    client,
    received,
    subscribe: async (topic) => void (await client.subscribeAsync(topic, { qos: 1 })),
  };
}

/** Any answer of the parameter routes: a list, one view, or an error detail. */
export type ParameterAnswer = Partial<ParameterView> & { parameters?: ParameterView[]; detail?: string };

/** GETs a parameter route: status and parsed body. */
export async function getJson(url: string): Promise<{ status: number; body: ParameterAnswer }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as ParameterAnswer };
}

/** PUTs `body` as JSON to a parameter route: status and parsed body. */
export async function put(url: string, body: unknown): Promise<{ status: number; body: ParameterAnswer }> {
  const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as ParameterAnswer };
}
