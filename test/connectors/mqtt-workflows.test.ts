import { afterEach, describe, expect, it } from '@jest/globals';
import type { MqttClient } from 'mqtt';
import { openMqttWorkflows, type MqttWorkflows } from '../../src/connectors/mqtt/workflows.js';
import { plant } from '../../src/vocab/index.js';
import { brokerAddress, brokerUrl } from '../support/broker.js';
import { logSink, middlewareSuite, postJson, until } from '../middleware/support/harness.js';
import { DOOR, DOOR_ABOX, EX, TBOX, topicPrefix } from './support.js';
import { responder, WORKFLOW_TBOX, workflowsTurtle, type Behaviour, type WorkflowNode } from './workflow-support.js';

const G = 'urn:test:connectors:workflows';
const CLOSE = { workflowClass: plant.CloseDoorWorkflow, capabilityClass: plant.DoorClosingCapability };

describe.each(['embedded', 'remote'] as const)('workflows bound to MQTT on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const test = brokerUrl() === undefined ? it.skip : suite.it;
  const clients: MqttClient[] = [];
  const opened: MqttWorkflows[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((w) => w.close()));
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  });

  /** Loads `nodes`, binds door1's MQTT workflows into a started middleware; a device answers `behaviour` on the close topic. */
  async function door(t: string, nodes: WorkflowNode[], behaviour: Behaviour) {
    await suite.store!.load(`${TBOX}\n${DOOR_ABOX}\n${WORKFLOW_TBOX}\n${workflowsTurtle(nodes)}`, { graph: G, format: 'text/turtle' });
    const device = await responder(`${t}/close/cmd`, behaviour);
    clients.push(device.client);
    const sink = logSink('info');
    const mqtt = await openMqttWorkflows({ source: suite.newOgm().db, resource: DOOR, logger: sink.logger });
    opened.push(mqtt);
    const mw = suite.create({ resourceIri: DOOR, serviceClass: plant.ControllerService, logger: sink.logger });
    for (const w of mqtt.workflows) mw.workflow(w.options, w.invoke);
    await mw.start();
    await until(() => mqtt.connected(), 'the workflow broker to connect');
    const call = (name: string, args: unknown) => postJson(`${mw.address!}/workflows/${name}/execute`, args);
    return { mw, mqtt, device, sink, call };
  }

  const closeNode = (t: string, extra: Partial<WorkflowNode> = {}): WorkflowNode => ({
    holder: DOOR,
    property: `${EX}close`,
    ...CLOSE,
    commandTopic: `${t}/close/cmd`,
    responseTopic: `${t}/close/reply`,
    ...extra,
  });

  test('should publish the arguments with a response topic and correlation data and answer the matching response only', async () => {
    const t = topicPrefix();
    const { call, device, mqtt } = await door(t, [closeNode(t)], (args, correlation) => [
      { payload: '{"forged":true}' }, // no correlation data
      { payload: '{"forged":true}', correlationData: Buffer.from('not-the-call') },
      { payload: '{"forged":true}', correlationData: correlation, topic: `${t}/elsewhere` },
      { payload: JSON.stringify({ closed: true, echo: args }), correlationData: correlation },
    ]);
    expect(mqtt.workflows.map((w) => w.options)).toEqual([{ name: 'close', ...CLOSE }]);
    const answer = await call('close', { speed: 2 });
    expect(answer).toEqual({ status: 200, body: { closed: true, echo: { speed: 2 } } });
    expect(device.calls).toHaveLength(1);
    const properties = device.calls[0]!.properties!;
    expect(properties.responseTopic).toBe(`${t}/close/reply`);
    expect(Buffer.from(properties.correlationData!).length).toBe(16);
    // Two calls at once each get their own answer.
    const both = await Promise.all([call('close', { n: 1 }), call('close', { n: 2 })]);
    expect(both.map((a) => (a.body.echo as { n: number }).n)).toEqual([1, 2]);
  });

  test('should answer 504 with a clear message when the device does not answer in time, naming nothing southbound', async () => {
    const t = topicPrefix();
    const { call, sink } = await door(t, [closeNode(t, { timeoutMs: 300 })], () => []);
    const started = Date.now();
    const answer = await call('close', {});
    expect(answer.status).toBe(504);
    expect(answer.body.detail).toBe('workflow "close" got no answer over MQTT within 300 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    const { port } = brokerAddress();
    const outputs = JSON.stringify(answer) + JSON.stringify(sink.lines());
    for (const southbound of [t, `:${port}`, `"${port}"`, `${port},`]) expect(outputs).not.toContain(southbound);
  });

  // A control character a store keeps (NUL is refused by the stores themselves, before any recognition).
  test('should leave out workflows with hostile or missing topics, with a warning that shows no value', async () => {
    const t = topicPrefix();
    const hostile: WorkflowNode[] = [
      { holder: DOOR, property: `${EX}hostile1`, ...CLOSE, commandTopic: `${t}/#`, responseTopic: `${t}/r1` },
      { holder: DOOR, property: `${EX}hostile2`, ...CLOSE, commandTopic: `${t}/c2`, responseTopic: `${t}/+/r2` },
      { holder: DOOR, property: `${EX}hostile3`, ...CLOSE, commandTopic: `${t}/c3\u0007x`, responseTopic: `${t}/r3` },
      { holder: DOOR, property: `${EX}hostile4`, ...CLOSE, commandTopic: `${t}/c4` },
      { holder: DOOR, property: `${EX}lock`, commandTopic: `${t}/c5`, responseTopic: `${t}/r5` },
    ];
    const { mqtt, sink, call } = await door(t, [closeNode(t), ...hostile], (_args, correlation) => [
      { payload: '"closed"', correlationData: correlation },
    ]);
    expect(mqtt.workflows.map((w) => w.options.name)).toEqual(['close']);
    const warnings = sink.lines().filter((l) => l.msg === 'workflow left out: its MQTT metadata is unusable');
    expect(warnings.map((w) => [w.workflow, w.reason])).toEqual([
      ['hostile1', 'workflow "hostile1": sm:hasMQTTCommandTopic is not a valid MQTT topic name'],
      ['hostile2', 'workflow "hostile2": sm:hasMQTTResponseTopic is not a valid MQTT topic name'],
      ['hostile3', 'workflow "hostile3": sm:hasMQTTCommandTopic is not a valid MQTT topic name'],
      ['hostile4', 'workflow "hostile4": sm:hasMQTTResponseTopic is missing'],
      ['lock', 'workflow "lock": sm:workflowClass is missing (an IRI of a class in the ontology)'],
    ]);
    expect(await call('close', {})).toEqual({ status: 200, body: 'closed' });
    expect(JSON.stringify(sink.lines())).not.toContain(t);
  });

  test('should refuse a reply that is not JSON as a device reply error (502)', async () => {
    const t = topicPrefix();
    const { call } = await door(t, [closeNode(t)], (_args, correlation) => [{ payload: 'closed, I think', correlationData: correlation }]);
    const answer = await call('close', {});
    expect(answer.status).toBe(502);
    expect(answer.body.detail).toMatch(/workflow "close" .*not JSON/u);
    expect(answer.body.detail).not.toContain(t);
  });
});
