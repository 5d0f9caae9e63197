import { describe, expect } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brokerAddress } from '../support/broker.js';
import { runCli } from '../support/sidecar-process.js';
import { connectorCell, type RunningSidecar } from '../connectors/e2e-support.js';
import { lit, TBOX, topicPrefix } from '../connectors/support.js';
import { cfc, inf, RDFS, sm, svc } from '../../src/vocab/index.js';

const BELT = 'https://example.org/cell#belt1';
const CELL = 'https://example.org/cell#';

/**
 * The issue's acceptance check, word for word: Mosquitto on loopback, a store holding an
 * ontology that declares a readwrite and a read-only MQTT parameter (and an MQTT workflow) for a
 * resource, nothing else configured: `semantic-sidecar start --resource <it> --store <url>`
 * serves the last published values, writes through its route to the set topic, refuses as an
 * observer with nothing published, and no northbound output names the broker or a topic.
 */
describe('semantic-sidecar start --resource against a store that holds the MQTT ontology', () => {
  const cell = connectorCell('sm-e2e-connectors-store-');
  const { test, group, dir, clients } = cell;

  /** The cell's ontology: the interface TBox, belt1's two parameters and its MQTT workflow "start". */
  function ontology(t: string, broker = brokerAddress()): string {
    const { host, port } = broker;
    const brokerMetadata = `<${inf.hasMQTTBrokerIP}> ${lit(host)} ; <${inf.hasMQTTBrokerPort}> ${port}`;
    const file = join(dir, `cell-${t}.ttl`);
    writeFileSync(
      file,
      `<https://example.org/cell> a <http://www.w3.org/2002/07/owl#Ontology> .
${TBOX}
<${CELL}StartBeltWorkflow> <${RDFS('subClassOf')}> <${svc.Workflow}> .
<${CELL}BeltCapability> <${RDFS('subClassOf')}> <${cfc.Capability}> .
<${CELL}StartBeltOperation> <${RDFS('subClassOf')}> <${cfc.Operation}> .
<${CELL}start> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleMQTTWorkflow}> .
<${BELT}> <urn:test:connectors#hasSpeed> [ <${inf.accessMode}> "readwrite" ; <${inf.hasMQTTTopic}> ${lit(`${t}/speed`)} ;
    <${inf.hasMQTTSetTopic}> ${lit(`${t}/speed_set`)} ; ${brokerMetadata} ] ;
  <urn:test:connectors#isOccupied> [ <${inf.accessMode}> "read" ; <${inf.hasMQTTTopic}> ${lit(`${t}/occupied`)} ; ${brokerMetadata} ] ;
  <${CELL}start> [ <${sm.workflowClass}> <${CELL}StartBeltWorkflow> ; <${sm.capabilityClass}> <${CELL}BeltCapability> ;
    <${sm.hasMQTTCommandTopic}> ${lit(`${t}/start`)} ; <${sm.hasMQTTResponseTopic}> ${lit(`${t}/start/reply`)} ; ${brokerMetadata} ] .
`,
    );
    return file;
  }

  const sidecar = (name: string, store: string, args: string[] = []): Promise<RunningSidecar> =>
    cell.sidecar(name, ['--resource', BELT, '--store', store, '--port', '0', ...args]);

  test('should serve the last published values, write setpoints and run the MQTT workflow when driving, refuse as observer, and name nothing southbound', async () => {
    const t = topicPrefix();
    const storeProc = group.cli('store', ['store', 'serve', '--memory', '--provision', '--port', '0']);
    const store = (await storeProc.firstLine(30_000)).trim();
    const loaded = await runCli(['ontology', 'load', ontology(t), '--store', store]);
    expect(loaded.code).toBe(0);

    const mqtt = await import('mqtt');
    const { host, port } = brokerAddress();
    const peer = await mqtt.connectAsync({ host, port, protocolVersion: 5, reconnectPeriod: 0 });
    clients.push(peer);
    const setpoints: string[] = [];
    const calls: unknown[] = [];
    peer.on('message', (topic, payload, packet) => {
      if (topic === `${t}/speed_set`) setpoints.push(payload.toString());
      if (topic !== `${t}/start`) return;
      calls.push(JSON.parse(payload.toString()));
      const { responseTopic, correlationData } = packet.properties ?? {};
      void peer
        .publishAsync(responseTopic!, '{"running":true}', { properties: { correlationData: correlationData! } })
        .catch(() => undefined);
    });
    await peer.subscribeAsync([`${t}/speed_set`, `${t}/start`], { qos: 1 });
    // Published before any sidecar runs, retained: "the value last published" is there at start.
    await peer.publishAsync(`${t}/speed`, '0.5', { retain: true });
    await peer.publishAsync(`${t}/occupied`, 'true', { retain: true });

    const driver = await sidecar('driver', store);
    const observer = await sidecar('observer', store, ['--connector-sync-direction', 'to_persistence']);
    const answers: unknown[] = [];
    const json = async (url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(url, init);
      const answer = { status: res.status, body: (await res.json()) as Record<string, unknown> };
      answers.push(answer);
      return answer;
    };
    const send = (method: string, url: string, body: unknown) =>
      json(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const deadline = Date.now() + 20_000;
    const waitFor = async (what: string, ok: () => Promise<boolean>): Promise<void> => {
      while (!(await ok())) {
        if (Date.now() > deadline) throw new Error(`${what}\n${driver.proc.tail()}\n${observer.proc.tail()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await waitFor(
      'not ready',
      async () => (await json(`${driver.address}/readyz`)).status === 200 && (await json(`${observer.address}/readyz`)).status === 200,
    );
    await peer.publishAsync(`${t}/speed`, '0.75', { retain: true });
    await waitFor('no value', async () => {
      const list = (await json(`${driver.address}/parameters`)).body.parameters as { name: string; value: unknown }[];
      return list.find((p) => p.name === 'hasSpeed')?.value === 0.75 && list.find((p) => p.name === 'isOccupied')?.value === true;
    });
    expect((await json(`${driver.address}/parameters`)).body.parameters).toEqual([
      expect.objectContaining({ name: 'hasSpeed', route: '/parameters/hasSpeed', accessMode: 'readwrite', writable: true, value: 0.75 }),
      expect.objectContaining({ name: 'isOccupied', accessMode: 'read', writable: false, value: true }),
    ]);

    expect((await send('PUT', `${observer.address}/parameters/hasSpeed`, { value: 1.5 })).status).toBe(405);
    expect((await send('PUT', `${driver.address}/parameters/isOccupied`, { value: false })).status).toBe(405);
    expect((await send('PUT', `${driver.address}/parameters/hasSpeed`, { value: 1.25 })).status).toBe(200);
    expect(await send('POST', `${driver.address}/workflows/start/execute`, { rpm: 3 })).toEqual({ status: 200, body: { running: true } });
    expect((await send('POST', `${observer.address}/workflows/start/execute`, { rpm: 4 })).status).toBe(404);
    // An Operation dispatched to the workflow's Capability runs through it too.
    const requested = await runCli(
      ['request', '--capability', `${CELL}BeltCapability`, '--operation-class', `${CELL}StartBeltOperation`, '--wait', '--store', store],
      { timeoutMs: 60_000 },
    );
    expect(requested.code).toBe(0);
    expect(requested.stdout).toContain('running');
    await waitFor('no setpoint', () => Promise.resolve(setpoints.length > 0));
    await new Promise((r) => setTimeout(r, 300));
    expect(setpoints).toEqual(['1.25']);
    expect(calls).toEqual([{ rpm: 3 }, { operation: expect.stringMatching(/^https?:/u) as unknown }]);
    for (const address of [driver.address, observer.address]) {
      answers.push(await (await fetch(`${address}/`)).text(), await (await fetch(`${address}/healthz`)).text());
    }

    await group.cleanup();
    const outputs = JSON.stringify(answers) + [driver, observer].map((s) => s.proc.stdout + s.proc.stderr).join('');
    expect(outputs).toContain('hasSpeed');
    for (const southbound of [t, `${host}:${port}`, `:${port}`, `"${port}"`, `${port},`]) expect(outputs).not.toContain(southbound);
  }, 90_000);

  test('should not be ready, nor take Operations, while the broker of its MQTT workflow does not answer', async () => {
    const t = topicPrefix();
    // A loopback port nothing listens on: the workflow's broker is down from the start.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const storeProc = group.cli('store', ['store', 'serve', '--memory', '--provision', '--port', '0']);
    const store = (await storeProc.firstLine(30_000)).trim();
    expect((await runCli(['ontology', 'load', ontology(t, { host: '127.0.0.1', port }), '--store', store])).code).toBe(0);

    const driver = await sidecar('driver', store);
    const deadline = Date.now() + 20_000;
    let readyz = await fetch(`${driver.address}/readyz`);
    while (readyz.status !== 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      readyz = await fetch(`${driver.address}/readyz`);
    }
    const body = await readyz.text();
    expect(readyz.status).toBe(503);
    expect(body).toContain('does not answer its health probe');
    const requested = await runCli(
      ['request', '--capability', `${CELL}BeltCapability`, '--operation-class', `${CELL}StartBeltOperation`, '--store', store],
      { timeoutMs: 60_000 },
    );
    expect(requested.code).not.toBe(0);
    await group.cleanup();
    expect(driver.proc.stdout + driver.proc.stderr).toContain('the broker of a workflow bound to MQTT is not connected');
    expect(body + driver.proc.stdout + driver.proc.stderr + requested.stdout + requested.stderr).not.toContain(`:${port}`);
  }, 90_000);
});
