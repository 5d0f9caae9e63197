import { describe, expect } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDevice, operationRunner } from '../../src/device/index.js';
import { TriggerDeliveryError, ValueError } from '../../src/errors.js';
import { buildEventTriggerUrl, mintCapabilityIri, mintOperationIri } from '../../src/iri/index.js';
import { RECLAIM_REASON } from '../../src/middleware/constants.js';
import { readOperation, waitForOperation } from '../../src/middleware/operations/operation-watch.js';
import { cancelOperation, createOperation, setOperationStatus } from '../../src/registration/index.js';
import { plant, sm } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { FlakyStore, middlewareSuite, OPEN, OPEN_REQUEST, postJson, until } from './support/harness.js';

/**
 * Deadlines and cancellation on the receiver (claim.ts, terminal-write.ts, cancel-watch.ts): an
 * Operation past its deadline is failed, never run, also when the deadline passed while the
 * receiver's store link was down; a running Operation cancelled by a caller has its device call
 * aborted (a real HTTP device on loopback sees the request cut) and ends failed once, with kind
 * cancelled and who cancelled it.
 */

const G = 'urn:test:middleware:cancel-deadline';

/** A FlakyStore that reports its injected failures as failed requests, as a remote store does. */
class OutageStore extends FlakyStore {
  get failedRequests(): number {
    return this.failures;
  }
}

