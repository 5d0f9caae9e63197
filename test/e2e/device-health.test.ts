/**
 * Device-aware health as real processes: door1's sidecar starts before its mock bridge exists on
 * the Unix socket, on the served embedded store and on Virtuoso. While the bridge is away the
 * sidecar is not ready, not discoverable and refuses its event trigger with a clear error; once
 * the bridge listens it becomes all three and runs a dispatched Operation; a killed bridge
 * withdraws it again.
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OperationResolutionError } from '../../src/errors.js';
import { mintCapabilityIri, mintOperationIri } from '../../src/iri/index.js';
import { createOperation } from '../../src/registration/operations.js';
import { plant, sm } from '../../src/vocab/index.js';
import { closeFaultCell, getJson, inProcessCaller, openCellStore, operationWhen, until } from '../faults/support/fault-cell.js';
import { ensureBuilt } from '../support/build.js';
import { rejection } from '../support/per-store.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { cellSuite, DOOR1_CONFIG, type CellStore } from './support/cell.js';
import { startBridge, startSidecar, type BridgeProc, type SidecarProc } from './support/daemons.js';

const OPEN = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: plant.door1 };
const WARNING = 'the device does not answer: its calls fail until it does';

describe.each(['served', 'virtuoso'] as const)('a sidecar whose device comes and goes, on the %s store', (kind) => {
  const { enabled, onStore } = cellSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let cell: CellStore;
  let socket: string;
  let door: SidecarProc;
  let bridge: BridgeProc | undefined;

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-e2e-device-health-${kind}-`));
    cell = await openCellStore(kind, group);
    socket = join(dir, 'door1-device.sock');
    const graph = cell.kind === 'virtuoso' ? ['--graph', cell.graph] : [];
    door = await startSidecar(
      group,
      'door1',
      ['--config', DOOR1_CONFIG, '--store', cell.url, ...graph, '--port', '0', '--heartbeat-interval', '1'].concat([
        '--local-api-socket',
        join(dir, 'local.sock'),
        '--device',
        `unix:${socket}`,
      ]),
      { cwd: dir, env: { STATE_DIRECTORY: join(dir, 'state'), SIDECAR_DEVICE_HEALTH_INTERVAL_MS: '200' } },
    );
  }, 180_000);

  afterAll(() => (enabled ? closeFaultCell(group, cell, dir) : undefined), 60_000);

  const marked = (): Promise<boolean> =>
    cell.client.ask(`ASK { GRAPH <${cell.graph}> { <${door.service}> <${sm.deviceUnavailableSince}> ?since } }`);
  const readyz = (): Promise<{ status: number; json: unknown }> => getJson(`${door.address}/readyz`);

  /** A queued Operation addressed to door1's `open` Capability, written directly, and its trigger rung. */
  async function ring(): Promise<{ operation: string; status: number; detail: unknown }> {
    const operation = mintOperationIri(plant.OpenDoorOperation);
    await createOperation(cell.ogm, {
      operationIri: operation,
      operationClass: plant.OpenDoorOperation,
      capabilityIri: mintCapabilityIri(plant.door1, 'open'),
      namedGraph: cell.graph,
    });
    const res = await fetch(`${door.address}/workflows/event_trigger/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation_iri: operation }),
    });
    return { operation, status: res.status, detail: ((await res.json()) as { detail?: unknown }).detail };
  }

  async function expectWithdrawn(): Promise<void> {
    const notReady = await readyz();
    expect(notReady.status).toBe(503);
    expect((notReady.json as { detail: string }).detail).toMatch(
      /^not ready: the device of this Service does not answer its health probe/u,
    );
    expect(JSON.stringify(notReady.json)).not.toContain(socket);
    expect(await marked()).toBe(true);
    const refused = await rejection(inProcessCaller(cell).request(OPEN));
    expect(refused).toBeInstanceOf(OperationResolutionError);
    expect((refused as Error).message).toMatch(/skipped 1 realizer\(s\) whose device is unavailable/u);
    const rung = await ring();
    expect(rung.status).toBe(503);
    expect(rung.detail).toMatch(/does not answer its health probe .*: the Operation was not enqueued/u);
  }

  onStore(
    'should be neither ready nor discoverable without its device, refuse dispatch clearly, and serve once the device answers',
    async () => {
      // Warned at once, and withdrawn before it was ever offered.
      expect(door.proc.logs().some((l) => l.msg === WARNING)).toBe(true);
      await expectWithdrawn();

      bridge = await startBridge(group, 'door1-bridge', { kind: 'door', socket });
      await until(async () => ((await readyz()).status === 200 ? true : undefined), 'the sidecar ready', 20_000);
      expect(await marked()).toBe(false);
      const operation = await inProcessCaller(cell).request(OPEN);
      expect((await operationWhen(cell, operation, (s) => s?.status === 'done', 20_000))?.status).toBe('done');
      expect(bridge.requests().some((r) => r.method === 'POST' && r.path === '/open')).toBe(true);
    },
    90_000,
  );

  onStore(
    'should withdraw it again when the device dies, and offer it when the device is back',
    async () => {
      expect(bridge).toBeDefined();
      await bridge!.proc.kill('SIGKILL');
      await until(async () => ((await marked()) ? true : undefined), 'the device marked unavailable', 20_000);
      await expectWithdrawn();
      const logs = door.proc.logs();
      expect(logs.some((l) => l.msg === 'the device does not answer: its Capabilities are withdrawn from discovery')).toBe(true);
      bridge = await startBridge(group, 'door1-bridge-2', { kind: 'door', socket });
      await until(async () => ((await marked()) ? undefined : true), 'the device available again', 20_000);
      expect((await readyz()).status).toBe(200);
      const operation = await inProcessCaller(cell).request(OPEN);
      expect((await operationWhen(cell, operation, (s) => s?.status === 'done', 20_000))?.status).toBe('done');
    },
    90_000,
  );
});
