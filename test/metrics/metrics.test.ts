import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDevice, workflowProxy, stateProxy, type DeviceClient } from '../../src/device/index.js';
import { MeasuredStore } from '../../src/store/measured-store.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { serveSparql } from '../../src/store/sparql-server.js';
import { plant } from '../../src/vocab/index.js';
import { parsePrometheusText, sampleValue, scrapeMetrics, type Family } from '../support/prometheus-text.js';
import { DOOR_STATE, middlewareSuite, OPEN, OPEN_REQUEST, until } from '../middleware/support/harness.js';

const G = 'urn:test:metrics';
const TOKEN = 'metrics-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

function scrape(base: string, headers: Record<string, string> = AUTH): Promise<Map<string, Family>> {
  return scrapeMetrics(`${base}/metrics`, headers);
}

/** A loopback HTTP device: `POST /open` answers, `POST /jam` fails, `GET /state/door` reads. */
async function httpDevice(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/jam') res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"jammed"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/state/door' ? '"open"' : '{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('/metrics of a middleware', () => {
  const suite = middlewareSuite('embedded', G);
  let device: { server: Server; url: string } | undefined;
  let client: DeviceClient | undefined;
  afterEach(async () => {
    await client?.close();
    await new Promise((resolve) => device?.server.close(resolve));
  });

  it('should require the token, and count store requests, heartbeats, Operations and proxied calls as they happen', async () => {
    device = await httpDevice();
    client = openDevice(device.url);
    const measured = new MeasuredStore(suite.store!);
    const door = suite.create({
      resourceIri: plant.door1,
      serviceClass: plant.ControllerService,
      httpToken: TOKEN,
      ogm: suite.newOgm(measured),
    });
    door.workflow(OPEN, workflowProxy(client, { ...OPEN, path: '/open' }));
    door.workflow({ ...OPEN, name: 'jam' }, workflowProxy(client, { ...OPEN, name: 'jam', path: '/jam' }));
    door.state(DOOR_STATE, stateProxy(client, { ...DOOR_STATE, path: '/state/door' }));
    door.registerCallback(() => 'opened');
    await door.start();
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, outgoingTokens: { default: TOKEN } });
    await robot.start();
    const base = door.address!;

    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { method: 'POST', headers: AUTH })).status).toBe(405);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const before = await scrape(base);
    expect(before.get('semantic_middleware_operations_total')?.type).toBe('counter');
    expect(before.get('semantic_middleware_store_request_duration_seconds')?.type).toBe('histogram');
    expect(before.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(sampleValue(before, 'semantic_middleware_device_up')).toBe(1);

    const op = await robot.request(OPEN_REQUEST);
    await expect(robot.waitForOperation(op, { timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'done' });
    const open = await fetch(`${base}/workflows/open/execute`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await open.json()).toEqual({ ok: true });
    expect((await fetch(`${base}/workflows/jam/execute`, { method: 'POST', headers: AUTH })).status).toBeGreaterThanOrEqual(500);
    expect(await (await fetch(`${base}/state/doorState`, { headers: AUTH })).json()).toBe('open');
    const heartbeats = sampleValue(before, 'semantic_middleware_heartbeats_total', { outcome: 'written' });
    await until(
      async () => sampleValue(await scrape(base), 'semantic_middleware_heartbeats_total', { outcome: 'written' }) > heartbeats,
      'a heartbeat counted',
    );

    const after = await scrape(base);
    const moved = (name: string, labels: Record<string, string> = {}): number =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('semantic_middleware_operations_total', { outcome: 'done', failure_kind: 'none' })).toBe(1);
    expect(moved('semantic_middleware_operation_claim_to_terminal_seconds_count', { outcome: 'done' })).toBe(1);
    expect(moved('semantic_middleware_calls_total', { call: 'workflow', name: 'open', outcome: 'ok' })).toBe(1);
    expect(moved('semantic_middleware_calls_total', { call: 'workflow', name: 'jam', outcome: 'error' })).toBe(1);
    expect(moved('semantic_middleware_calls_total', { call: 'state', name: 'doorState', outcome: 'ok' })).toBe(1);
    expect(moved('semantic_middleware_call_duration_seconds_count', { call: 'workflow', name: 'open' })).toBe(1);
    // The receiver's claim and terminal write (it claimed inside the trigger, reading nothing first), and a heartbeat at least.
    expect(moved('semantic_middleware_store_requests_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(moved('semantic_middleware_store_request_duration_seconds_count')).toBe(moved('semantic_middleware_store_requests_total'));
    expect(sampleValue(after, 'semantic_middleware_work_queue_depth')).toBe(0);
    expect(sampleValue(after, 'semantic_middleware_operations_in_flight')).toBe(0);
    // No label carries an Operation's IRI.
    for (const family of after.values()) for (const s of family.samples) expect(Object.values(s.labels).join(' ')).not.toContain(op);

    // The caller counts in a registry of its own: the door's Operation is not its own.
    const robotFamilies = await scrape(robot.address!, {});
    expect(sampleValue(robotFamilies, 'semantic_middleware_operations_total')).toBe(0);
    expect(sampleValue(robotFamilies, 'semantic_middleware_store_requests_total')).toBe(0);
  });

  it('should count failed Operations by failure kind', async () => {
    const door = suite.create({ resourceIri: plant.door1, serviceClass: plant.ControllerService, heartbeatInterval: null });
    door.workflow(OPEN, () => 'opened');
    door.registerCallback(() => {
      throw new Error('motor stalled');
    });
    await door.start();
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null });
    await robot.start();
    const op = await robot.request(OPEN_REQUEST);
    await expect(robot.waitForOperation(op, { timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'failed' });
    const families = await scrape(door.address!, {});
    expect(sampleValue(families, 'semantic_middleware_operations_total', { outcome: 'failed', failure_kind: 'error' })).toBe(1);
    expect(sampleValue(families, 'semantic_middleware_operation_claim_to_terminal_seconds_count', { outcome: 'failed' })).toBe(1);
  });

  it('should count and time the sweeps of a watchdog', async () => {
    const watchdog = suite.create({ mode: 'watchdog', httpToken: TOKEN });
    await watchdog.start();
    await until(
      async () => sampleValue(await scrape(watchdog.address!), 'semantic_middleware_sweeps_total', { outcome: 'done' }) >= 1,
      'first sweep',
    );
    const before = await scrape(watchdog.address!);
    await watchdog.sweep();
    const after = await scrape(watchdog.address!);
    const sweeps = (f: Map<string, Family>): number => sampleValue(f, 'semantic_middleware_sweeps_total', { outcome: 'done' });
    expect(sweeps(after) - sweeps(before)).toBe(1);
    expect(sampleValue(after, 'semantic_middleware_sweep_duration_seconds_count', { outcome: 'done' })).toBe(sweeps(after));
    expect(after.has('semantic_middleware_device_up')).toBe(false);
    expect((await fetch(`${watchdog.address!}/metrics`)).status).toBe(401);
  });
});

