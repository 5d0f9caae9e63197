import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { DeviceTimeoutError, DeviceUnreachableError } from '../../src/device/errors.js';
import { MqttWorkflowDevice } from '../../src/connectors/mqtt/workflow-device.js';
import { mqttWorkflowOf } from '../../src/connectors/mqtt/workflows.js';
import { ValueError } from '../../src/errors.js';
import { inf, sm } from '../../src/vocab/index.js';
import { silent, until } from '../middleware/support/harness.js';
import { brokerAddress, brokerUrl } from '../support/broker.js';
import { topicPrefix } from './support.js';

const form = (t: string, timeoutMs = 200) => ({ label: 'workflow "close"', path: `${t}/cmd`, replyTo: `${t}/reply`, timeoutMs });

describe('MqttWorkflowDevice', () => {
  const devices: MqttWorkflowDevice[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(devices.splice(0).map((d) => d.close()));
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  /** A device aimed at a port where nothing speaks MQTT (a TCP server that hangs up at once). */
  async function unreachable(): Promise<MqttWorkflowDevice> {
    const server = createServer((socket) => socket.destroy());
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const device = await MqttWorkflowDevice.open({
      transport: { host: '127.0.0.1', port },
      credentials: undefined,
      logger: silent,
      maxReplyBytes: 1024,
    });
    devices.push(device);
    return device;
  }

  it('should refuse a call with nothing sent while the broker is not connected, and say so in its health', async () => {
    const device = await unreachable();
    const invoke = device.invoker(form('t'));
    await expect(invoke({})).rejects.toThrow(DeviceUnreachableError);
    await expect(invoke({})).rejects.toThrow('workflow "close": its MQTT broker is not connected; nothing was sent');
    const health = await device.health();
    expect(health.reachable).toBe(false);
    expect(device.description).toBe('mqtt');
  });

  it('should refuse forms without a response topic, state reads, and arguments that are not an object', async () => {
    const device = await unreachable();
    expect(() => device.invoker({ label: 'workflow "x"', path: 'cmd', timeoutMs: 10 })).toThrow(ValueError);
    expect(() => device.reader({ label: 'state property "door"', path: 'door', timeoutMs: 10 })).toThrow(
      /not read through MQTT workflows/u,
    );
    await expect(device.invoker(form('t'))([1, 2] as never)).rejects.toThrow(
      'workflow "close" takes a JSON object of arguments, got an array',
    );
  });

  it('should reject calls after close, and close again without error', async () => {
    const device = await unreachable();
    const invoke = device.invoker(form('t'));
    await device.close();
    await device.close();
    await expect(invoke({})).rejects.toThrow(/closed/u);
    await expect(device.health()).rejects.toThrow(/closed/u);
  });

  (brokerUrl() === undefined ? it.skip : it)(
    'should time out with a DeviceTimeoutError (504) and reject calls in flight on close',
    async () => {
      const device = await MqttWorkflowDevice.open({
        transport: brokerAddress(),
        credentials: undefined,
        logger: silent,
        maxReplyBytes: 16,
      });
      devices.push(device);
      await until(() => device.connected(), 'the broker');
      expect(await device.health()).toEqual({ reachable: true, ms: 0 });
      const t = topicPrefix();
      const error = await device
        .invoker(form(t))({})
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeviceTimeoutError);
      expect(error).toMatchObject({ status: 504, timeoutMs: 200 });
      const pending = device
        .invoker(form(t, 10_000))({})
        .catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      await device.close();
      expect(await pending).toMatchObject({ message: 'the MQTT workflow device was closed before the answer came' });
    },
  );
});

describe('mqttWorkflowOf', () => {
  const node = (metadata: Record<string, string>) => ({
    name: 'close',
    holder: 'urn:h',
    property: 'urn:p',
    marker: sm.isInterfaceAccessibleMQTTWorkflow,
    valueDatatype: undefined,
    metadata: new Map(Object.entries(metadata)),
  });
  const good = {
    [sm.workflowClass]: 'urn:W',
    [sm.capabilityClass]: 'urn:C',
    [sm.hasMQTTCommandTopic]: 'a/cmd',
    [sm.hasMQTTResponseTopic]: 'a/reply',
    [inf.hasMQTTBrokerIP]: 'Broker.local',
  };

  it('should read the node with the broker port and timeout defaults', () => {
    expect(mqttWorkflowOf(node(good), 1234)).toEqual({
      name: 'close',
      workflowClass: 'urn:W',
      capabilityClass: 'urn:C',
      transport: { host: 'broker.local', port: 1883 },
      commandTopic: 'a/cmd',
      responseTopic: 'a/reply',
      timeoutMs: 1234,
    });
  });

  it.each([
    [{ [sm.hasMQTTTimeoutMs]: '0' }, 'sm:hasMQTTTimeoutMs is not a number of milliseconds'],
    [{ [sm.hasMQTTTimeoutMs]: '1e3' }, 'sm:hasMQTTTimeoutMs is not a number of milliseconds'],
    [{ [inf.hasMQTTBrokerPort]: '70000' }, 'inf:hasMQTTBrokerPort is not a port'],
    [{ [inf.hasMQTTBrokerIP]: 'evil host/#' }, 'inf:hasMQTTBrokerIP is not a host name'],
    [{ [sm.hasMQTTCommandTopic]: '' }, 'sm:hasMQTTCommandTopic is not a valid MQTT topic name'],
  ])('should refuse %j naming the property, not the value', (override, message) => {
    expect(() => mqttWorkflowOf(node({ ...good, ...override }), 1000)).toThrow(`workflow "close": ${message}`);
  });
});
