import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plant } from '../../src/vocab/index.js';
import { brokerUrl } from '../support/broker.js';
import { middlewareSuite, until } from '../middleware/support/harness.js';
import { EX, parametersTurtle, TBOX, topicPrefix } from './support.js';

const G = 'urn:test:connectors:restart';
const MOSQUITTO = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => existsSync(p));

/** A free loopback port (listened on, then released). */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** A private Mosquitto in the foreground on `port`, its own config in `dir`; resolves once it listens. */
async function startBroker(dir: string, port: number): Promise<ChildProcess> {
  const config = join(dir, 'mosquitto.conf');
  writeFileSync(
    config,
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n${process.getuid?.() === 0 ? 'user root\n' : ''}`,
  );
  const broker = spawn(MOSQUITTO!, ['-c', config], { stdio: 'ignore' });
  const mqtt = await import('mqtt');
  await until(async () => {
    try {
      await (await mqtt.connectAsync({ host: '127.0.0.1', port, reconnectPeriod: 0, connectTimeout: 500 })).endAsync();
      return true;
    } catch {
      return false;
    }
  }, 'the broker to listen');
  return broker;
}

const stopBroker = (broker: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (broker.exitCode !== null) return resolve();
    broker.once('exit', () => resolve());
    broker.kill('SIGKILL');
  });

describe('MQTT connectors across a broker restart', () => {
  const suite = middlewareSuite('embedded', G);
  const test = brokerUrl() === undefined || MOSQUITTO === undefined ? it.skip : suite.it;
  const brokers: ChildProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(brokers.splice(0).map(stopBroker));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  test('should be not ready while its broker is down, refuse writes meanwhile, and resume values after the restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-broker-restart-'));
    dirs.push(dir);
    const port = await freePort();
    brokers.push(await startBroker(dir, port));
    const t = topicPrefix();
    const nodes = [{ holder: plant.door1, property: `${EX}hasSpeed`, mode: 'readwrite', topic: `${t}/speed`, setTopic: `${t}/set`, port }];
    await suite.store!.load(`${TBOX}\n${parametersTurtle(nodes)}`, { graph: G, format: 'text/turtle' });
    const mw = suite.controller();
    await mw.start();
    const ready = async (): Promise<boolean> => (await fetch(`${mw.address!}/readyz`)).status === 200;
    const value = async (): Promise<unknown> =>
      ((await (await fetch(`${mw.address!}/parameters/hasSpeed`)).json()) as { value: unknown }).value;
    const mqtt = await import('mqtt');
    const publish = async (payload: string): Promise<void> => {
      const client = await mqtt.connectAsync({ host: '127.0.0.1', port, reconnectPeriod: 0 });
      await client.publishAsync(`${t}/speed`, payload);
      await client.endAsync();
    };
    await until(ready, 'ready with the broker up');
    await publish('1.25');
    await until(async () => (await value()) === 1.25, 'the first value');

    await stopBroker(brokers.pop()!);
    await until(async () => !(await ready()), 'not ready with the broker down');
    const refused = await fetch(`${mw.address!}/parameters/hasSpeed`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"value": 2}',
    });
    expect(refused.status).toBe(503);
    expect(await refused.text()).not.toContain(String(port));
    expect(await value()).toBe(1.25);

    brokers.push(await startBroker(dir, port));
    await until(ready, 'ready again after the restart', 20_000);
    await publish('3.5');
    await until(async () => (await value()) === 3.5, 'values after the restart');
  }, 40_000);
});
