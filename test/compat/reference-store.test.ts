import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import ParsingClient from 'sparql-http-client/ParsingClient.js';
import type { ResourceStatus } from '../../src/cli/status-command.js';
import { buildWorkflowEndpoint, mintCapabilityIri, mintServiceIri, mintWorkflowIri } from '../../src/iri/index.js';
import { OGM } from '../../src/ogm/index.js';
import {
  createOperation,
  createPossession,
  registerService,
  registerWorkflow,
  resolveDispatchTarget,
  updateHeartbeat,
} from '../../src/registration/index.js';
import { openRemoteStore, type RemoteStore } from '../../src/store/remote-store.js';
import { DEFAULT_DATA_GRAPH } from '../../src/vocab/defaults.js';
import { OperationStatus, plant, svc } from '../../src/vocab/index.js';
import { execFile } from 'node:child_process';
import { buildCli, BIN, cli, ROOT, serve, type ServeProcess } from '../cli/support/cli-process.js';
import { DOOR1_OPERATION, PART, REFERENCE_QUERIES, referenceServiceWrite } from './fixtures/reference-queries.js';

/**
 * One store shared by a Python-reference-style middleware and this project: a running
 * `semantic-sidecar store serve`, written by the TypeScript side and read with the reference's
 * query texts (sent verbatim over the SPARQL 1.1 Protocol, naming no graph), and written the
 * reference's way and read by `discover`, `status`, the watchdog and dispatch. A stock SPARQL
 * client (sparql-http-client) runs CONSTRUCT and GRAPH-less SELECT against it.
 */

let server: ServeProcess;
let store: RemoteStore;
let ogm: OGM;

const FRESH = new Date('2026-10-01T12:00:00Z');
const STALE = new Date('2026-01-01T12:00:00Z');
const door1Service = (port: number): string => mintServiceIri(plant.door1, `http://127.0.0.1:${port}`);
const door1Capability = mintCapabilityIri(plant.door1, 'open');
let possessionState: string;

/** door1: a Service with a fresh and one with a stale heartbeat, both realizing `open`; a queued Operation; robot1 holds a part. */
async function writeTheTypeScriptWay(): Promise<void> {
  for (const [port, heartbeat] of [
    [8001, FRESH],
    [8002, STALE],
  ] as const) {
    const address = `http://127.0.0.1:${port}`;
    const serviceIri = door1Service(port);
    await registerService(ogm, { resourceIri: plant.door1, serviceIri, serviceClass: plant.ControllerService, address });
    await registerWorkflow(ogm, {
      resourceIri: plant.door1,
      serviceIri,
      capabilityIri: door1Capability,
      capabilityClass: plant.DoorOpeningCapability,
      workflowIri: mintWorkflowIri(serviceIri, 'open'),
      workflowClass: plant.OpenDoorWorkflow,
      endpoint: buildWorkflowEndpoint(address, 'open'),
    });
    await updateHeartbeat(ogm, serviceIri, { timestamp: heartbeat });
  }
  await createOperation(ogm, { operationIri: DOOR1_OPERATION, operationClass: plant.OpenDoorOperation, capabilityIri: door1Capability });
  await ogm.create({ iri: PART, type: plant.Part });
  possessionState = await createPossession(ogm, { workpieceIri: PART, possessorIri: plant.robot1 });
}

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  server = await serve(['--memory', '--provision', '--port', '0']);
  const load = cli(['ontology', 'load', `${ROOT}/ontology/examples/plant.ttl`, '--store', server.url]);
  expect(load.status).toBe(0);
  store = openRemoteStore({ queryUrl: server.url });
  ogm = new OGM({ store });
  await writeTheTypeScriptWay();
}, 120_000);

afterAll(async () => {
  await store?.close();
  expect((await server?.stop())?.code).toBe(0);
});

/**
 * Runs the CLI without blocking this process (a blocked event loop would leave the clients'
 * idle keep-alive connections open after the server closed them).
 */
function runCli(args: string[]): Promise<{ status: number; stdout: string }> {
  const { SM_STORE: _store, LOG_LEVEL: _level, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 30_000 }, (error, stdout) =>
      resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout }),
    );
  });
}