describe('/metrics of store serve', () => {
  it('should require the token and count the SPARQL requests served', async () => {
    const store = await openEmbeddedStore();
    const server = await serveSparql(store, { token: TOKEN });
    const base = server.url.replace(/\/sparql$/, '');
    const remote = openRemoteStore({ queryUrl: server.url, user: 'sm', password: TOKEN });
    try {
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const before = await scrape(base);
      await remote.ask('ASK { ?s ?p ?o }');
      await remote.update('INSERT DATA { <urn:a> <urn:b> <urn:c> }');
      const after = await scrape(base);
      const moved = (kind: string): number =>
        sampleValue(after, 'semantic_middleware_store_requests_total', { kind, outcome: 'ok' }) -
        sampleValue(before, 'semantic_middleware_store_requests_total', { kind, outcome: 'ok' });
      expect(moved('query')).toBe(1);
      expect(moved('update')).toBe(1);
      expect(sampleValue(after, 'semantic_middleware_store_request_duration_seconds_count', { kind: 'query' })).toBeGreaterThanOrEqual(1);
      expect(after.has('process_resident_memory_bytes')).toBe(true);
    } finally {
      await remote.close();
      await server.close();
      await store.close();
    }
  });
});

describe('parsePrometheusText', () => {
  it('should refuse what the format forbids', () => {
    const ok = '# HELP a_total A.\n# TYPE a_total counter\na_total{k="v\\"x"} 1\n';
    expect(parsePrometheusText(ok).get('a_total')?.samples[0]).toEqual({ name: 'a_total', labels: { k: 'v"x' }, value: 1 });
    expect(() => parsePrometheusText('# TYPE a counter\na 1')).toThrow('line feed');
    expect(() => parsePrometheusText('# TYPE a counter\na{k=v} 1\n')).toThrow('label syntax');
    expect(() => parsePrometheusText('# TYPE a counter\na one\n')).toThrow('not a float');
    expect(() => parsePrometheusText('b 1\n')).toThrow('no declared family');
    expect(() => parsePrometheusText('# TYPE a counter\na 1\na 2\n')).toThrow('duplicate');
    expect(() => parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n')).toThrow('cumulative');
  });
});
