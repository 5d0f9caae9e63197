import { describe, expect } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokerAddress } from '../support/broker.js';
import { connectorCell, type RunningSidecar } from '../connectors/e2e-support.js';
import { lit, TBOX, topicPrefix } from '../connectors/support.js';
import { inf } from '../../src/vocab/index.js';

const BELT = 'https://example.org/cell#belt1';

/**
 * The acceptance check of the connectors: with Mosquitto on loopback and an ontology that
 * declares a readwrite and a read-only MQTT parameter for a resource, and nothing else
 * configured, `semantic-sidecar start --resource` serves the live values, writes setpoints when
 * driving, refuses them when observing, and says nothing southbound.
 */
describe('semantic-sidecar start --resource with MQTT parameters in the ontology', () => {
  const cell = connectorCell('sm-e2e-connectors-');
  const { test, group, dir, clients } = cell;

  const sidecar = (name: string, ontology: string, args: string[] = []): Promise<RunningSidecar> =>
    cell.sidecar(name, ['--resource', BELT, '--port', '0', '--store', 'memory', ...args], { env: { SIDECAR_ONTOLOGY_FILES: ontology } });

  test('should serve the published values, write setpoints when driving, refuse them when observing, and leak nothing southbound', async () => {
    const t = topicPrefix();
    const { host, port } = brokerAddress();
    const broker = `<${inf.hasMQTTBrokerIP}> ${lit(host)} ; <${inf.hasMQTTBrokerPort}> ${port}`;
    const ontology = join(dir, 'cell.ttl');
    writeFileSync(
      ontology,
      `<https://example.org/cell> a <http://www.w3.org/2002/07/owl#Ontology> .
${TBOX}
<${BELT}> <urn:test:connectors#hasSpeed> [ <${inf.accessMode}> "readwrite" ; <${inf.hasMQTTTopic}> ${lit(`${t}/speed`)} ;
  <${inf.hasMQTTSetTopic}> ${lit(`${t}/speed_set`)} ; ${broker} ] ;
  <urn:test:connectors#isOccupied> [ <${inf.accessMode}> "read" ; <${inf.hasMQTTTopic}> ${lit(`${t}/occupied`)} ; ${broker} ] .
`,
    );
    const driver = await sidecar('driver', ontology);
    const observer = await sidecar('observer', ontology, ['--connector-sync-direction', 'to_persistence']);
    const mqtt = await import('mqtt');
    const peer = await mqtt.connectAsync({ host, port, reconnectPeriod: 0 });
    clients.push(peer);
    const setpoints: string[] = [];
    peer.on('message', (topic, payload) => void (topic === `${t}/speed_set` && setpoints.push(payload.toString())));
    await peer.subscribeAsync(`${t}/speed_set`, { qos: 1 });

    const answers: unknown[] = [];
    const json = async (url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(url, init);
      const answer = { status: res.status, body: (await res.json()) as Record<string, unknown> };
      answers.push(answer);
      return answer;
    };
    const put = (address: string, value: unknown) =>
      json(`${address}/parameters/hasSpeed`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value }),
      });
    const valueOf = async (address: string, name: string): Promise<unknown> => (await json(`${address}/parameters/${name}`)).body.value;

    const deadline = Date.now() + 15_000;
    while ((await fetch(`${driver.address}/readyz`)).status !== 200 || (await fetch(`${observer.address}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`not ready\n${driver.proc.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await peer.publishAsync(`${t}/speed`, '0.75');
    await peer.publishAsync(`${t}/occupied`, 'true');
    for (const address of [driver.address, observer.address]) {
      while ((await valueOf(address, 'hasSpeed')) !== 0.75 || (await valueOf(address, 'isOccupied')) !== true) {
        if (Date.now() > deadline) throw new Error(`no values at ${address}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const list = (await json(`${driver.address}/parameters`)).body.parameters;
    expect(list).toEqual([
      expect.objectContaining({ name: 'hasSpeed', datatype: 'xsd:float', accessMode: 'readwrite', writable: true, value: 0.75 }),
      expect.objectContaining({ name: 'isOccupied', datatype: 'xsd:boolean', accessMode: 'read', writable: false, value: true }),
    ]);

    expect((await put(observer.address, 1.5)).status).toBe(405);
    expect((await put(driver.address, 'fast')).status).toBe(400);
    expect((await put(driver.address, 1.25)).status).toBe(200);
    while (setpoints.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    expect(setpoints).toEqual(['1.25']);

    await group.cleanup();
    const outputs = JSON.stringify(answers) + driver.proc.stdout + driver.proc.stderr + observer.proc.stdout + observer.proc.stderr;
    expect(outputs).toContain('hasSpeed');
    for (const secret of [t, `:${port}`, `"${port}"`, `${port},`]) expect(outputs).not.toContain(secret);
  }, 60_000);
});
