import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildStateEndpoint,
  buildWorkflowEndpoint,
  mintCapabilityIri,
  mintOperationIri,
  mintServiceIri,
  mintStatePropertyIri,
  mintWorkflowIri,
} from '../../src/iri/index.js';
import { OGM } from '../../src/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../../src/ontology/files.js';
import { provisionOntology } from '../../src/ontology/provision.js';
import {
  createOperation,
  deregisterService,
  registerService,
  registerStateProperty,
  registerWorkflow,
  updateHeartbeat,
} from '../../src/registration/index.js';
import type { ResourceStatus } from '../../src/cli/status-command.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { OperationStatus, plant } from '../../src/vocab/index.js';
import { openTestStore, remoteEndpoint } from '../support/fixtures.js';
import { buildCli, cli, serve } from './support/cli-process.js';

let dir: string;
let dataDir: string;
// On Virtuoso the registrations go into a graph of their own, dropped at the end.
const VIRTUOSO = remoteEndpoint();
const VIRTUOSO_GRAPH = `urn:test:cli-graph:${process.pid}-${Date.now()}`;
const service = (resource: string, port: number): string => mintServiceIri(resource, `http://127.0.0.1:${port}`);

/** Registers one Service of `resource` on `port` with a Workflow per entry and a heartbeat `ageSeconds` old. */
async function register(
  ogm: OGM,
  resource: string,
  port: number,
  workflows: [string, string, string][],
  ageSeconds: number,
): Promise<void> {
  const address = `http://127.0.0.1:${port}`;
  const serviceIri = service(resource, port);
  await registerService(ogm, { resourceIri: resource, serviceIri, serviceClass: plant.ControllerService, address });
  for (const [name, workflowClass, capabilityClass] of workflows) {
    const common = { resourceIri: resource, serviceIri, capabilityIri: mintCapabilityIri(resource, name), capabilityClass };
    await registerWorkflow(ogm, {
      ...common,
      workflowIri: mintWorkflowIri(serviceIri, name),
      workflowClass,
      endpoint: buildWorkflowEndpoint(address, name),
    });
  }
  await updateHeartbeat(ogm, serviceIri, { timestamp: new Date(Date.now() - ageSeconds * 1000) });
}

// door1: a fresh controller (open, close), a stale one (open) and a monitor (state); robot1: a
// fresh controller (pick); conveyor1: a deregistered controller (transport). door1 has two
// queued Operations and one running.
async function populate(ogm: OGM): Promise<void> {
  await register(
    ogm,
    plant.door1,
    8001,
    [
      ['open', plant.OpenDoorWorkflow, plant.DoorOpeningCapability],
      ['close', plant.CloseDoorWorkflow, plant.DoorClosingCapability],
    ],
    5,
  );
  await register(ogm, plant.door1, 8002, [['open', plant.OpenDoorWorkflow, plant.DoorOpeningCapability]], 600);
  await register(ogm, plant.robot1, 9001, [['pick', plant.PickAndPlaceWorkflow, plant.PickAndPlaceCapability]], 1);
  await register(ogm, plant.conveyor1, 9101, [['transport', plant.TransportWorkflow, plant.TransportCapability]], 1);
  await deregisterService(ogm, service(plant.conveyor1, 9101));
  const monitor = service(plant.door1, 8003);
  await registerService(ogm, {
    resourceIri: plant.door1,
    serviceIri: monitor,
    serviceClass: plant.MonitorService,
    address: 'http://127.0.0.1:8003',
    reachable: false,
  });
  await registerStateProperty(ogm, {
    resourceIri: plant.door1,
    serviceIri: monitor,
    statePropertyIri: mintStatePropertyIri(monitor, 'door_state'),
    statePropertyClass: plant.DoorStateProperty,
    capabilityIri: mintCapabilityIri(plant.door1, 'door_state'),
    capabilityClass: plant.DoorStateCapability,
    endpoint: buildStateEndpoint('http://127.0.0.1:8003', 'door_state'),
  });
  for (const status of [OperationStatus.QUEUED, OperationStatus.QUEUED, OperationStatus.RUNNING]) {
    const operationIri = mintOperationIri(plant.OpenDoorOperation);
    await createOperation(ogm, {
      operationIri,
      operationClass: plant.OpenDoorOperation,
      capabilityIri: mintCapabilityIri(plant.door1, 'open'),
      status,
    });
  }
}

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  dir = await mkdtemp(join(tmpdir(), 'sm-discover-'));
  dataDir = join(dir, 'store');
  const store = await openEmbeddedStore({ dataDir });
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  await populate(new OGM({ store }));
  // Closing releases the data dir lock, so the CLI can open it.
  await store.close();
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  if (VIRTUOSO) {
    await openRemoteStore({ queryUrl: VIRTUOSO }).update(`DROP SILENT GRAPH <${VIRTUOSO_GRAPH}>`);
  }
});

