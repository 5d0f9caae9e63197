import { describe, expect } from '@jest/globals';
import type { Socket } from 'node:net';
import { buildEventTriggerUrl, mintOperationIri } from '../../src/iri/index.js';
import { OperationQueueEmpty, UnavailableError } from '../../src/middleware/index.js';
import { recordTerminalStatus, setOperationStatus } from '../../src/registration/index.js';
import { LIMITS } from '../../src/limits.js';
import { PLANT, plant } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { gate, middlewareSuite, OPEN_REQUEST, postJson, until } from './support/harness.js';

const G = 'urn:test:middleware:trigger';

describe.each(['embedded', 'remote'] as const)('the event trigger on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const { queuedOp } = suite;
  const trigger = (address: string, operationIri: unknown) => postJson(buildEventTriggerUrl(address), { operation_iri: operationIri });

  onStore('should acknowledge a duplicate trigger without enqueueing it twice', async () => {
    const door = suite.controller();
    await door.start();
    const op = await queuedOp();
    const answers = await Promise.all([trigger(door.address!, op), trigger(door.address!, op), trigger(door.address!, op)]);
    for (const a of answers) expect(a).toEqual({ status: 200, body: { operation: op, status: 'queued' } });
    expect(door.queued).toEqual([op]);
    expect(await trigger(door.address!, op)).toMatchObject({ status: 200 });
    expect(door.queued).toEqual([op]);
    let runs = 0;
    expect(await door.claimNext(() => ++runs)).toBe(1);
    expect(await rejection(door.claimNext(() => ++runs))).toBeInstanceOf(OperationQueueEmpty);
  });

  onStore('should answer 404, 409 and 422 for Operations it must not enqueue, with a clear detail', async () => {
    const door = suite.controller();
    await door.start();
    const ogm = suite.newOgm();
    const unknown = mintOperationIri(plant.OpenDoorOperation);
    const missing = await trigger(door.address!, unknown);
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain(unknown);
    const running = await queuedOp();
    await setOperationStatus(ogm, { operationIri: running, status: 'running' });
    expect(await trigger(door.address!, running)).toMatchObject({ status: 409, body: { detail: expect.stringContaining("'running'") } });
    const done = await queuedOp();
    await setOperationStatus(ogm, { operationIri: done, status: 'running' });
    await recordTerminalStatus(ogm, { operationIri: done, workflowIri: `${door.serviceIri}_workflow_open`, status: 'done' });
    expect(await trigger(door.address!, done)).toMatchObject({ status: 409, body: { detail: expect.stringContaining("'done'") } });
    const elsewhere = await queuedOp({ resource: PLANT('door2') });
    const foreign = await trigger(door.address!, elsewhere);
    expect(foreign.status).toBe(409);
    expect(foreign.body.detail).toMatch(/not addressed to a Capability this Service .* realizes/);
    expect((await trigger(door.address!, 'not an iri')).status).toBe(422);
    expect((await postJson(buildEventTriggerUrl(door.address!), {})).status).toBe(422);
    expect(door.queued).toEqual([]);
  });

  onStore('should answer 503 while stopping, and a watchdog has no trigger', async () => {
    const door = suite.controller({ shutdownGraceMs: 5_000 });
    const lock = gate();
    door.registerCallback(() => lock.promise);
    await door.start();
    const first = await queuedOp();
    await trigger(door.address!, first);
    await until(() => door.queued.length === 0, 'the callback to claim');
    const stopping = door.stop();
    const second = await queuedOp();
    const answer = await trigger(door.address!, second);
    expect(answer.status).toBe(503);
    expect(answer.body.detail).toMatch(/stopping/);
    lock.open();
    await stopping;
    expect((await door.readOperation(first))?.status).toBe('done');
    expect((await door.readOperation(second))?.status).toBe('queued');
    const watchdog = suite.create({ mode: 'watchdog' });
    await watchdog.start();
    expect((await trigger(watchdog.address!, second)).status).toBe(503);
    expect(await rejection(door.claimNext(() => 1))).toBeInstanceOf(UnavailableError);
  });

  onStore(
    'should run each of 20 Operations exactly once under concurrent triggers and claims on two instances',
    async () => {
      // Two controllers of one resource share the `open` Capability, so both accept every trigger.
      const runs = new Map<string, number>();
      const work = async (claimed: { operationIri: string }) => {
        runs.set(claimed.operationIri, (runs.get(claimed.operationIri) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 5));
        return 'ok';
      };
      const a = suite.controller();
      const b = suite.controller();
      a.registerCallback(work);
      await Promise.all([a.start(), b.start()]);
      const ops = await Promise.all(Array.from({ length: 20 }, () => queuedOp()));
      const triggers = ops.flatMap((op) => [trigger(a.address!, op), trigger(b.address!, op), trigger(a.address!, op)]);
      const answers = await Promise.all(triggers);
      // A trigger arriving after another instance claimed the Operation is refused (409: running).
      expect(answers.filter((x) => x.status !== 200 && x.status !== 409)).toEqual([]);
      for (const op of ops) expect(answers.some((x) => x.status === 200 && x.body.operation === op)).toBe(true);
      // Manual claims on b race a's callback worker for the same Operations.
      const manual = async (): Promise<void> => {
        for (;;) {
          const e = await rejection(b.claimNext(work));
          if (e instanceof OperationQueueEmpty) return;
        }
      };
      await Promise.all([manual(), manual(), manual()]);
      await until(
        async () => {
          const snaps = await Promise.all(ops.map((op) => a.readOperation(op)));
          return snaps.every((s) => s?.status === 'done');
        },
        'every Operation to be done',
        20_000,
      );
      expect(ops.map((op) => runs.get(op))).toEqual(ops.map(() => 1));
    },
    60_000,
  );

  onStore('should ring triggers on a kept-alive connection of its own, and close it at stop', async () => {
    const door = suite.controller({ heartbeatInterval: null });
    door.registerCallback(() => 'opened');
    await door.start();
    let [opened, open] = [0, 0];
    door.server!.on('connection', (socket: Socket) => {
      opened += 1;
      open += 1;
      socket.once('close', () => (open -= 1));
    });
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null });
    await robot.start();
    for (let i = 0; i < 3; i++) {
      const op = await robot.request(OPEN_REQUEST);
      expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
    }
    expect([opened, open]).toEqual([1, 1]);
    await robot.stop();
    // Well before LIMITS.keepAliveIdleMs would close it as idle.
    await until(() => open === 0, "the robot's connection closed", LIMITS.keepAliveIdleMs / 2);
  });
});
