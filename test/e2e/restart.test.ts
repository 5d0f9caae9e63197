/**
 * A sidecar killed with -9 and restarted on the same port, with a durable store (`store serve
 * --data-dir`, itself restarted in between): its queued Operation resumes, its running one is
 * failed as orphaned and never re-run. As real processes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RECLAIM_REASON } from '../../src/middleware/index.js';
import { readOperation, type OperationSnapshot } from '../../src/middleware/operations/operation-watch.js';
import { OGM } from '../../src/ogm/index.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { DEFAULT_DATA_GRAPH } from '../../src/vocab/defaults.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { ensureBuilt } from '../support/build.js';
import { requestCli, servedStore, startDoor1, type CellStore } from './support/cell.js';
import { startStore } from './support/daemons.js';

const group = new ProcessGroup();
let dir: string;
let store: CellStore | undefined;

/** Polls the Operation every 100 ms until `done(snapshot)`; rejects after `timeoutMs`. */
async function waitForSnapshot(
  ogm: OGM,
  operation: string,
  done: (s: OperationSnapshot | null) => boolean,
  timeoutMs = 15_000,
): Promise<OperationSnapshot | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const snapshot = await readOperation(ogm, operation);
    if (done(snapshot)) return snapshot;
    if (Date.now() > deadline) throw new Error(`Operation <${operation}> is still ${JSON.stringify(snapshot)} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'sm-e2e-restart-'));
}, 120_000);

afterAll(async () => {
  await group.cleanup();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

/** Requests `open` with the device hanging (it stays running), then `close` (it stays queued behind it). */
async function runningAndQueued(cell: CellStore): Promise<{ running: string; queued: string }> {
  const running = await requestCli(cell, [
    '--capability',
    'plant:DoorOpeningCapability',
    '--operation-class',
    'plant:OpenDoorOperation',
    '--data',
    '{"hang":true}',
  ]);
  expect(running.code).toBe(0);
  await waitForSnapshot(cell.ogm, running.operation, (s) => s?.status === 'running');
  const queued = await requestCli(cell, ['--capability', 'plant:DoorClosingCapability', '--operation-class', 'plant:CloseDoorOperation']);
  expect(queued.code).toBe(0);
  await sleep(300);
  expect(await readOperation(cell.ogm, queued.operation)).toMatchObject({ status: 'queued' });
  return { running: running.operation, queued: queued.operation };
}

/** Stops the served store and serves its data dir again on the same port; resolves with the new cell store. */
async function restartStore(cell: CellStore, dataDir: string): Promise<CellStore> {
  expect(await cell.served!.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  await cell.close();
  const served = await startStore(group, ['--data-dir', dataDir, '--port', new URL(cell.url).port]);
  expect(served.url).toBe(cell.url);
  const client = openRemoteStore({ queryUrl: served.url });
  return { ...cell, served, client, ogm: new OGM({ store: client, graph: DEFAULT_DATA_GRAPH }), close: () => client.close() };
}

describe('a sidecar killed with -9 and restarted', () => {
  it('should resume its queued Operation and fail its running one as orphaned, never re-running it', async () => {
    const dataDir = join(dir, 'store');
    store = await servedStore(group, ['--data-dir', dataDir, '--provision']);
    // A long device timeout: the hung call must still be running when the sidecar is killed.
    const env = { SIDECAR_DEVICE_TIMEOUT_MS: '60000' };
    const { bridge, sidecar } = await startDoor1(group, dir, store, { env });
    const { running, queued } = await runningAndQueued(store);

    expect((await sidecar.proc.kill('SIGKILL')).signal).toBe('SIGKILL');
    expect(await bridge.logged((rs) => rs.length > 0, 'the dropped call in the bridge log')).toEqual([
      expect.objectContaining({ method: 'POST', path: '/open', status: null }),
    ]);
    // The store restarts from its data dir, with both Operations as they were.
    store = await restartStore(store, dataDir);
    expect(await readOperation(store.ogm, running)).toMatchObject({ status: 'running' });
    expect(await readOperation(store.ogm, queued)).toMatchObject({ status: 'queued' });

    const restarted = await startDoor1(group, dir, store, { env, bridge, port: sidecar.port });
    expect(restarted.sidecar.service).toBe(sidecar.service);
    expect(await readOperation(store.ogm, running)).toMatchObject({ status: 'failed', result: RECLAIM_REASON });
    const closed = await waitForSnapshot(store.ogm, queued, (s) => s?.status === 'done');
    expect(closed).toMatchObject({ workflowIri: `${sidecar.service}_workflow_close` });
    expect(JSON.parse(closed!.result!)).toEqual({ ok: true, door: 'closed', operation: queued });
    const reclaimed = restarted.sidecar.proc.logs().filter((l) => l.msg === 'orphaned running operation failed at start-up (not re-run)');
    expect(reclaimed.map((l) => l.operation)).toEqual([running]);

    // Given time to misbehave, the device still saw `open` once (the dropped call) and `close` once.
    await sleep(1000);
    expect(bridge.requests().map((r) => [r.path, r.status])).toEqual([
      ['/open', null],
      ['/close', 200],
    ]);
    expect(await readOperation(store.ogm, running)).toMatchObject({ status: 'failed', result: RECLAIM_REASON });
  }, 120_000);
});
