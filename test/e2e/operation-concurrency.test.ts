/**
 * `operationConcurrency` between sidecar processes: door1's device takes its time over each
 * workflow; robot1 dispatches two Operations to it at once. With `--operation-concurrency 2` the
 * device receives the second call while the first still runs; by default (1) only after the first
 * answered. Either way each Operation runs exactly once and ends done.
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plant } from '../../src/vocab/index.js';
import { DeviceRecorder, type DeviceCall } from '../faults/support/device-recorder.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { cellSuite, servedStore, startDoor1, startRobot1, type CellResource, type CellStore } from './support/cell.js';
import { startBridge, type BridgeProc } from './support/daemons.js';
import { unixRequest } from './support/unix-http.js';

// Long enough that two calls run one after the other cannot overlap by scheduling noise.
const DEVICE_MS = 800;

describe('operationConcurrency: Operations a sidecar runs on its device at once', () => {
  const { onStore } = cellSuite('served');
  const group = new ProcessGroup();
  let dir: string;
  let store: CellStore;
  let robot: CellResource;
  let bridge: BridgeProc;
  let device: DeviceRecorder;

  beforeAll(async () => {
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'sm-e2e-concurrency-'));
    store = await servedStore(group);
    bridge = await startBridge(group, 'door1-bridge', { kind: 'door', socket: join(dir, 'door1-device.sock'), delayMs: DEVICE_MS });
    device = await DeviceRecorder.start(join(dir, 'door1-recorder.sock'), bridge.socket!);
    robot = await startRobot1(group, dir, store);
  }, 180_000);

  afterAll(async () => {
    await group.cleanup();
    await device?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  /** Two Operations to door1 requested together through robot1's local API; resolves with both outcomes. */
  async function dispatchTwo(): Promise<{ operations: string[]; outcomes: Record<string, unknown>[] }> {
    const socket = robot.sidecar.localApiSocket!;
    const body = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: plant.door1 };
    const created = await Promise.all([0, 1].map(() => unixRequest(socket, 'POST', '/operations', { body })));
    expect(created.map((c) => c.status)).toEqual([201, 201]);
    const operations = created.map((c) => (c.json as { operation: string }).operation);
    const outcomes = await Promise.all(
      operations.map(
        async (op) =>
          (await unixRequest(socket, 'GET', `/operations/status?iri=${encodeURIComponent(op)}&waitMs=20000`, { timeoutMs: 30_000 }))
            .json as Record<string, unknown>,
      ),
    );
    return { operations, outcomes };
  }

  /** The device calls of `operations`, in the order they arrived; each Operation exactly once. */
  function callsOf(operations: string[]): DeviceCall[] {
    for (const op of operations) expect([op, device.executions(op).length]).toEqual([op, 1]);
    return operations.map((op) => device.executions(op)[0]!).sort((a, b) => a.at - b.at);
  }

  async function withDoor1(args: readonly string[], run: () => Promise<void>): Promise<void> {
    const door = await startDoor1(group, join(dir, `door1-${args.length}`), store, { bridge: { ...bridge, socket: device.socket }, args });
    try {
      await run();
    } finally {
      await door.sidecar.proc.kill();
    }
  }

  onStore(
    'should run two dispatched Operations on the device at once with --operation-concurrency 2, and one after the other by default',
    async () => {
      await withDoor1(['--operation-concurrency', '2'], async () => {
        const { operations, outcomes } = await dispatchTwo();
        expect(outcomes.map((o) => o.status)).toEqual(['done', 'done']);
        const [first, second] = callsOf(operations);
        // The second call reached the device while the first was still running there.
        expect(second!.at).toBeLessThan(first!.answeredAt!);
      });
      await withDoor1([], async () => {
        const { operations, outcomes } = await dispatchTwo();
        expect(outcomes.map((o) => o.status)).toEqual(['done', 'done']);
        const [first, second] = callsOf(operations);
        expect(second!.at).toBeGreaterThanOrEqual(first!.answeredAt!);
      });
    },
    120_000,
  );
});