/** Runs a reference query verbatim as a GET, as SPARQLWrapper does, and returns the values of `name`. */
async function referenceSelect(query: string, name: string): Promise<string[]> {
  const res = await fetch(`${server.url}?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/sparql-results+json' } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { results: { bindings: Record<string, { value: string }>[] } };
  return body.results.bindings.map((row) => row[name]!.value).sort();
}

async function referenceAsk(query: string): Promise<boolean> {
  const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: query });
  return ((await res.json()) as { boolean: boolean }).boolean;
}

describe("the reference's reads find what the TypeScript side wrote", () => {
  it('should find the stale Service by its xsd:dateTime heartbeat', async () => {
    expect(await referenceSelect(REFERENCE_QUERIES.staleServices, 'service')).toEqual([door1Service(8002)]);
  });

  it('should discover the Services realizing a Capability of the class', async () => {
    expect(await referenceSelect(REFERENCE_QUERIES.discoverDoorOpening, 'service')).toEqual([door1Service(8001), door1Service(8002)]);
    expect(await referenceSelect(REFERENCE_QUERIES.discoverDoorOpening, 'capability')).toEqual([door1Capability, door1Capability]);
  });

  it("should find an Operation's Workflows and a resource's queued Operations", async () => {
    expect(await referenceSelect(REFERENCE_QUERIES.operationWorkflow, 'workflow')).toEqual([
      mintWorkflowIri(door1Service(8001), 'open'),
      mintWorkflowIri(door1Service(8002), 'open'),
    ]);
    expect(await referenceSelect(REFERENCE_QUERIES.resourceOperations, 'operation')).toEqual([DOOR1_OPERATION]);
    expect(await referenceSelect(REFERENCE_QUERIES.resourceOperations, 'status')).toEqual(['queued']);
  });

  it("should find a resource's Services", async () => {
    expect(await referenceSelect(REFERENCE_QUERIES.resourceServices, 'service')).toEqual([door1Service(8001), door1Service(8002)]);
    expect(await referenceSelect(REFERENCE_QUERIES.reachableResourceServices, 'service')).toEqual([door1Service(8001), door1Service(8002)]);
  });

  it('should find the possession and the complementary handover abilities', async () => {
    expect(await referenceSelect(REFERENCE_QUERIES.possession, 'state')).toEqual([possessionState]);
    expect(await referenceAsk(REFERENCE_QUERIES.conveyor1ComplementsPut)).toBe(true);
    expect(await referenceAsk(REFERENCE_QUERIES.conveyor2ComplementsPut)).toBe(false);
  });
});

describe('a stock SPARQL client (sparql-http-client)', () => {
  it('should run a GRAPH-less SELECT and a CONSTRUCT', async () => {
    const client = new ParsingClient({ endpointUrl: server.url });
    const rows = await client.query.select(REFERENCE_QUERIES.resourceServices);
    expect(rows.map((row) => row['service']!.value).sort()).toEqual([door1Service(8001), door1Service(8002)]);
    const graph = await client.query.construct(
      `CONSTRUCT { ?service <${svc.address}> ?address } WHERE { ?service <${svc.isServiceOf}> <${plant.door1}> ; <${svc.address}> ?address }`,
    );
    expect([...graph].map((q) => `${q.subject.value} ${q.object.value}`).sort()).toEqual([
      `${door1Service(8001)} http://127.0.0.1:8001`,
      `${door1Service(8002)} http://127.0.0.1:8002`,
    ]);
    expect(await client.query.ask(REFERENCE_QUERIES.conveyor1ComplementsPut)).toBe(true);
  });
});

describe('this project handles Services written the reference way', () => {
  const op = (n: number): string => `https://example.org/plant#TransportOperation_op_00000000000${n}`;
  const conveyorService = (resource: string, port: number): string => mintServiceIri(resource, `http://127.0.0.1:${port}`);

  beforeAll(async () => {
    const write = (resource: string, port: number, heartbeat: Date, operation: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/sparql-update' },
        body: referenceServiceWrite({ graph: DEFAULT_DATA_GRAPH, resource, address: `http://127.0.0.1:${port}`, heartbeat, operation }),
      });
    // conveyor1 alive (a heartbeat of now), conveyor2 dead for ten minutes.
    expect((await write(plant.conveyor1, 9201, new Date(), op(1))).status).toBe(204);
    expect((await write(plant.conveyor2, 9202, new Date(Date.now() - 600_000), op(2))).status).toBe(204);
  });

  it('should mint the same Service IRIs', () => {
    expect(conveyorService(plant.conveyor1, 9201)).toBe(`${plant.conveyor1}_service_http_c__s__s_127_d_0_d_0_d_1_c_9201`);
  });

  it('should discover them', async () => {
    const result = await runCli(['discover', '--capability', 'plant:TransportCapability', '--store', server.url, '--json']);
    expect(result.status).toBe(0);
    const receivers = JSON.parse(result.stdout) as { service: string; fresh: boolean }[];
    expect(receivers.map((r) => [r.service, r.fresh])).toEqual([
      [conveyorService(plant.conveyor1, 9201), true],
      [conveyorService(plant.conveyor2, 9202), false],
    ]);
  });

  it('should show their status without the owl:NamedIndividual typing', async () => {
    const result = await runCli(['status', '--resource', 'plant:conveyor1', '--store', server.url, '--json']);
    expect(result.status).toBe(0);
    const status = JSON.parse(result.stdout) as ResourceStatus;
    expect(status.services.map((s) => [s.service, s.classes, s.reachable])).toEqual([
      [conveyorService(plant.conveyor1, 9201), [plant.ControllerService], true],
    ]);
    expect(status.capabilities.map((c) => c.capability)).toEqual([mintCapabilityIri(plant.conveyor1, 'transport')]);
    expect(status.operations.queued.count).toBe(1);
  });

  it('should dispatch to the live one', async () => {
    expect(await resolveDispatchTarget(ogm, plant.TransportCapability, { targetResource: plant.conveyor1 })).toEqual({
      capabilityIri: mintCapabilityIri(plant.conveyor1, 'transport'),
      serviceIri: conveyorService(plant.conveyor1, 9201),
      serviceAddress: 'http://127.0.0.1:9201',
    });
  });

  it('should sweep the dead one with the watchdog and fail its stranded Operation', async () => {
    const result = await runCli(['watchdog', '--once', '--store', server.url, '--staleness-threshold', '300', '--log-level', 'silent']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(conveyorService(plant.conveyor2, 9202));
    expect(result.stdout).not.toContain(conveyorService(plant.conveyor1, 9201));
    const statuses = await referenceSelect(`SELECT ?status WHERE { <${op(2)}> <${svc.operationStatus}> ?status }`, 'status');
    expect(statuses).toEqual([OperationStatus.FAILED]);
    expect(await referenceAsk(`ASK { <${conveyorService(plant.conveyor2, 9202)}> <${svc.address}> ?a }`)).toBe(false);
    expect(await referenceAsk(`ASK { <${op(1)}> <${svc.operationStatus}> "queued" }`)).toBe(true);
  });
});
