/**
 * The store goes away and comes back, as real processes: door1 (receiver, a mock door bridge
 * answering after 1 s behind a recording hop) and robot1 (caller, through its local API) each
 * reach the shared store through a loopback proxy of their own, which the test cuts and
 * restores; door1 is reached by its callers through one more proxy (its `--address`), which can
 * lose door1's answers. On the embedded store served by `store serve`, and on Virtuoso when
 * SPARQL_ENDPOINT is set.
 *
 * Knobs: none (this file runs the same under SOAK=1).
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mintOperationIri } from '../../src/iri/mint.js';
import { readOperation } from '../../src/middleware/operations/operation-watch.js';
import { plant } from '../../src/vocab/index.js';
import { startDoor1, startRobot1, type CellResource, type CellStore } from '../e2e/support/cell.js';
import { startBridge } from '../e2e/support/daemons.js';
import { unixRequest, type UnixAnswer } from '../e2e/support/unix-http.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { DeviceRecorder } from './support/device-recorder.js';
import {
  closeFaultCell,
  faultSuite,
  getJson,
  lastHeartbeat,
  openCellStore,
  operationWhen,
  STORE_KINDS,
  until,
  via,
} from './support/fault-cell.js';
import { auditGraph, readGraph } from './support/graph-audit.js';
import { FaultProxy, freePort } from './support/tcp-proxy.js';

// door1's store requests give up after this long, so a hung store link fails a trigger (503)
// well within the caller's trigger timeout (LIMITS.triggerTimeoutMs, 5 s).
const DOOR_STORE_TIMEOUT_MS = 2500;
const DEVICE_DELAY_MS = 1000;

describe.each(STORE_KINDS)('the store goes away and comes back (%s store)', (kind) => {
  const { enabled, onStore } = faultSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let cell: CellStore;
  let doorLink: FaultProxy;
  let robotLink: FaultProxy;
  let doorHttp: FaultProxy;
  let device: DeviceRecorder;
  let door: CellResource;
  let robot: CellResource;

  const logs = (): string => `${door.sidecar.proc.tail(3000)}\n${robot.sidecar.proc.tail(3000)}`;

  /** robot1's local API: dispatch an Operation of door1 with a chosen IRI (and deadline). */
  function dispatch(operationIri: string, data: Record<string, unknown> = {}, deadline?: Date): Promise<UnixAnswer> {
    const body = {
      capabilityClass: plant.DoorOpeningCapability,
      operationClass: plant.OpenDoorOperation,
      targetResource: plant.door1,
      operationIri,
      data,
      ...(deadline && { deadline: deadline.toISOString() }),
    };
    return unixRequest(robot.sidecar.localApiSocket!, 'POST', '/operations', { body, timeoutMs: 30_000 });
  }

  const newOperation = (): string => mintOperationIri(plant.OpenDoorOperation);
  const inGraph = async (iri: string): Promise<boolean> => (await readGraph(cell.client, cell.graph)).has(iri);

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-faults-outage-${kind}-`));
    cell = await openCellStore(kind, group);
    [doorLink, robotLink] = await Promise.all([FaultProxy.start(cell.url), FaultProxy.start(cell.url)]);
    const bridge = await startBridge(group, 'door1-bridge', {
      kind: 'door',
      socket: join(dir, 'door1-bridge.sock'),
      delayMs: DEVICE_DELAY_MS,
    });
    device = await DeviceRecorder.start(join(dir, 'door1-device.sock'), bridge.socket!);
    const doorPort = await freePort();
    doorHttp = await FaultProxy.start(`http://127.0.0.1:${doorPort}`);
    const address = ['--address', doorHttp.url];
    [door, robot] = await Promise.all([
      startDoor1(group, dir, via(cell, doorLink.url), {
        bridge: { ...bridge, socket: device.socket },
        port: doorPort,
        args: address,
        env: { SPARQL_TIMEOUT_MS: String(DOOR_STORE_TIMEOUT_MS) },
      }),
      startRobot1(group, dir, via(cell, robotLink.url)),
    ]);
  }, 180_000);

  afterAll(
    () =>
      closeFaultCell(
        group,
        cell,
        dir,
        () => doorLink?.close(),
        () => robotLink?.close(),
        () => doorHttp?.close(),
        () => device?.close(),
      ),
    60_000,
  );

  onStore(
    'should be not ready, log failing heartbeats naming the store and answer a direct request 503 while the store is away, then recover with nothing registered twice',
    async () => {
      const refused = newOperation();
      const heartbeatFailures = (): Record<string, unknown>[] =>
        door.sidecar.proc.logs().filter((l) => l.loop === 'heartbeat' && l.msg === 'heartbeat failed; retrying');
      const failuresBefore = heartbeatFailures().length;
      doorLink.cut('refuse');
      robotLink.cut('refuse');

      expect(await getJson(`${door.sidecar.address}/readyz`)).toMatchObject({ status: 503 });
      expect(await getJson(`${door.sidecar.address}/healthz`)).toEqual({ status: 200, json: { status: 'ok' } });
      const answer = await dispatch(refused);
      expect([answer.status, answer.json]).toEqual([503, { detail: expect.stringContaining(robotLink.url) }]);
      // The heartbeat loop keeps failing (and retrying), each time naming the store it cannot reach.
      await until(() => (heartbeatFailures().length >= failuresBefore + 2 ? true : undefined), 'two failed heartbeats', 10_000, logs);
      const failure = heartbeatFailures().at(-1) as { err?: { message?: string; type?: string } };
      expect(failure.err).toMatchObject({ type: 'StoreError', message: expect.stringContaining(doorLink.url) });
      expect([door.sidecar.proc.running, robot.sidecar.proc.running]).toEqual([true, true]);

      const restoredAt = Date.now();
      doorLink.restore();
      robotLink.restore();
      await until(
        async () => ((await lastHeartbeat(cell, door.sidecar.service))! > restoredAt ? true : undefined),
        'a heartbeat after the store came back',
        15_000,
        logs,
      );
      await until(
        async () => ((await getJson(`${door.sidecar.address}/readyz`)).status === 200 ? true : undefined),
        'door1 ready again',
        15_000,
        logs,
      );
      await until(
        () => (door.sidecar.proc.logs().some((l) => l.msg === 'heartbeat recovered') ? true : undefined),
        "door1's log of its recovered heartbeat",
        10_000,
        logs,
      );
      expect(await inGraph(refused)).toBe(false);
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);

      // Dispatch works again, end to end.
      const again = newOperation();
      expect((await dispatch(again)).status).toBe(201);
      expect(await operationWhen(cell, again, (s) => s?.status === 'done', 20_000, logs)).toMatchObject({
        status: 'done',
        workflowIri: `${door.sidecar.service}_workflow_open`,
      });
      expect(device.executions(again)).toHaveLength(1);
    },
    90_000,
  );

  onStore(
    "should revert the caller's Operation when only the receiver lost the store, and tell the caller why",
    async () => {
      const operation = newOperation();
      doorLink.cut('refuse');
      try {
        const answer = await dispatch(operation);
        expect(answer.status).toBe(502);
        expect((answer.json as { detail: string }).detail).toMatch(
          new RegExp(
            `^event trigger of the receiver at ${door.sidecar.address}/workflows/event_trigger/execute answered 503: .*${doorLink.url}`,
            'u',
          ),
        );
        expect(await inGraph(operation)).toBe(false);
        expect(device.executions(operation)).toEqual([]);
      } finally {
        doorLink.restore();
      }
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    60_000,
  );

  onStore(
    'should keep an Operation the caller could not revert queued, and run it once when the receiver gets the store back',
    async () => {
      const operation = newOperation();
      // The receiver's store hangs: its trigger answers 503 only after DOOR_STORE_TIMEOUT_MS ...
      doorLink.cut('blackhole');
      const answered = dispatch(operation);
      // ... and by then the caller has lost the store too, so it cannot revert.
      await until(async () => ((await inGraph(operation)) ? true : undefined), 'the Operation created', 10_000, logs, 20);
      robotLink.cut('refuse');
      const answer = await answered;
      expect(answer.status).toBe(502);
      expect((answer.json as { detail: string }).detail).toContain(`answered 503`);
      expect((answer.json as { detail: string }).detail).toContain(`the Operation <${operation}> could not be reverted`);
      await until(
        () =>
          robot.sidecar.proc.logs().some((l) => l.operation === operation && l.msg === 'the Operation could not be reverted')
            ? true
            : undefined,
        "the caller's log of the failed revert",
        5_000,
        logs,
      );
      expect(await readOperation(cell.ogm, operation)).toMatchObject({ status: 'queued' });

      robotLink.restore();
      doorLink.restore();
      const done = await operationWhen(cell, operation, (s) => s?.status === 'done', 30_000, logs);
      expect(done).toMatchObject({ workflowIri: `${door.sidecar.service}_workflow_open` });
      expect(JSON.parse(done!.result!)).toEqual({ ok: true, door: 'open', operation });
      await sleep(1000); // time to run it a second time, if it would
      expect(device.executions(operation)).toHaveLength(1);
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    90_000,
  );

  onStore(
    'should never run an Operation whose deadline passed while the store was away, failing it with kind deadline when it is back',
    async () => {
      const operation = newOperation();
      // As above: the receiver's store hangs, then the caller loses it too and cannot revert ...
      doorLink.cut('blackhole');
      const answered = dispatch(operation, {}, new Date(Date.now() + 4_000));
      await until(async () => ((await inGraph(operation)) ? true : undefined), 'the Operation created', 10_000, logs, 20);
      robotLink.cut('refuse');
      expect((await answered).status).toBe(502);
      expect(await readOperation(cell.ogm, operation)).toMatchObject({ status: 'queued' });
      // ... and the deadline passes before either link returns.
      await until(
        async () => ((await readOperation(cell.ogm, operation))!.deadline! < new Date() ? true : undefined),
        'the deadline',
        10_000,
        logs,
      );
      robotLink.restore();
      doorLink.restore();
      const failed = await operationWhen(cell, operation, (s) => s?.status !== 'queued', 30_000, logs);
      expect(failed).toMatchObject({ status: 'failed', failureKind: 'deadline', result: expect.stringContaining('not run') });
      await sleep(1000); // time to run it, if it would
      expect(device.executions(operation)).toEqual([]);
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    90_000,
  );

  onStore(
    'should record the outcome of an Operation the device finished while the store was away, once the store is back',
    async () => {
      const operation = newOperation();
      expect((await dispatch(operation)).status).toBe(201);
      await device.waitFor(() => device.executions(operation).length > 0, `the device running ${operation}`);
      doorLink.cut('refuse');
      try {
        await device.waitFor(() => device.executions(operation)[0]?.status === 200, `the device's answer for ${operation}`);
        await sleep(500); // the terminal write fails meanwhile
        expect(await readOperation(cell.ogm, operation)).toMatchObject({ status: 'running' });
      } finally {
        doorLink.restore();
      }
      const done = await operationWhen(cell, operation, (s) => s?.status !== 'running', 30_000, logs);
      expect(done).toMatchObject({ status: 'done', workflowIri: `${door.sidecar.service}_workflow_open` });
      expect(JSON.parse(done!.result!)).toEqual({ ok: true, door: 'open', operation });
      expect(device.executions(operation)).toHaveLength(1);
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    90_000,
  );

  onStore(
    'should keep an Operation whole, and run it once, when the receiver took it but the caller never heard back and reverted',
    async () => {
      const operation = newOperation();
      doorHttp.cut('mute');
      let answer: UnixAnswer;
      try {
        answer = await dispatch(operation); // robot1 waits out its trigger timeout
      } finally {
        doorHttp.restore();
      }
      expect(answer.status).toBe(502);
      expect((answer.json as { detail: string }).detail).toMatch(
        /^event trigger of the receiver at .* was not delivered: no answer within \d+ ms; the Operation <.*> could not be reverted .* stays in the graph/u,
      );
      const reverts = robot.sidecar.proc.logs().filter((l) => l.operation === operation && l.msg === 'the Operation could not be reverted');
      expect(reverts.map((l) => (l.err as { message?: string }).message)).toEqual([expect.stringContaining("it is no longer 'queued'")]);
      const done = await operationWhen(cell, operation, (s) => s?.status === 'done' || s?.status === 'failed', 20_000, logs);
      expect(done).toMatchObject({ status: 'done', workflowIri: `${door.sidecar.service}_workflow_open` });
      expect(device.executions(operation)).toHaveLength(1);
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    60_000,
  );
});
