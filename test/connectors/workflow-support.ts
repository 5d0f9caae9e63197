import type { IPublishPacket, MqttClient } from 'mqtt';
import { inf, RDFS, sm, XSD } from '../../src/vocab/index.js';
import { brokerAddress } from '../support/broker.js';
import { EX, lit } from './support.js';

/** A workflow node as `ontology/middleware.ttl` describes it (topics raw, so tests may make them hostile). */
export interface WorkflowNode {
  holder: string;
  property: string;
  workflowClass?: string;
  capabilityClass?: string;
  commandTopic?: string;
  responseTopic?: string;
  timeoutMs?: number;
  host?: string;
  port?: number;
}

/** The test domain's workflow properties, each a sub-property of the MQTT workflow marker. */
export const WORKFLOW_TBOX = ['close', 'lock', 'hostile1', 'hostile2', 'hostile3', 'hostile4']
  .map((p) => `<${EX}${p}> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleMQTTWorkflow}> .`)
  .join('\n');

/** Turtle of workflow nodes on the test broker (host and port default to MQTT_URL's). */
export function workflowsTurtle(nodes: readonly WorkflowNode[]): string {
  const { host, port } = brokerAddress();
  return nodes
    .map((n) => {
      const facts = [
        n.workflowClass && `<${sm.workflowClass}> <${n.workflowClass}>`,
        n.capabilityClass && `<${sm.capabilityClass}> <${n.capabilityClass}>`,
        n.commandTopic !== undefined && `<${sm.hasMQTTCommandTopic}> ${lit(n.commandTopic)}`,
        n.responseTopic !== undefined && `<${sm.hasMQTTResponseTopic}> ${lit(n.responseTopic)}`,
        n.timeoutMs !== undefined && `<${sm.hasMQTTTimeoutMs}> "${n.timeoutMs}"^^<${XSD('integer')}>`,
        `<${inf.hasMQTTBrokerIP}> ${lit(n.host ?? host)}`,
        `<${inf.hasMQTTBrokerPort}> "${n.port ?? port}"^^<${XSD('integer')}>`,
      ].filter(Boolean);
      return `<${n.holder}> <${n.property}> [ ${facts.join(' ; ')} ] .`;
    })
    .join('\n');
}

/** What a simulated device does with one call: the replies it publishes (payload, correlation data), in order. */
export type Reply = { payload: string; correlationData?: Buffer; topic?: string };
export type Behaviour = (args: unknown, correlationData: Buffer | undefined) => Reply[];

/** A simulated MQTT 5 device: answers each call on `commandTopic` as `behaviour` says, on the call's response topic. */
export async function responder(commandTopic: string, behaviour: Behaviour): Promise<{ client: MqttClient; calls: IPublishPacket[] }> {
  const mqtt = await import('mqtt');
  const client = await mqtt.connectAsync({ ...brokerAddress(), protocolVersion: 5, reconnectPeriod: 0 });
  const calls: IPublishPacket[] = [];
  client.on('message', (_topic, payload, packet) => {
    calls.push(packet);
    const responseTopic = packet.properties?.responseTopic;
    const correlation = packet.properties?.correlationData;
    for (const reply of behaviour(JSON.parse(payload.toString()), correlation)) {
      const topic = reply.topic ?? responseTopic;
      if (topic === undefined) continue;
      client
        .publishAsync(topic, reply.payload, {
          qos: 1,
          ...(reply.correlationData !== undefined && { properties: { correlationData: reply.correlationData } }),
        })
        .catch(() => undefined); // the test may end before the broker acknowledges
    }
  });
  await client.subscribeAsync(commandTopic, { qos: 1 });
  return { client, calls };
}
