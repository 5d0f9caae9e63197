import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inf } from '../../src/vocab/index.js';
import { brokerUrl } from '../support/broker.js';
import { connectorCell, type RunningSidecar } from '../connectors/e2e-support.js';
import { startSecuredBroker, type SecuredBroker } from '../connectors/secured-broker.js';
import { lit, TBOX, topicPrefix } from '../connectors/support.js';

const BELT = 'https://example.org/cell#belt1';

/**
 * The sidecar reaches a broker that wants a password over TLS with the broker settings from the
 * environment, and never writes the password (or the southbound address) into its output.
 */
describe('semantic-sidecar start with broker credentials and TLS from the environment', () => {
  const cell = connectorCell('sm-e2e-broker-credentials-');
  const { test, group, dir, clients } = cell;
  let broker: SecuredBroker;
  beforeAll(() => {
    if (brokerUrl() !== undefined) broker = startSecuredBroker();
  }, 30_000);
  afterAll(() => broker?.stop());

  const sidecar = (name: string, ontology: string, env: NodeJS.ProcessEnv): Promise<RunningSidecar> =>
    cell.sidecar(name, ['--resource', BELT, '--port', '0', '--store', 'memory', '--log-level', 'debug'], {
      env: { SIDECAR_ONTOLOGY_FILES: ontology, ...env },
    });

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
