/**
 * The device crashes mid-Operation, as real processes: door1's mock bridge is killed with -9
 * while an Operation runs on it (the bridge hangs on `"hang": true`, or works through a long
 * `--delay-ms`). The Operation ends failed with a reason that names the device; the sidecar keeps
 * serving, and once the bridge is restarted every workflow runs again. On the embedded store
 * served by `store serve`, and on Virtuoso when SPARQL_ENDPOINT is set.
 *
 * Knobs: none (this file runs the same under SOAK=1).
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readOperation } from '../../src/middleware/operations/operation-watch.js';
import type { SemanticMiddleware } from '../../src/middleware/semantic-middleware.js';
import { plant } from '../../src/vocab/index.js';
import { startDoor1, type CellResource, type CellStore } from '../e2e/support/cell.js';
import { startBridge, type BridgeProc } from '../e2e/support/daemons.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { closeFaultCell, faultSuite, getJson, inProcessCaller, openCellStore, operationWhen, STORE_KINDS } from './support/fault-cell.js';
import { auditGraph } from './support/graph-audit.js';

const OPEN = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: plant.door1 };
const CLOSE = { capabilityClass: plant.DoorClosingCapability, operationClass: plant.CloseDoorOperation, targetResource: plant.door1 };
// Long enough that the crash, not the sidecar's device timeout, ends the call.
const DEVICE_TIMEOUT_MS = 60_000;
// The slow bridge of the second test works this long on each call.
const SLOW_DEVICE_MS = 3_000;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

describe.each(STORE_KINDS)('a device bridge killed mid-Operation (%s store)', (kind) => {
  const { enabled, onStore } = faultSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let cell: CellStore;
  let door: CellResource;
  let bridge: BridgeProc;
  let caller: SemanticMiddleware;
  const socket = (): string => join(dir, 'door1-device.sock');
  const logs = (): string => `${door.sidecar.proc.tail(3000)}\n${bridge.proc.tail(1000)}`;

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-faults-device-${kind}-`));
    cell = await openCellStore(kind, group);
    bridge = await startBridge(group, 'door1-bridge', { kind: 'door', socket: socket() });
    door = await startDoor1(group, dir, cell, { bridge, env: { SIDECAR_DEVICE_TIMEOUT_MS: String(DEVICE_TIMEOUT_MS) } });
    caller = inProcessCaller(cell);
  }, 180_000);

  afterAll(() => closeFaultCell(group, cell, dir), 60_000);

  /** Requests `options` with `data`, waits until door1 runs it on the device, then kills the bridge with -9. */
  async function crashWhileRunning(options: typeof OPEN, data: Record<string, unknown>): Promise<string> {
    const operation = await caller.request(options, (draft) => Object.assign(draft.data, data));
    await operationWhen(cell, operation, (s) => s?.status === 'running', 15_000, logs);
    // The device call follows the claim within milliseconds (one read of the Operation); give it
    // ample time to be under way, so the kill hits the call itself (the reason says so).
    await sleep(1500);
    expect((await bridge.proc.kill('SIGKILL')).signal).toBe('SIGKILL');
    return operation;
  }

  /** Checks the crash's outcome, that door1 still serves, then restarts the bridge and runs both workflows. */
  async function expectFailedThenRecovered(operation: string, restart: Parameters<typeof startBridge>[2]): Promise<void> {
    const failed = await operationWhen(cell, operation, (s) => s?.status !== 'running', 15_000, logs);
    expect(failed).toMatchObject({ status: 'failed', workflowIri: `${door.sidecar.service}_workflow_open` });
    expect(failed!.result).toMatch(new RegExp(`^POST /open on device unix:${escape(socket())} failed: .*did the bridge crash\\?`, 'u'));
    expect(JSON.parse(failed!.failureState!)).toMatchObject({
      id: plant.door1,
      state: { door: { error: expect.stringContaining(socket()) } },
    });

    // The sidecar keeps serving: it is alive and registered; the device's routes answer 502.
    expect(door.sidecar.proc.running).toBe(true);
    expect(await getJson(`${door.sidecar.address}/healthz`)).toEqual({ status: 200, json: { status: 'ok' } });
    expect(await getJson(`${door.sidecar.address}/readyz`)).toEqual({ status: 200, json: { status: 'ready' } });
    const state = await getJson(`${door.sidecar.address}/state/door`);
    expect([state.status, (state.json as { detail: string }).detail]).toEqual([502, expect.stringContaining(socket())]);

    bridge = await startBridge(group, 'door1-bridge', restart);
    const opened = await caller.request(OPEN);
    const closed = await caller.request(CLOSE);
    expect(await operationWhen(cell, opened, (s) => s?.status === 'done' || s?.status === 'failed', 20_000, logs)).toMatchObject({
      status: 'done',
    });
    expect(await operationWhen(cell, closed, (s) => s?.status === 'done' || s?.status === 'failed', 20_000, logs)).toMatchObject({
      status: 'done',
      workflowIri: `${door.sidecar.service}_workflow_close`,
    });
    const direct = await fetch(`${door.sidecar.address}/workflows/open/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([direct.status, await direct.json()]).toEqual([200, { ok: true, door: 'open' }]);
    // The crashed Operation stays failed: recovery is never a silent replay.
    expect(await readOperation(cell.ogm, operation)).toMatchObject({ status: 'failed' });
    await bridge.logged((rs) => rs.length >= 3, 'three calls on the restarted bridge');
    expect(bridge.requests().map((r) => [r.path, r.status])).toEqual([
      ['/open', 200],
      ['/close', 200],
      ['/open', 200],
    ]);
    expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
  }

  onStore(
    'should fail an Operation whose bridge died while it hung, naming the device, and run every workflow once the bridge is back',
    async () => {
      const operation = await crashWhileRunning(OPEN, { hang: true });
      await expectFailedThenRecovered(operation, { kind: 'door', socket: socket(), delayMs: SLOW_DEVICE_MS });
    },
    90_000,
  );

  onStore(
    'should fail an Operation whose bridge died while it worked, the same way',
    async () => {
      const operation = await crashWhileRunning(OPEN, {});
      await expectFailedThenRecovered(operation, { kind: 'door', socket: socket() });
    },
    90_000,
  );
});
