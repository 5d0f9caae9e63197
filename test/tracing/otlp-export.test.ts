/**
 * OpenTelemetry export: two sidecars configured with an OTLP endpoint (a real loopback HTTP
 * receiver here) export the spans of a dispatched Operation as OTLP JSON: door1's local API call
 * and its dispatch, robot1's event trigger, its run of the Operation and its device call, all in
 * the caller's trace, each the child of the one before.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plant } from '../../src/vocab/index.js';
import { buildCli } from '../cli/support/cli-process.js';
import { servedStore, startDoor1, startRobot1, type CellResource, type CellStore } from '../e2e/support/cell.js';
import { unixRequest } from '../e2e/support/unix-http.js';
import { ProcessGroup } from '../support/sidecar-process.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const IMPORT_LOG = fileURLToPath(new URL('../cli/support/import-log.mjs', import.meta.url));

/** A span as OTLP/JSON carries it (ids in hex). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
  status?: { code?: number };
}
interface ExportRequest {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** A span with the `service.instance.id` of the process that exported it. */
type Received = OtlpSpan & { instance: string | undefined };

const dir = mkdtempSync(join(tmpdir(), 'sm-otlp-'));
const group = new ProcessGroup();
const requests: { contentType: string | undefined; path: string | undefined; body: ExportRequest }[] = [];
let receiver: Server;
let store: CellStore;
let door1: CellResource;
let robot1: CellResource;

function received(): Received[] {
  return requests.flatMap(({ body }) =>
    body.resourceSpans.flatMap((rs) => {
      const instance = rs.resource.attributes.find((a) => a.key === 'service.instance.id')?.value.stringValue;
      return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ ...span, instance })));
    }),
  );
}

async function spansWhen(probe: (spans: Received[]) => boolean): Promise<Received[]> {
  const until = Date.now() + 30_000;
  while (!probe(received())) {
    if (Date.now() > until) throw new Error(`spans not received; got ${JSON.stringify(received().map((s) => s.name))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return received();
}

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  receiver = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      requests.push({ contentType: req.headers['content-type'], path: req.url, body: JSON.parse(text) as ExportRequest });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  // Batches sent within a tenth of a second instead of five, so the test need not wait.
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
  store = await servedStore(group);
  door1 = await startDoor1(group, join(dir, 'door1'), store, { env });
  robot1 = await startRobot1(group, join(dir, 'robot1'), store, {
    env: { ...env, NODE_OPTIONS: `--import=${IMPORT_LOG}`, IMPORT_LOG: join(dir, 'robot1-imports.log') },
  });
}, 120_000);

afterAll(async () => {
  await group.cleanup();
  await store?.close();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('OpenTelemetry export (tracing.otlpEndpoint)', () => {
  it('should export the spans of a dispatched Operation in the caller trace, each the child of the one before', async () => {
    const traceparent = `00-${TRACE}-${PARENT}-01`;
    const created = await unixRequest(door1.sidecar.localApiSocket!, 'POST', '/operations', {
      body: { capabilityClass: plant.PickAndPlaceCapability, operationClass: plant.PickAndPlaceOperation },
      headers: { traceparent },
    });
    expect(created.status).toBe(201);
    const operation = (created.json as { operation: string }).operation;
    const status = await unixRequest(
      door1.sidecar.localApiSocket!,
      'GET',
      `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=20000`,
      {
        timeoutMs: 30_000,
      },
    );
    expect((status.json as { status: string }).status).toBe('done');

    // Each process sends its own batches, each span once it ends: wait for all of them.
    const last = (all: Received[], name: string) => all.some((s) => s.traceId === TRACE && s.name === name);
    const spans = (
      await spansWhen((all) => ['POST /operations', 'request', 'operation', 'device POST /pick'].every((n) => last(all, n)))
    ).filter((s) => s.traceId === TRACE);
    const one = (name: string | RegExp, instance: string): Received => {
      const found = spans.filter((s) => (typeof name === 'string' ? s.name === name : name.test(s.name)) && s.instance === instance);
      expect(found).toHaveLength(1);
      return found[0]!;
    };
    const api = one('POST /operations', plant.door1);
    const dispatch = one('request', plant.door1);
    const trigger = one(/^POST \/workflows\/.+\/execute$/u, plant.robot1);
    const run = one('operation', plant.robot1);
    const device = one('device POST /pick', plant.robot1);
    expect([api, dispatch, trigger, run, device].map((s) => s.parentSpanId)).toEqual([
      PARENT,
      api.spanId,
      dispatch.spanId,
      trigger.spanId,
      run.spanId,
    ]);
    // OTLP span kinds: 2 server, 4 producer, 5 consumer, 3 client.
    expect([api, dispatch, trigger, run, device].map((s) => s.kind)).toEqual([2, 4, 2, 5, 3]);
    expect(run.attributes).toContainEqual({ key: 'sm.operation', value: { stringValue: operation } });
    expect(trigger.attributes).toContainEqual({ key: 'url.path', value: { stringValue: '/workflows/event_trigger/execute' } });
    expect(requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/json')).toBe(true);
    expect(readFileSync(join(dir, 'robot1-imports.log'), 'utf8')).toContain('/@opentelemetry/exporter-trace-otlp-http/');
  }, 90_000);

  it('should export a direct workflow call, served by the fast lane, named by its route', async () => {
    const trace = 'a'.repeat(32);
    const answer = await fetch(`${robot1.sidecar.address}/workflows/pick/execute`, {
      method: 'POST',
      headers: { traceparent: `00-${trace}-${PARENT}-01`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answer.status).toBe(200);
    const inTrace = (all: Received[]) => all.filter((s) => s.traceId === trace);
    const spans = inTrace(await spansWhen((all) => inTrace(all).length === 2));
    const call = spans.find((s) => s.name === 'POST /workflows/:name/execute');
    expect(call?.parentSpanId).toBe(PARENT);
    expect(spans.find((s) => s.name === 'device POST /pick')?.parentSpanId).toBe(call!.spanId);
  }, 60_000);
});
