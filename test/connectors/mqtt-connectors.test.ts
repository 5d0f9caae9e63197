import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import type { MqttClient } from 'mqtt';
import { SyncDirection, type SemanticMiddleware, type SemanticMiddlewareOptions } from '../../src/middleware/index.js';
import { brokerAddress, brokerUrl } from '../support/broker.js';
import { logSink, middlewareSuite, until } from '../middleware/support/harness.js';
import { DOOR, DOOR_ABOX, EX, getJson, parametersTurtle, put, TBOX, testClient, topicPrefix, type ParameterNode } from './support.js';

const G = 'urn:test:connectors:mqtt';
const motor = `${EX}motor1`;

describe.each(['embedded', 'remote'] as const)('MQTT connectors on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const test = brokerUrl() === undefined ? it.skip : suite.it;
  const clients: MqttClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  });

  /** Loads the TBox and `nodes` (plus the door → motor1), starts the door's controller, returns it with a test client. */
  async function cell(nodes: readonly ParameterNode[], options: Partial<SemanticMiddlewareOptions> = {}) {
    const turtle = `${TBOX}\n${DOOR_ABOX}\n<${DOOR}> <${EX}hasMotor> <${motor}> .\n${parametersTurtle(nodes)}`;
    await suite.store!.load(turtle, { graph: G, format: 'text/turtle' });
    const mw = suite.controller({ resourceIri: DOOR, ...options });
    await mw.start();
    const peer = await testClient();
    clients.push(peer.client);
    return { mw, peer, url: (path: string) => `${mw.address!}${path}` };
  }

  const speedAndOccupied = (t: string): ParameterNode[] => [
    {
      holder: motor,
      property: `${EX}hasSpeed`,
      mode: 'readwrite',
      topic: `${t}/speed`,
      setTopic: `${t}/speed_set`,
      valuePath: 'data.value',
    },
    { holder: DOOR, property: `${EX}isOccupied`, mode: 'read', topic: `${t}/occupied` },
  ];

  const connected = (mw: SemanticMiddleware) => async () => (await fetch(`${mw.address!}/readyz`)).status === 200;

  test('should serve the values published on the read topics, typed, with their age', async () => {
    const t = topicPrefix();
    const { mw, peer, url } = await cell(speedAndOccupied(t));
    await until(connected(mw), 'the connector to connect');
    await peer.client.publishAsync(`${t}/speed`, JSON.stringify({ data: { value: 1.5 }, unit: 'm/s' }));
    await peer.client.publishAsync(`${t}/occupied`, 'true');
    await until(async () => (await getJson(url('/parameters/isOccupied'))).body.value === true, 'the occupancy');
    await until(async () => (await getJson(url('/parameters/motor1.hasSpeed'))).body.value === 1.5, 'the speed');
    const { status, body } = await getJson(url('/parameters'));
    expect(status).toBe(200);
    expect(body.parameters).toEqual([
      expect.objectContaining({
        name: 'isOccupied',
        route: '/parameters/isOccupied',
        datatype: 'xsd:boolean',
        accessMode: 'read',
        writable: false,
        value: true,
      }),
      expect.objectContaining({
        name: 'motor1.hasSpeed',
        route: '/parameters/motor1.hasSpeed',
        datatype: 'xsd:float',
        accessMode: 'readwrite',
        writable: true,
        value: 1.5,
      }),
    ]);
    for (const p of body.parameters!) {
      expect(typeof p.ageMs).toBe('number');
      expect(Date.parse(p.receivedAt!)).toBeLessThanOrEqual(Date.now());
    }
    expect((await getJson(url('/parameters/nope'))).status).toBe(404);
    // The live value is never written to the graph: no literal holds it (a time stamp such as
    // "...:41.574Z" holds its digits, so the literal's own quotes are matched).
    expect(await suite.dump()).not.toMatch(/"1\.5(?:E0)?"/u);
  });

  test('should publish a setpoint to the set topic under driving wiring, and refuse read-only and wrong-typed ones', async () => {
    const t = topicPrefix();
    const { mw, peer, url } = await cell(speedAndOccupied(t));
    await peer.subscribe(`${t}/#`);
    await until(connected(mw), 'the connector to connect');
    const ok = await put(url('/parameters/motor1.hasSpeed'), { value: 2.5 });
    expect(ok.status).toBe(200);
    await until(() => (peer.received.get(`${t}/speed_set`)?.length ?? 0) > 0, 'the setpoint on the set topic');
    expect(peer.received.get(`${t}/speed_set`)).toEqual([JSON.stringify({ data: { value: 2.5 } })]);
    const readOnly = await put(url('/parameters/isOccupied'), { value: false });
    expect(readOnly).toEqual({ status: 405, body: { detail: 'parameter "isOccupied" is read-only' } });
    const wrongType = await put(url('/parameters/motor1.hasSpeed'), { value: 'fast' });
    expect(wrongType).toEqual({ status: 400, body: { detail: 'value for parameter "motor1.hasSpeed": expected xsd:float, got a string' } });
    expect((await put(url('/parameters/motor1.hasSpeed'), { speed: 1 })).status).toBe(422);
    await new Promise((r) => setTimeout(r, 200));
    expect(peer.received.get(`${t}/speed_set`)).toHaveLength(1);
    expect(peer.received.get(`${t}/occupied`)).toBeUndefined();
  });

  test.each([
    [
      'observing',
      { connectorSyncDirection: SyncDirection.TO_PERSISTENCE },
      2,
      'parameter "motor1.hasSpeed" is not writable here: this instance observes',
    ],
    [
      'inspecting',
      { autoregisterConnectors: false },
      1,
      'parameter "motor1.hasSpeed" is not writable here: this instance connects nothing',
    ],
  ] as const)('should refuse every write when %s, publishing nothing', async (_name, options, transports, detail) => {
    const t = topicPrefix();
    const calls: unknown[] = [];
    const { peer, url } = await cell(speedAndOccupied(t), { ...options, ensureTransport: (...args) => void calls.push(args) });
    // Inspecting announces only the HTTP listen address: no broker is connected.
    expect(calls).toHaveLength(transports);
    await peer.subscribe(`${t}/#`);
    const listed = (await getJson(url('/parameters'))).body.parameters!;
    expect(listed.map((p) => p.writable)).toEqual([false, false]);
    expect(await put(url('/parameters/motor1.hasSpeed'), { value: 2.5 })).toEqual({ status: 405, body: { detail } });
    await new Promise((r) => setTimeout(r, 300));
    expect(peer.received.size).toBe(0);
  });

  test('should refuse malformed, wrong-typed and oversized payloads with a reason and keep serving the last good value', async () => {
    const t = topicPrefix();
    const { mw, peer, url } = await cell(speedAndOccupied(t));
    await until(connected(mw), 'the connector to connect');
    const speed = url('/parameters/motor1.hasSpeed');
    await peer.client.publishAsync(`${t}/speed`, JSON.stringify({ data: { value: 3 } }));
    await until(async () => (await getJson(speed)).body.value === 3, 'the first speed');
    const refused = async (payload: string, reason: string | RegExp): Promise<void> => {
      await peer.client.publishAsync(`${t}/speed`, payload);
      const matches = (text: string | undefined): boolean => (typeof reason === 'string' ? text === reason : reason.test(text ?? ''));
      await until(async () => matches((await getJson(speed)).body.lastRejection?.reason), `the refusal: ${reason}`);
      expect((await getJson(speed)).body.value).toBe(3);
    };
    await refused('{"data": {"value": ', 'payload is not JSON');
    await refused(JSON.stringify({ data: { value: 'fast' } }), 'expected xsd:float, got a string');
    await refused(JSON.stringify({ data: {} }), "payload has no value at the parameter's value path");
    await refused(JSON.stringify({ data: { value: 1 }, pad: 'x'.repeat(70_000) }), /^payload of 700\d\d bytes exceeds the limit of 65536$/);
    await peer.client.publishAsync(`${t}/occupied`, 'yes');
    await until(async () => (await getJson(url('/parameters/isOccupied'))).body.lastRejection !== null, 'the occupancy refusal');
    expect((await getJson(url('/parameters/isOccupied'))).body).toMatchObject({
      value: null,
      lastRejection: { reason: 'payload is not a JSON scalar' },
    });
  });

  test('should leave out parameters with hostile topics and serve odd but valid ones exactly', async () => {
    const t = topicPrefix();
    const odd = `${t}/"quoted" }> \\ ünï {?x}/ space`;
    const { mw, peer, url } = await cell([
      { holder: motor, property: `${EX}hasSpeed`, mode: 'readwrite', topic: '#', setTopic: `${t}/+` },
      { holder: DOOR, property: `${EX}isOccupied`, topic: `${t}/+/occupied` },
      { holder: motor, property: `${EX}isOccupied`, topic: `${t}/line\nbreak` },
      { holder: DOOR, property: `${EX}hasLabel`, topic: odd },
    ]);
    expect((await getJson(url('/parameters'))).body.parameters!.map((p) => p.name)).toEqual(['hasLabel']);
    await until(connected(mw), 'the connector to connect');
    await peer.client.publishAsync(odd, 'label "one"');
    await until(async () => (await getJson(url('/parameters/hasLabel'))).body.value === 'label "one"', 'the label');
  });

  test('should call ensureTransport exactly once per broker', async () => {
    const t = topicPrefix();
    const { port } = brokerAddress();
    const calls: [string, number][] = [];
    const nodes: ParameterNode[] = [
      ...speedAndOccupied(t),
      { holder: DOOR, property: `${EX}hasLabel`, topic: `${t}/label`, host: 'localhost' },
    ];
    const { url } = await cell(nodes, { ensureTransport: (host, p) => void calls.push([host, p]) });
    expect((await getJson(url('/parameters'))).body.parameters).toHaveLength(3);
    // The HTTP listen address first, then each broker once (two parameters share 127.0.0.1).
    expect(calls[0]).toEqual(['127.0.0.1', 0]);
    expect(calls.slice(1).sort()).toEqual([
      ['127.0.0.1', port],
      ['localhost', port],
    ]);
  });

  test('should say not ready while a broker it needs is unreachable', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const { url } = await cell([{ holder: DOOR, property: `${EX}isOccupied`, topic: 'x/occupied', port: closedPort }]);
    expect((await fetch(url('/readyz'))).status).toBe(503);
    expect((await getJson(url('/parameters/isOccupied'))).body.value).toBeNull();
  });

  test('should keep broker, port, topics and value paths out of every northbound answer, error, activity entry and info log', async () => {
    const t = topicPrefix();
    const { port } = brokerAddress();
    const sink = logSink('info');
    const nodes: ParameterNode[] = [
      {
        holder: motor,
        property: `${EX}hasSpeed`,
        mode: 'readwrite',
        topic: `${t}/speed`,
        setTopic: `${t}/speed_set`,
        valuePath: `${t}-envelope.v`,
        host: 'localhost',
      },
      { holder: DOOR, property: `${EX}isOccupied`, mode: 'read', topic: `${t}/occupied`, host: 'localhost' },
      { holder: DOOR, property: `${EX}hasLabel`, topic: `${t}/#`, host: 'localhost' },
    ];
    const { mw, peer, url } = await cell(nodes, { logger: sink.logger, activityFeed: true });
    await until(connected(mw), 'the connector to connect');
    await peer.client.publishAsync(`${t}/speed`, JSON.stringify({ [`${t}-envelope`]: { v: 4 } }));
    await peer.client.publishAsync(`${t}/occupied`, 'not json');
    await until(async () => (await getJson(url('/parameters/motor1.hasSpeed'))).body.value === 4, 'the speed');
    const outputs: unknown[] = [
      await getJson(url('/parameters')),
      await getJson(url('/parameters/motor1.hasSpeed')),
      await getJson(url('/parameters/isOccupied')),
      await getJson(url('/parameters/hasLabel')),
      await put(url('/parameters/motor1.hasSpeed'), { value: 'x' }),
      await put(url('/parameters/isOccupied'), { value: true }),
      await put(url('/parameters/motor1.hasSpeed'), { value: 5 }),
      await getJson(url('/activity')),
      await getJson(url('/readyz')),
    ];
    await mw.stop();
    const text = JSON.stringify(outputs) + JSON.stringify(sink.lines());
    expect(text).toContain('motor1.hasSpeed');
    for (const secret of [t, 'localhost', `:${port}`, `"${port}"`, `${port},`, 'envelope']) expect(text).not.toContain(secret);
  });
});
