/**
 * End-to-end dispatch between two sidecars, as real processes: door1 (bridge on a Unix socket)
 * and robot1 (bridge on loopback TCP), sharing one store: the embedded store served over SPARQL,
 * and the Virtuoso under test when SPARQL_ENDPOINT is set (with a named graph of this run's own).
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cfc, plant } from '../../src/vocab/index.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { ensureBuilt } from '../support/build.js';
import {
  cellSuite,
  requestCli,
  servedStore,
  startDoor1,
  startRobot1,
  virtuosoStore,
  type CellResource,
  type CellStore,
} from './support/cell.js';
import { unixRequest } from './support/unix-http.js';

const DOOR_OPEN = [
  '--capability',
  'plant:DoorOpeningCapability',
  '--operation-class',
  'plant:OpenDoorOperation',
  '--target',
  'plant:door1',
];
// door1's device calls get this long unless a workflow says otherwise (close has 20 s in door1.yaml).
const DEVICE_TIMEOUT_MS = 1500;

describe.each(['served', 'virtuoso'] as const)('dispatch between door1 and robot1 on the %s store', (kind) => {
  const { enabled, onStore } = cellSuite(kind);
  const group = new ProcessGroup();
  let dir: string | undefined;
  let store: CellStore | undefined;
  let door: CellResource;
  let robot: CellResource;

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-e2e-dispatch-${kind}-`));
    store = kind === 'served' ? await servedStore(group) : await virtuosoStore(process.env.SPARQL_ENDPOINT!);
    [door, robot] = await Promise.all([
      startDoor1(group, dir, store, { env: { SIDECAR_DEVICE_TIMEOUT_MS: String(DEVICE_TIMEOUT_MS) } }),
      startRobot1(group, dir, store),
    ]);
  }, 180_000);

  afterAll(async () => {
    await group.cleanup();
    await store?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  onStore(
    "should run `request --wait` on door1's device and record its answer with provenance",
    async () => {
      const before = Date.now();
      const run = await requestCli(store!, [...DOOR_OPEN, '--wait', '--timeout', '30']);
      expect([run.code, run.stderr]).toEqual([0, expect.any(String)]); // the diff shows stderr on failure
      expect(run.operation).toMatch(/^https:\/\/example\.org\/plant#OpenDoorOperation_op_[0-9a-f]{12}$/u);
      const outcome = run.outcome!;
      expect(outcome).toMatchObject({ operationIri: run.operation, status: 'done', workflowIri: `${door.sidecar.service}_workflow_open` });
      expect(JSON.parse(outcome.result!)).toEqual({ ok: true, door: 'open', operation: run.operation });
      const at = Date.parse(outcome.timestamp!);
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1000);
      // The Operation is addressed to door1's Capability, and the device ran it once.
      const capability = `${plant.door1}_capability_open`;
      expect(
        await store!.client.ask(`ASK { GRAPH <${store!.graph}> { <${run.operation}> <${cfc.implementsCapability}> <${capability}> } }`),
      ).toBe(true);
      const opens = (await door.bridge.logged((rs) => rs.some((r) => r.path === '/open'), 'POST /open in the bridge log')).filter(
        (r) => r.path === '/open',
      );
      expect(opens).toEqual([expect.objectContaining({ method: 'POST', status: 200 })]);
    },
    60_000,
  );

  onStore(
    "should run an Operation requested through robot1's local API on door1, and long-poll its outcome",
    async () => {
      const socket = robot.sidecar.localApiSocket!;
      const body = { capabilityClass: plant.DoorClosingCapability, operationClass: plant.CloseDoorOperation, targetResource: plant.door1 };
      const created = await unixRequest(socket, 'POST', '/operations', { body });
      expect(created.status).toBe(201);
      const { operation } = created.json as { operation: string };
      expect(operation).toMatch(/^https:\/\/example\.org\/plant#CloseDoorOperation_op_[0-9a-f]{12}$/u);
      const status = await unixRequest(socket, 'GET', `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=20000`, {
        timeoutMs: 30_000,
      });
      expect(status.status).toBe(200);
      const snapshot = status.json as Record<string, string>;
      expect(snapshot).toMatchObject({ operationIri: operation, status: 'done', workflowIri: `${door.sidecar.service}_workflow_close` });
      expect(JSON.parse(snapshot.result!)).toEqual({ ok: true, door: 'closed', operation });
      expect(Number.isNaN(Date.parse(snapshot.timestamp!))).toBe(false);
      // robot1's own device took no part in it.
      expect(robot.bridge.requests()).toEqual([]);
    },
    60_000,
  );

  onStore(
    "should run an Operation requested through door1's local API on robot1's device over TCP",
    async () => {
      const socket = door.sidecar.localApiSocket!;
      const body = { capabilityClass: plant.PickAndPlaceCapability, operationClass: plant.PickAndPlaceOperation };
      const created = await unixRequest(socket, 'POST', '/operations', { body });
      expect(created.status).toBe(201);
      const { operation } = created.json as { operation: string };
      const status = await unixRequest(socket, 'GET', `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=20000`, {
        timeoutMs: 30_000,
      });
      expect(status.json).toMatchObject({ status: 'done', workflowIri: `${robot.sidecar.service}_workflow_pick` });
      expect(JSON.parse((status.json as { result: string }).result)).toEqual({
        ok: true,
        gripper: 'holding',
        item: 'workpiece',
        operation,
      });
      expect(await robot.bridge.logged((rs) => rs.length > 0, 'POST /pick in the bridge log')).toEqual([
        expect.objectContaining({ method: 'POST', path: '/pick', status: 200 }),
      ]);
    },
    60_000,
  );

  onStore(
    "should fail an Operation with the device's reason and a snapshot of door1 when the device fails",
    async () => {
      const run = await requestCli(store!, [...DOOR_OPEN, '--data', '{"fail":"door jammed"}', '--wait', '--timeout', '30']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Operation <${run.operation}> failed:`);
      const outcome = run.outcome!;
      expect(outcome).toMatchObject({ status: 'failed', workflowIri: `${door.sidecar.service}_workflow_open` });
      expect(outcome.result).toContain('answered HTTP 500: door jammed');
      const snapshot = JSON.parse(outcome.failureState!) as { id: string; state: Record<string, unknown> };
      expect(snapshot.id).toBe(plant.door1);
      expect(['open', 'closed']).toContain(snapshot.state.door);
      // The device failed the call; then the failure snapshot read its live state.
      const logged = await door.bridge.logged((rs) => rs.at(-1)?.path === '/state/door', 'GET /state/door in the bridge log');
      expect(logged.slice(-2)).toEqual([
        expect.objectContaining({ method: 'POST', path: '/open', status: 500 }),
        expect.objectContaining({ method: 'GET', path: '/state/door', status: 200 }),
      ]);
    },
    60_000,
  );

  onStore(
    'should fail an Operation whose device call hangs once the device timeout passes',
    async () => {
      const run = await requestCli(store!, [...DOOR_OPEN, '--data', '{"hang":true}', '--wait', '--timeout', '30']);
      expect(run.code).toBe(1);
      expect(run.outcome).toMatchObject({ status: 'failed' });
      expect(run.outcome!.result).toContain(`got no answer within ${DEVICE_TIMEOUT_MS} ms`);
      // The sidecar gave up on the call: the bridge logs it unanswered, after the timeout.
      const logged = await door.bridge.logged(
        (rs) => rs.filter((r) => r.path === '/open').at(-1)?.status === null,
        'the abandoned POST /open in the bridge log',
      );
      const opens = logged.filter((r) => r.path === '/open');
      expect(opens.at(-1)!.ms).toBeGreaterThanOrEqual(DEVICE_TIMEOUT_MS - 50);
    },
    60_000,
  );
});