interface Receiver {
  capability: string;
  service: string;
  resource: string;
  address: string;
  heartbeatAgeSeconds: number;
  fresh: boolean;
}

/** The checks run against the data dir, against `store serve` on it, and against Virtuoso. */
function describeReadCommands(name: string, location: () => string, graph?: string): void {
  const store = location;
  const run = (args: string[]) => cli(graph === undefined ? args : [...args, '--graph', graph]);
  describe(`discover and status on ${name}`, () => {
    it('should list the reachable receivers of a class, freshest first, as JSON', () => {
      const result = run(['discover', '--capability', 'plant:DoorOpeningCapability', '--store', store(), '--json']);
      expect(result.status).toBe(0);
      const receivers = JSON.parse(result.stdout) as Receiver[];
      expect(receivers.map((r) => [r.address, r.fresh])).toEqual([
        ['http://127.0.0.1:8001', true],
        ['http://127.0.0.1:8002', false],
      ]);
      expect(receivers[0]).toMatchObject({
        capability: mintCapabilityIri(plant.door1, 'open'),
        service: service(plant.door1, 8001),
        resource: plant.door1,
      });
      expect(receivers[1]!.heartbeatAgeSeconds).toBeGreaterThanOrEqual(600);
    });

    it('should include subclasses and print a table, marking stale heartbeats', () => {
      const result = run(['discover', '--capability', 'https://w3id.org/circularfactory/Core#Capability', '--store', store()]);
      expect(result.status).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^HEARTBEAT\s+RESOURCE\s+ADDRESS\s+SERVICE\s+CAPABILITY$/u);
      expect(lines.slice(1).map((l) => l.split(/\s{2,}/u)[2])).toEqual([
        'http://127.0.0.1:9001',
        'http://127.0.0.1:8001',
        'http://127.0.0.1:8001',
        'http://127.0.0.1:8002',
      ]);
      // Written 10 minutes before the suite started; the later describes of this file run a minute or more after that.
      expect(lines.at(-1)).toMatch(/^1\dm( \d+s)? ago \(stale\)\s+plant:door1\s+/u);
      expect(result.stdout).not.toContain('9101');
    });

    it('should exit 1 saying so when no receiver is reachable', () => {
      const result = run(['discover', '--capability', 'plant:TransportCapability', '--store', store(), '--json']);
      expect(result.status).toBe(1);
      expect(JSON.parse(result.stdout)).toEqual([]);
      expect(result.stderr).toContain('semantic-sidecar: no reachable Service realizes a Capability of class plant:TransportCapability');
      const unknown = run(['discover', '--capability', 'plant:NoSuchCapability', '--store', store()]);
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toContain('the class is not declared in the ontology of this store');
    });

    it("should show a resource's Services, Capabilities and Operations as JSON", () => {
      const result = run(['status', '--resource', 'plant:door1', '--store', store(), '--json']);
      expect(result.status).toBe(0);
      const status = JSON.parse(result.stdout) as ResourceStatus;
      expect(status.services.map((s) => [s.service, s.classes, s.reachable])).toEqual([
        [service(plant.door1, 8001), [plant.ControllerService], true],
        [service(plant.door1, 8002), [plant.ControllerService], true],
        [service(plant.door1, 8003), [plant.MonitorService], false],
      ]);
      expect(status.capabilities.map((c) => [c.capability, c.workflows.length, c.stateProperties.length])).toEqual([
        [mintCapabilityIri(plant.door1, 'close'), 1, 0],
        [mintCapabilityIri(plant.door1, 'door_state'), 0, 1],
        [mintCapabilityIri(plant.door1, 'open'), 2, 0],
      ]);
      expect(status.operations.queued.count).toBe(2);
      expect(status.operations.running.count).toBe(1);
      expect(status.operations.queued.first).toHaveLength(2);
    });

    it('should print the status report and exit 1 for a resource with nothing registered', () => {
      const result = run(['status', '--resource', 'plant:door1', '--store', store()]);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('Resource plant:door1 in graph');
      expect(result.stdout).toMatch(
        /Services \(3\):\n {2}plant:door1_service_\S+\s+plant:ControllerService\s+reachable\s+http:\/\/127\.0\.0\.1:8001\s+heartbeat (\d+m )?\d+s ago/u,
      );
      expect(result.stdout).toContain('Operations: 2 queued, 1 running');
      const none = run(['status', '--resource', 'https://example.org/plant#nobody', '--store', store()]);
      expect(none.status).toBe(1);
      expect(none.stderr).toContain('nothing is registered for resource plant:nobody');
    });
  });
}

