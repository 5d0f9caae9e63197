/**
 * Two sidecars start for one resource, as real processes on one shared store:
 * - the same configuration twice (one port): the second fails clearly at start-up (port in use,
 *   or the local API socket in use) and changes nothing: the first keeps its Service and its
 *   running and queued Operations;
 * - the same resource on two ports: two Services coexist, sharing the resource's Capabilities
 *   (one per workflow name); work runs once on one of them; when one is killed the other goes on;
 *   after both stop the graph is consistent. A restarted twin leaves its live sibling's running
 *   Operation alone (another surviving Service realizes its Capability), and the sibling's
 *   shutdown ends it in exactly one state.
 * On the embedded store served by `store serve`, and on Virtuoso when SPARQL_ENDPOINT is set.
 *
 * Knobs: none (this file runs the same under SOAK=1).
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SHUTDOWN_REASON } from '../../src/middleware/index.js';
import { readOperation } from '../../src/middleware/operations/operation-watch.js';
import type { SemanticMiddleware } from '../../src/middleware/semantic-middleware.js';
import { servicesOfResource } from '../../src/registration/index.js';
import { plant, svc } from '../../src/vocab/index.js';
import { DOOR1_CONFIG, startDoor1, type CellStore } from '../e2e/support/cell.js';
import { startBridge, type BridgeProc } from '../e2e/support/daemons.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup, runCli } from '../support/sidecar-process.js';
import {
  closeFaultCell,
  faultSuite,
  getJson,
  inProcessCaller,
  lastHeartbeat,
  openCellStore,
  operationWhen,
  reachable,
  STORE_KINDS,
  until,
} from './support/fault-cell.js';
import { auditGraph, readGraph, subjectsWith, values } from './support/graph-audit.js';

const OPEN = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: plant.door1 };
const CLOSE = { capabilityClass: plant.DoorClosingCapability, operationClass: plant.CloseDoorOperation, targetResource: plant.door1 };

describe.each(STORE_KINDS)('two sidecars for one resource (%s store)', (kind) => {
  const { enabled, onStore } = faultSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let cell: CellStore;
  let bridge: BridgeProc;
  let caller: SemanticMiddleware;
  // A hung device call outlives a stop by this little (it is then failed with a reason).
  const env = { SIDECAR_DEVICE_TIMEOUT_MS: '60000', SIDECAR_SHUTDOWN_GRACE_MS: '1000' };

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-faults-twins-${kind}-`));
    cell = await openCellStore(kind, group);
    bridge = await startBridge(group, 'door1-bridge', { kind: 'door', socket: join(dir, 'door1-device.sock') });
    caller = inProcessCaller(cell);
  }, 180_000);

  afterAll(() => closeFaultCell(group, cell, dir), 60_000);

  /** `start` with door1's flags as startDoor1 gives them, run to its end (it must fail). */
  function startTwin(home: string, port: number, localSocket: string): ReturnType<typeof runCli> {
    const graph = cell.kind === 'virtuoso' ? ['--graph', cell.graph] : [];
    const args = [
      'start',
      '--config',
      DOOR1_CONFIG,
      '--store',
      cell.url,
      ...graph,
      '--port',
      String(port),
      '--heartbeat-interval',
      '1',
      '--local-api-socket',
      localSocket,
      '--device-socket',
      bridge.socket!,
    ];
    return runCli(args, { cwd: home, env: { STATE_DIRECTORY: join(home, 'door1-state'), ...env }, timeoutMs: 60_000 });
  }

  onStore(
    'should refuse a second start of the same configuration, clearly, changing nothing',
    async () => {
      const home = join(dir, 'same');
      const first = (await startDoor1(group, home, cell, { bridge, env })).sidecar;
      const running = await caller.request(OPEN, (d) => void (d.data.hang = true));
      await operationWhen(cell, running, (s) => s?.status === 'running', 15_000);
      const queued = await caller.request(CLOSE);
      const before = await readGraph(cell.client, cell.graph);

      // Exactly the same flags: the local API socket is the first one's, in use.
      const same = await startTwin(home, first.port, first.localApiSocket!);
      expect([same.code, same.stdout]).toEqual([1, '']);
      expect(same.stderr).toContain(first.localApiSocket!);
      // Another local API socket, the same port: the port is in use.
      const port = await startTwin(home, first.port, join(home, 'other-local.sock'));
      expect([port.code, port.stdout]).toEqual([1, '']);
      expect(port.stderr).toMatch(new RegExp(`EADDRINUSE|${first.port}.*in use|in use.*${first.port}`, 'u'));

      // Nothing changed: the first is reachable and serving; its running Operation was not reclaimed.
      expect(await reachable(cell, first.service)).toBe(true);
      expect(await getJson(`${first.address}/readyz`)).toEqual({ status: 200, json: { status: 'ready' } });
      expect(await readOperation(cell.ogm, running)).toMatchObject({ status: 'running' });
      expect(await readOperation(cell.ogm, queued)).toMatchObject({ status: 'queued' });
      const after = await readGraph(cell.client, cell.graph);
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      expect(await servicesOfResource(cell.ogm, plant.door1, { reachableOnly: true })).toEqual([first.service]);
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
      // Leave no work behind for the next test: stopping fails the hung one, the queued one stays queued.
      expect(await first.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(await readOperation(cell.ogm, running)).toMatchObject({ status: 'failed' });
    },
    90_000,
  );

  onStore(
    'should let one resource run on two ports as two Services, run work once, and stay consistent when one is killed, restarted and both stop',
    async () => {
      const [a, b] = [
        (await startDoor1(group, join(dir, 'a'), cell, { bridge, env })).sidecar,
        (await startDoor1(group, join(dir, 'b'), cell, { bridge, env })).sidecar,
      ];
      expect(a.service).not.toBe(b.service);
      expect(await servicesOfResource(cell.ogm, plant.door1, { reachableOnly: true })).toEqual([a.service, b.service].sort());
      // One Capability per workflow name, realized by both Services' Workflows (and by those of the
      // previous test's Service, deregistered but kept as history).
      const index = await readGraph(cell.client, cell.graph);
      const realizing = values(index, `${plant.door1}_capability_open`, svc.realizedByWorkflow);
      expect(realizing).toEqual(expect.arrayContaining([`${a.service}_workflow_open`, `${b.service}_workflow_open`]));
      expect(subjectsWith(index, svc.address).sort()).toEqual([a.service, b.service].sort());
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);

      // Work dispatched to the resource runs once, on one of them.
      const opens = (): number => bridge.requests().filter((r) => r.path === '/open').length;
      const opensBefore = opens();
      const opened = await caller.request(OPEN);
      const done = await operationWhen(cell, opened, (s) => s?.status === 'done' || s?.status === 'failed', 20_000);
      expect([`${a.service}_workflow_open`, `${b.service}_workflow_open`]).toContain(done!.workflowIri);
      await bridge.logged(() => opens() > opensBefore, 'the open call');
      await sleep(500);
      expect(opens()).toBe(opensBefore + 1);

      // A killed: B goes on; once B has heartbeated since, dispatch reaches B (the freshest heartbeat).
      expect((await a.proc.kill('SIGKILL')).signal).toBe('SIGKILL');
      const lastOfA = (await lastHeartbeat(cell, a.service))!;
      await until(
        async () => ((await lastHeartbeat(cell, b.service))! > lastOfA ? true : undefined),
        'a heartbeat of B after the last one of A',
        15_000,
      );
      const afterKill = await caller.request(OPEN);
      expect(await operationWhen(cell, afterKill, (s) => s?.status === 'done' || s?.status === 'failed', 20_000)).toMatchObject({
        status: 'done',
        workflowIri: `${b.service}_workflow_open`,
      });

      // B runs a hung Operation while A restarts: B is alive and realizes its Capability, so A
      // leaves it running rather than failing B's work as its own orphan.
      const hung = await caller.request(OPEN, (d) => void (d.data.hang = true));
      await operationWhen(cell, hung, (s) => s?.status === 'running', 15_000);
      const again = (await startDoor1(group, join(dir, 'a'), cell, { bridge, env, port: a.port })).sidecar;
      expect(again.service).toBe(a.service);
      expect(await readOperation(cell.ogm, hung)).toMatchObject({ status: 'running' });
      expect(again.proc.logs().filter((l) => l.msg === 'orphaned running operation failed at start-up (not re-run)')).toEqual([]);
      expect(await servicesOfResource(cell.ogm, plant.door1, { reachableOnly: true })).toEqual([a.service, b.service].sort());
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);

      // Both stop: both deregistered, every endpoint gone, nothing half-written.
      expect(await b.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(await reachable(cell, again.service)).toBe(true);
      expect(await again.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      const final = await readGraph(cell.client, cell.graph);
      expect(subjectsWith(final, svc.address)).toEqual([]);
      expect(subjectsWith(final, svc.endpoint)).toEqual([]);
      // B's shutdown gave up on the hung call and failed it, with its reason.
      expect(values(final, hung, svc.operationStatus)).toEqual(['failed']);
      expect(values(final, hung, svc.executionResult)).toEqual([SHUTDOWN_REASON]);
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    120_000,
  );
});
