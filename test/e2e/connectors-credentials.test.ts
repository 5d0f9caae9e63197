import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { inf } from '../../src/vocab/index.js';
import { brokerUrl } from '../support/broker.js';
import { ProcessGroup, type Proc } from '../support/sidecar-process.js';
import { startSecuredBroker, type SecuredBroker } from '../connectors/secured-broker.js';
import { lit, TBOX, topicPrefix } from '../connectors/support.js';

const BELT = 'https://example.org/cell#belt1';

/**
 * The sidecar reaches a broker that wants a password over TLS with the broker settings from the
 * environment, and never writes the password (or the southbound address) into its output.
 */
describe('semantic-sidecar start with broker credentials and TLS from the environment', () => {
  const test = brokerUrl() === undefined ? it.skip : it;
  const group = new ProcessGroup();
  const dir = mkdtempSync(join(tmpdir(), 'sm-e2e-broker-credentials-'));
  let broker: SecuredBroker;
  const clients: MqttClient[] = [];
  beforeAll(() => {
    if (brokerUrl() !== undefined) broker = startSecuredBroker();
  }, 30_000);
  afterEach(() => group.cleanup());
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const sidecar = async (name: string, ontology: string, env: NodeJS.ProcessEnv): Promise<{ proc: Proc; address: string }> => {
    const cwd = mkdtempSync(join(dir, `${name}-`));
    const proc = group.cli(name, ['start', '--resource', BELT, '--port', '0', '--store', 'memory', '--log-level', 'debug'], {
      cwd,
      env: { SIDECAR_ONTOLOGY_FILES: ontology, ...env },
    });
    const { address } = JSON.parse(await proc.firstLine(30_000)) as { address: string };
    return { proc, address };
  };

  test('should serve the values of a TLS broker with a password file and CA file, and stay not ready with a wrong password', async () => {
    const t = topicPrefix();
    const ontology = join(dir, 'cell.ttl');
    writeFileSync(
      ontology,
      `<https://example.org/cell> a <http://www.w3.org/2002/07/owl#Ontology> .
${TBOX}
<${BELT}> <urn:test:connectors#isOccupied> [ <${inf.accessMode}> "read" ; <${inf.hasMQTTTopic}> ${lit(`${t}/occupied`)} ;
  <${inf.hasMQTTBrokerIP}> ${lit(broker.tls.host)} ; <${inf.hasMQTTBrokerPort}> ${broker.tls.port} ] .
`,
    );
    const wrong = `wrong-${topicPrefix()}`;
    const good = await sidecar('good', ontology, {
      SIDECAR_BROKER_USERNAME: broker.username,
      SIDECAR_BROKER_PASSWORD_FILE: broker.passwordFile,
      SIDECAR_BROKER_CA_FILE: broker.caFile,
    });
    const bad = await sidecar('bad', ontology, {
      SIDECAR_BROKER_USERNAME: broker.username,
      SIDECAR_BROKER_PASSWORD: wrong,
      SIDECAR_BROKER_CA_FILE: broker.caFile,
    });
    const mqtt = await import('mqtt');
    const peer = await mqtt.connectAsync({
      ...broker.tls,
      protocol: 'mqtts',
      ca: broker.ca,
      username: broker.username,
      password: broker.password,
      reconnectPeriod: 0,
    });
    clients.push(peer);

    const deadline = Date.now() + 15_000;
    while ((await fetch(`${good.address}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`not ready\n${good.proc.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await peer.publishAsync(`${t}/occupied`, 'true', { retain: true });
    const value = async (): Promise<unknown> =>
      ((await (await fetch(`${good.address}/parameters/isOccupied`)).json()) as { value: unknown }).value;
    while ((await value()) !== true) {
      if (Date.now() > deadline) throw new Error(`no value\n${good.proc.tail()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    while (!bad.proc.logs().some((l) => l.msg === 'connector cannot connect')) {
      if (Date.now() > deadline) throw new Error(`no warning\n${bad.proc.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const readyz = await fetch(`${bad.address}/readyz`);
    expect(readyz.status).toBe(503);
    expect(bad.proc.logs().find((l) => l.msg === 'connector cannot connect')).toMatchObject({
      level: 40,
      reason: expect.stringMatching(/refused the user name or password/u) as unknown,
    });

    await group.cleanup();
    // Debug level included: neither password is in any line of either process.
    const outputs = good.proc.stdout + good.proc.stderr + bad.proc.stdout + bad.proc.stderr + (await readyz.text());
    expect(outputs).toContain('connector connected');
    for (const secret of [broker.password, wrong]) expect(outputs).not.toContain(secret);
  }, 60_000);
});