describeReadCommands('the embedded data dir', () => dataDir);

let server: Awaited<ReturnType<typeof serve>> | undefined;
describe('against store serve', () => {
  it('should start serving the data dir', async () => {
    server = await serve(['--data-dir', dataDir, '--port', '0']);
  });
  it('should point a read command at the endpoint while the data dir is served', () => {
    const result = cli(['discover', '--capability', 'plant:DoorOpeningCapability', '--store', dataDir]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('is in use by process');
    expect(result.stderr).toContain('If `semantic-sidecar store serve` serves it, pass its endpoint instead');
  });
});
describeReadCommands('store serve', () => server!.url);
describe('after store serve', () => {
  it('should stop cleanly', async () => {
    expect((await server!.stop()).code).toBe(0);
  });
});
// Skipped by name, test by test, when no endpoint is configured.
(VIRTUOSO ? describe : describe.skip)('on Virtuoso (SPARQL_ENDPOINT)', () => {
  // Written just before its checks: a heartbeat written at the suite's start could age past the
  // threshold while the sections above run on a loaded machine.
  beforeAll(async () => {
    const remote = (await openTestStore('remote'))!;
    await populate(new OGM({ store: remote, graph: VIRTUOSO_GRAPH }));
    await remote.close();
  }, 120_000);
  describeReadCommands('Virtuoso', () => VIRTUOSO!, VIRTUOSO_GRAPH);
});

describe('discover and status usage', () => {
  it('should exit 2 on a bad IRI, a missing flag or a bad number, naming it', () => {
    const cases: [string[], string][] = [
      [['discover', '--capability', 'not an iri', '--store', 'memory'], '--capability "not an iri" is not a valid absolute IRI'],
      [['discover', '--store', 'memory'], "required option '--capability <class>' not specified"],
      [
        ['discover', '--capability', 'plant:X', '--store', 'memory', '--limit', '0'],
        '--limit must be a whole number from 1 to 10000, got "0"',
      ],
      [['status', '--resource', 'plant:door 1', '--store', 'memory'], 'expected an absolute IRI or a CURIE with one of the prefixes'],
      [['status', '--resource', 'plant:door1'], "required option '--store <url>' not specified"],
    ];
    for (const [args, message] of cases) {
      const result = cli(args);
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 2, stderr: expect.stringContaining(message) });
    }
  });

  it('should give each command help with an example', () => {
    for (const [command, example] of [
      ['discover', '$ semantic-sidecar discover --capability plant:DoorOpeningCapability'],
      ['status', '$ semantic-sidecar status --resource plant:door1'],
    ]) {
      const result = cli([command!, '--help']);
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(example);
    }
  });
});
