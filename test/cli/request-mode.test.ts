import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildWorkflowEndpoint, mintCapabilityIri, mintServiceIri, mintWorkflowIri } from '../../src/iri/index.js';
import { OGM } from '../../src/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../../src/ontology/files.js';
import { provisionOntology } from '../../src/ontology/provision.js';
import { registerService, registerWorkflow, updateHeartbeat } from '../../src/registration/index.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { plant } from '../../src/vocab/index.js';
import { jsonLines, runCli } from '../support/sidecar-process.js';
import { buildCli } from './support/cli-process.js';

// A receiver that is only an event trigger: it acknowledges every Operation it is told of.
let receiver: Server;
// The traceparent header of each trigger the receiver got.
const traceparents: string[] = [];
let dir: string;
let dataDir: string;

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  receiver = createServer((req, res) => {
    traceparents.push(String(req.headers.traceparent));
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { operation_iri: operation } = JSON.parse(body) as { operation_iri: string };
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ operation, status: 'queued' }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'sm-request-mode-'));
  dataDir = join(dir, 'store');
  const store = await openEmbeddedStore({ dataDir });
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  const ogm = new OGM({ store });
  const serviceIri = mintServiceIri(plant.door1, address);
  await registerService(ogm, { resourceIri: plant.door1, serviceIri, serviceClass: plant.ControllerService, address });
  await registerWorkflow(ogm, {
    resourceIri: plant.door1,
    serviceIri,
    capabilityIri: mintCapabilityIri(plant.door1, 'open'),
    capabilityClass: plant.DoorOpeningCapability,
    workflowIri: mintWorkflowIri(serviceIri, 'open'),
    workflowClass: plant.OpenDoorWorkflow,
    endpoint: buildWorkflowEndpoint(address, 'open'),
  });
  await updateHeartbeat(ogm, serviceIri);
  // Closing releases the data dir lock, so the CLI can open it.
  await store.close();
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('request', () => {
  it('should log in its own mode, not in the watchdog mode its middleware runs in', async () => {
    const args = ['--capability', 'plant:DoorOpeningCapability', '--operation-class', 'plant:OpenDoorOperation'];
    const run = await runCli(['request', ...args, '--store', dataDir, '--log-level', 'debug'], { timeoutMs: 60_000 });
    expect([run.code, run.stderr]).toEqual([0, expect.any(String)]);
    const lines = jsonLines(run.stderr);
    expect(lines.find((l) => l.msg === 'operation requested')).toMatchObject({ mode: 'request', component: 'middleware' });
    expect(lines.filter((l) => 'mode' in l).map((l) => l.mode)).toEqual(lines.filter((l) => 'mode' in l).map(() => 'request'));
    // One `mode` key per line: a repeated key would parse as its last value and hide the first.
    for (const raw of run.stderr.split('\n').filter((l) => l.startsWith('{')))
      expect(raw.match(/"mode":/gu)?.length ?? 0).toBeLessThanOrEqual(1);
  }, 90_000);

  it('should continue the trace of --traceparent (or TRACEPARENT) on its log lines and the event trigger', async () => {
    const [trace, parent] = ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'];
    const args = ['--capability', 'plant:DoorOpeningCapability', '--operation-class', 'plant:OpenDoorOperation', '--store', dataDir];
    traceparents.length = 0;
    const run = await runCli(['request', ...args, '--traceparent', `00-${trace}-${parent}-01`, '--log-level', 'debug'], {
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(0);
    expect(jsonLines(run.stderr).find((l) => l.msg === 'operation requested')).toMatchObject({ traceId: trace });
    expect(traceparents[0]).toMatch(new RegExp(`^00-${trace}-(?!${parent})[0-9a-f]{16}-01$`, 'u'));
    // An invalid one from the environment is ignored with a warning: a new trace, and the request still goes out.
    const env = { TRACEPARENT: 'not-a-traceparent' };
    const fresh = await runCli(['request', ...args, '--log-level', 'warn'], { timeoutMs: 60_000, env });
    expect(fresh.code).toBe(0);
    expect(jsonLines(fresh.stderr).find((l) => l.traceparent === 'not-a-traceparent')).toMatchObject({ level: 40 });
    expect(traceparents[1]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/u);
    expect(traceparents[1]).not.toContain(trace);
  }, 90_000);
});