/** An HTTP device whose `/open` never answers; it records each request and whether its caller cut it. */
async function hangingDevice(): Promise<{ server: Server; url: string; calls: { body: string; aborted: boolean }[] }> {
  const calls: { body: string; aborted: boolean }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const call = { body: '', aborted: false };
    calls.push(call);
    req.on('data', (chunk: Buffer) => (call.body += chunk.toString()));
    res.on('close', () => (call.aborted = !res.writableFinished));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

describe.each(['embedded', 'remote'] as const)('deadlines and cancellation on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore, queuedOp } = suite;
  const trigger = (address: string, op: string) => postJson(buildEventTriggerUrl(address), { operation_iri: op });
  const outcome = (op: string) => waitForOperation(suite.newOgm(), op, { timeoutMs: 15_000 });
  const statusTriples = async (op: string) =>
    (await suite.dump()).split('\n').filter((l) => l.startsWith(`<${op}> <https://w3id.org/circularfactory/Service#operationStatus>`));
  const withDeadline = async (deadline: Date): Promise<string> => {
    const operationIri = mintOperationIri(plant.OpenDoorOperation);
    const capabilityIri = mintCapabilityIri(plant.door1, 'open');
    await createOperation(suite.newOgm(), { operationIri, operationClass: plant.OpenDoorOperation, capabilityIri, deadline });
    return operationIri;
  };

  onStore(
    'should abort the device call of a running Operation a caller cancels, and fail it once as cancelled, naming the caller',
    async () => {
      const device = await hangingDevice();
      const client = openDevice(device.url);
      try {
        const door = suite.controller();
        door.registerCallback(operationRunner(client, [{ ...OPEN, path: '/open', timeoutMs: 60_000 }]));
        await door.start();
        const op = await queuedOp();
        expect((await trigger(door.address!, op)).status).toBe(200);
        await until(() => device.calls.length === 1, 'the device call');
        expect(JSON.parse(device.calls[0]!.body)).toMatchObject({ operation: op });
        const cancel = await cancelOperation(suite.newOgm(), op, { by: 'planner:line-2' });
        expect(cancel).toMatchObject({ outcome: 'requested', status: 'running' });
        await until(() => device.calls[0]!.aborted, 'the device to see its request aborted');
        const final = await outcome(op);
        expect(final).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: 'planner:line-2' });
        expect(final.result).toBe('cancelled by planner:line-2 while running; its work was stopped');
        expect(await statusTriples(op)).toHaveLength(1);
        expect(device.calls).toHaveLength(1);
      } finally {
        await client.close();
        device.server.closeAllConnections();
        await new Promise((r) => device.server.close(r));
      }
    },
  );

  onStore('should cancel a queued Operation through the middleware and never run it; a running one of its own stops at once', async () => {
    const door = suite.controller();
    const started: string[] = [];
    door.registerCallback(async (claimed) => {
      started.push(claimed.operationIri);
      await new Promise((_resolve, reject) => claimed.signal.addEventListener('abort', () => reject(claimed.signal.reason as Error)));
    });
    await door.start();
    const first = await queuedOp();
    const second = await queuedOp();
    for (const op of [first, second]) await trigger(door.address!, op);
    await until(() => started.length === 1, 'the first claim');
    expect(await door.cancel(second)).toMatchObject({ outcome: 'cancelled', cancelledBy: door.serviceIri });
    expect(await door.cancel(first, { by: 'cli:alice' })).toMatchObject({ outcome: 'requested' });
    expect(await outcome(first)).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: 'cli:alice' });
    expect(await outcome(second)).toMatchObject({
      status: 'failed',
      failureKind: 'cancelled',
      result: expect.stringContaining('while queued; not run'),
    });
    await until(() => door.queued.length === 0, 'the queue to drain');
    expect(started).toEqual([first]);
    const refused = await rejection(door.cancel(first));
    expect((refused as { status?: number }).status).toBe(409);
  });

  onStore('should fail an Operation past its deadline instead of running it, triggered or picked up at start', async () => {
    const early = await withDeadline(new Date(Date.now() + 300));
    await new Promise((r) => setTimeout(r, 400));
    const door = suite.controller();
    const ran: string[] = [];
    door.registerCallback((claimed) => void ran.push(claimed.operationIri));
    await door.start();
    const late = await withDeadline(new Date(Date.now() + 200));
    await new Promise((r) => setTimeout(r, 300));
    expect((await trigger(door.address!, late)).status).toBe(200);
    const inTime = await withDeadline(new Date(Date.now() + 60_000));
    expect((await trigger(door.address!, inTime)).status).toBe(200);
    expect(await outcome(inTime)).toMatchObject({ status: 'done' });
    for (const op of [early, late]) {
      expect(await outcome(op)).toMatchObject({
        status: 'failed',
        failureKind: 'deadline',
        result: expect.stringContaining('passed before the operation started; not run'),
      });
    }
    expect(ran).toEqual([inTime]);
  });

  onStore("should never run an Operation whose deadline passed while the receiver's store link was down", async () => {
    const store = new OutageStore(suite.store!);
    const door = suite.controller({ ogm: suite.newOgm(store) });
    const ran: string[] = [];
    door.registerCallback((claimed) => void ran.push(claimed.operationIri));
    await door.start();
    store.failing = () => true;
    // The caller's link works: the Operation is created, but the receiver refuses its trigger (503).
    const op = await withDeadline(new Date(Date.now() + 1_000));
    expect((await trigger(door.address!, op)).status).toBe(503);
    await new Promise((r) => setTimeout(r, 1_500));
    store.failing = undefined;
    // After its next good heartbeat the receiver re-reads its queued work, and fails this one.
    expect(await outcome(op)).toMatchObject({ status: 'failed', failureKind: 'deadline' });
    expect(ran).toEqual([]);
  });

  onStore(
    'should never run an Operation its caller cancelled after giving up while the receiver could not write to the store',
    async () => {
      const store = new OutageStore(suite.store!);
      const door = suite.controller({ ogm: suite.newOgm(store) });
      const ran: string[] = [];
      door.registerCallback((claimed) => void ran.push(claimed.operationIri));
      await door.start();
      // The receiver takes a trigger that does not describe the Operation (the Python reference's)
      // with a read, but cannot claim (a write) ...
      store.failing = (k) => k === 'update';
      const planner = suite.create({ mode: 'watchdog' });
      const op = await withDeadline(new Date(Date.now() + 2_000));
      expect((await trigger(door.address!, op)).status).toBe(200);
      await until(() => store.failures > 0, 'a failed claim');
      // ... so its caller gives up and cancels it, as `request --timeout` does.
      expect(await planner.cancel(op, { by: 'cli:carol' })).toMatchObject({ outcome: 'cancelled', status: 'failed' });
      store.failing = undefined;
      await until(() => door.queued.length === 0, 'the receiver to drop it');
      await new Promise((r) => setTimeout(r, 500));
      expect(ran).toEqual([]);
      expect(await outcome(op)).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: 'cli:carol' });
    },
  );

  onStore('should refuse a trigger whose claim the store did not take, so the caller reverts, and never run it later', async () => {
    const store = new OutageStore(suite.store!);
    const door = suite.controller({ ogm: suite.newOgm(store) });
    const ran: string[] = [];
    door.registerCallback((claimed) => void ran.push(claimed.operationIri));
    await door.start();
    // The idle receiver claims inside the trigger: the claim is its only store request, and it fails.
    store.failing = (k) => k === 'update';
    const planner = suite.create({ mode: 'watchdog' });
    const operationIri = mintOperationIri(plant.OpenDoorOperation);
    const error = await rejection(planner.request({ ...OPEN_REQUEST, operationIri }));
    expect(error).toBeInstanceOf(TriggerDeliveryError);
    expect(String(error)).toMatch(/answered 503/);
    expect(await statusTriples(operationIri)).toEqual([]);
    // The receiver retries the claim once its store answers, and finds nothing to run.
    store.failing = undefined;
    await until(() => door.queued.length === 0, 'the receiver to drop it');
    await new Promise((r) => setTimeout(r, 300));
    expect(ran).toEqual([]);
    expect(await statusTriples(operationIri)).toEqual([]);
  });

  onStore('should fail as cancelled, not re-run, a running Operation whose receiver died after a cancel was requested', async () => {
    const cancelled = await queuedOp();
    const orphan = await queuedOp();
    const ogm = suite.newOgm();
    for (const op of [cancelled, orphan]) await setOperationStatus(ogm, { operationIri: op, status: 'running' });
    expect(await cancelOperation(ogm, cancelled, { by: 'cli:bob' })).toMatchObject({ outcome: 'requested' });
    // The receiver that was running both comes back: it fails them, and runs neither.
    const door = suite.controller();
    const ran: string[] = [];
    door.registerCallback((claimed) => void ran.push(claimed.operationIri));
    await door.start();
    expect(await readOperation(ogm, cancelled)).toMatchObject({
      status: 'failed',
      failureKind: 'cancelled',
      cancelledBy: 'cli:bob',
      result: expect.stringContaining('its receiver had stopped before it finished'),
    });
    expect(await readOperation(ogm, orphan)).toMatchObject({ status: 'failed', failureKind: 'orphaned', result: RECLAIM_REASON });
    expect(ran).toEqual([]);
  });

  onStore('should refuse a request with a past or malformed deadline and write nothing', async () => {
    const door = suite.controller();
    await door.start();
    const planner = suite.create({ mode: 'watchdog' });
    const before = await suite.dump();
    for (const deadline of ['2020-01-01T00:00:00Z', 'tomorrow', '2030-01-01T00:00:00', '2030-13-45T99:00:00Z', new Date('x'), 42]) {
      const error = await rejection(planner.request({ ...OPEN_REQUEST, deadline: deadline as string }));
      expect(error).toBeInstanceOf(ValueError);
    }
    expect(await suite.dump()).toBe(before);
    const op = await planner.request({ ...OPEN_REQUEST, deadline: new Date(Date.now() + 60_000) });
    expect((await suite.dump()).includes(`<${op}> <${sm.deadline}>`)).toBe(true);
  });
});
