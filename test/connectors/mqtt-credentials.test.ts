import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { MqttClient } from 'mqtt';
import { checkConnectorCredentials, credentialsFor } from '../../src/connectors/credentials.js';
import type { ConnectorCredentials } from '../../src/middleware/index.js';
import { plant } from '../../src/vocab/index.js';
import { brokerUrl } from '../support/broker.js';
import { logSink, middlewareSuite, until } from '../middleware/support/harness.js';
import { startSecuredBroker, type SecuredBroker } from './secured-broker.js';
import { EX, parametersTurtle, TBOX, topicPrefix } from './support.js';

const G = 'urn:test:connectors:credentials';

describe('connectorCredentials', () => {
  it('should key entries by normalized host:port and fall back to the default', () => {
    const resolved = checkConnectorCredentials({
      default: { username: 'plant' },
      byAddress: { 'Broker.Plant.local:8883': { username: 'edge', tls: true }, '[::1]:1883': { username: 'v6' } },
    });
    expect(credentialsFor(resolved, { host: 'broker.plant.local', port: 8883 })?.username).toBe('edge');
    expect(credentialsFor(resolved, { host: '::1', port: 1883 })?.username).toBe('v6');
    expect(credentialsFor(resolved, { host: 'other', port: 1883 })?.username).toBe('plant');
    expect(credentialsFor(undefined, { host: 'other', port: 1883 })).toBeUndefined();
  });

  it('should refuse unusable entries without showing the secret', () => {
    const secret = 'hunter2-do-not-show';
    const attempts: unknown[] = [
      { default: { password: secret } },
      { default: { username: 'u', password: 42 } },
      { default: { username: 'u', ca: secret } },
      { default: { cert: `-----BEGIN ${secret}` } },
      { default: { username: 'u', token: secret } },
      { byAddress: { [`${secret}`]: { username: 'u' } } },
      { byAddress: { 'h:1883': { username: 'u' }, 'H:1883': { username: 'v' } } },
      'sidecar:secret',
    ];
    for (const attempt of attempts) {
      let message = '';
      try {
        checkConnectorCredentials(attempt);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/connectorCredentials/u);
      if (!JSON.stringify(attempt).includes(`"${secret}":`)) expect(message).not.toContain(secret);
    }
  });
});

describe('MQTT connectors with broker credentials and TLS', () => {
  const suite = middlewareSuite('embedded', G);
  const test = brokerUrl() === undefined ? it.skip : suite.it;
  let broker: SecuredBroker;
  const clients: MqttClient[] = [];
  beforeAll(() => {
    if (brokerUrl() !== undefined) broker = startSecuredBroker();
  }, 30_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    broker?.stop();
  });

  /** A publisher on the password listener. */
  async function publisher(): Promise<MqttClient> {
    const mqtt = await import('mqtt');
    const client = await mqtt.connectAsync({ ...broker.auth, username: broker.username, password: broker.password, reconnectPeriod: 0 });
    clients.push(client);
    return client;
  }

  /** door1 with one read parameter on `at`, started with `credentials`; its log lines at debug level. */
  async function door(at: { host: string; port: number }, credentials: ConnectorCredentials) {
    const t = topicPrefix();
    const node = { holder: plant.door1, property: `${EX}isOccupied`, mode: 'read', topic: `${t}/occupied`, ...at };
    await suite.store!.load(`${TBOX}\n${parametersTurtle([node])}`, { graph: G, format: 'text/turtle' });
    const sink = logSink('debug');
    const mw = suite.controller({ logger: sink.logger, connectorCredentials: credentials });
    await mw.start();
    const ready = async (): Promise<boolean> => (await fetch(`${mw.address!}/readyz`)).status === 200;
    const value = async (): Promise<unknown> =>
      ((await (await fetch(`${mw.address!}/parameters/isOccupied`)).json()) as { value: unknown }).value;
    return { mw, topic: `${t}/occupied`, sink, ready, value };
  }

  const flows = async (cell: Awaited<ReturnType<typeof door>>): Promise<void> => {
    await until(cell.ready, 'the connector to connect');
    const pub = await publisher();
    await pub.publishAsync(cell.topic, 'true', { retain: true });
    await until(async () => (await cell.value()) === true, 'the published value');
  };

  const expectNoSecretIn = (lines: unknown, ...secrets: string[]): void => {
    const text = JSON.stringify(lines);
    for (const s of secrets) expect(text).not.toContain(s);
  };

  test('should connect with the user name and password of the default entry', async () => {
    const cell = await door(broker.auth, { default: { username: broker.username, password: broker.password } });
    await flows(cell);
    expectNoSecretIn(cell.sink.lines(), broker.password);
  });

  test('should connect over TLS, verifying the broker against the CA, with a per-broker entry winning over the default', async () => {
    const cell = await door(broker.tls, {
      default: { username: broker.username, password: 'wrong-default' },
      byAddress: { [`${broker.tls.host}:${broker.tls.port}`]: { username: broker.username, password: broker.password, ca: broker.ca } },
    });
    await flows(cell);
    expectNoSecretIn(cell.sink.lines(), broker.password, 'wrong-default', 'BEGIN CERTIFICATE');
  });

  test('should stay not ready with a clear warning when the broker refuses the password, and never log it', async () => {
    const wrong = `wrong-${topicPrefix()}`;
    const cell = await door(broker.auth, { default: { username: broker.username, password: wrong } });
    await until(() => cell.sink.lines().some((l) => l.msg === 'connector cannot connect'), 'the warning');
    const res = await fetch(`${cell.mw.address!}/readyz`);
    expect(res.status).toBe(503);
    const warning = cell.sink.lines().find((l) => l.msg === 'connector cannot connect')!;
    expect(warning).toMatchObject({ level: 40, reason: expect.stringMatching(/refused the user name or password/u) as unknown });
    // Debug lines included: the secret is in no line at any level, nor is the southbound address in a warning.
    expectNoSecretIn([cell.sink.lines(), await res.text()], wrong, broker.password);
    expectNoSecretIn(warning, String(broker.auth.port), cell.topic);
    expect(cell.sink.lines().filter((l) => l.msg === 'connector cannot connect')).toHaveLength(1);
  });

  test('should stay not ready when the TLS certificate does not verify (no CA given)', async () => {
    const cell = await door(broker.tls, { default: { username: broker.username, password: broker.password, tls: true } });
    await until(() => cell.sink.lines().some((l) => l.msg === 'connector cannot connect'), 'the warning');
    expect(await cell.ready()).toBe(false);
    const warning = cell.sink.lines().find((l) => l.msg === 'connector cannot connect')!;
    expect(warning.reason).toMatch(/TLS certificate was not accepted/u);
    expectNoSecretIn(cell.sink.lines(), broker.password);
  });
});
