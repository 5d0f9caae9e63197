import { describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mintCapabilityIri, mintWorkflowIri } from '../../src/iri/index.js';
import { OperationResolutionError, TriggerDeliveryError, ValueError, type Claimed } from '../../src/middleware/index.js';
import type { FailureSnapshot } from '../../src/middleware/operations/failure-state.js';
import { servicesOfResource } from '../../src/registration/index.js';
import { PLANT, plant, svc, w3 } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import type { Bindings } from '../../src/store/triple-store.js';

/** The cancel watch's query (`cancelRequestsQuery`): the running Operations, and a cancel request of theirs. */
const CANCEL_WATCH = /VALUES \?op[^}]*\}\s*\?op <https:\/\/w3id\.org\/semantic-middleware#cancelRequested>/u;
import {
  ANGLE,
  DOOR_STATE,
  FlakyStore,
  gate,
  middlewareSuite,
  NOTE,
  OPEN,
  OPEN_REQUEST,
  registerOpenReceiver,
  until,
} from './support/harness.js';

const G = 'urn:test:middleware:dispatch';
const DOOR2 = PLANT('door2');
/** A FlakyStore that runs `beforeSelect`, once, before the next SELECT goes to the store. */
class ReadHookStore extends FlakyStore {
  beforeSelect: (() => Promise<void>) | undefined;
  override async select(query: string): Promise<Bindings[]> {
    const hook = this.beforeSelect;
    this.beforeSelect = undefined;
    await hook?.();
    return super.select(query);
  }
}

/** Angles of the quick Operations that set a worker's pace (see busyDoor). */
const PACE = [10, 11, 12, 13, 14, 15, 16, 17];

describe.each(['embedded', 'remote'] as const)('dispatch between middleware instances on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  /** A robot instance used as the caller (the planner side); no heartbeat, so graph dumps stay comparable. */
  async function caller() {
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null });
    await robot.start();
    return robot;
  }

  onStore('should discover the door, deliver the trigger, run the callback and record done with provenance', async () => {
    const door = suite.controller({ activityFeed: true });
    const seen: Claimed[] = [];
    door.registerCallback((claimed) => {
      seen.push(claimed);
      return { opened: claimed.data.testAngle };
    });
    await door.start();
    const robot = await caller();
    const op = await robot.request(OPEN_REQUEST, (draft) => {
      expect(draft.target.serviceIri).toBe(door.serviceIri);
      expect(draft.target.address).toBe(door.address);
      draft.data.testAngle = 90;
      draft.data[NOTE] = 'left wing';
    });
    const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
    const workflowIri = mintWorkflowIri(door.serviceIri!, 'open');
    expect(outcome).toMatchObject({ operationIri: op, status: 'done', result: '{"opened":90}', workflowIri });
    expect(outcome.timestamp).toBeInstanceOf(Date);
    expect(Math.abs(outcome.timestamp!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ operationIri: op, workflowIri, workflowName: 'open', data: { testAngle: 90, testNote: 'left wing' } });
    expect(seen[0]!.operation.types).toEqual([plant.OpenDoorOperation]);
    const dump = await suite.dump();
    expect(dump).toContain(`<${op}> <${svc.executedByWorkflow}> <${workflowIri}>`);
    expect(dump).toContain(`<${op}> <${ANGLE}> "90"`);
    const kinds = door.activity!.entries().entries.map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['registered', 'trigger', 'claim', 'done']));
  });

  onStore('should cost an idle receiver told what the Operation holds 2 store requests: claim and terminal write', async () => {
    const observed = new FlakyStore(suite.store!);
    const calls: string[] = [];
    // The cancel watch asks about work that runs longer than its interval (a loaded machine may
    // take that long): a cost per second of running, not per Operation, so not counted here.
    observed.failing = (kind, text) => (CANCEL_WATCH.test(text) || calls.push(kind), false);
    const door = suite.controller({ heartbeatInterval: null, ogm: suite.newOgm(observed) });
    door.registerCallback(() => 'opened');
    await door.start();
    const robot = await caller();
    calls.length = 0;
    const op = await robot.request(OPEN_REQUEST);
    expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
    // The trigger carries the Operation as written and is answered once the claim applied: no
    // route read, no fetch after the claim, no type lookup.
    expect(calls).toEqual(['update', 'update']);
  });

  /**
   * A door whose store calls are counted (`calls`, from the held Operation's claim on), whose
   * callback holds the Operation with `testAngle` 2 until `held` opens, a caller, and that
   * Operation (`first`) running. With `paced`, quick Operations run first (`PACE`, their angles),
   * so the worker knows its pace, a few ms a claim, whatever the first cold ones took; without,
   * it has timed no claim yet.
   */
  async function busyDoor({ paced }: { paced: boolean }) {
    const observed = new ReadHookStore(suite.store!);
    const calls: string[] = [];
    observed.failing = (kind, text) => (CANCEL_WATCH.test(text) || calls.push(kind), false);
    const door = suite.controller({ heartbeatInterval: null, ogm: suite.newOgm(observed) });
    const held = gate();
    const ran: number[] = [];
    door.registerCallback(async ({ data }) => {
      ran.push(Number(data.testAngle));
      if (Number(data.testAngle) === 2) await held.promise;
      return 'opened';
    });
    await door.start();
    const robot = await caller();
    for (const angle of paced ? PACE : []) {
      const op = await robot.request(OPEN_REQUEST, (draft) => void (draft.data.testAngle = angle));
      expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
    }
    calls.length = 0;
    const first = await robot.request(OPEN_REQUEST, (draft) => void (draft.data.testAngle = 2));
    await until(() => ran.includes(2), 'the held Operation to run');
    return { door, robot, calls, held, ran, first, observed };
  }

  /**
   * A second Operation triggered while the first is held: its trigger answers after one read
   * (at once, or after waiting in vain for the claim), with it queued; then both run once, in order.
   */
  async function readWhileBusy({ paced }: { paced: boolean }): Promise<void> {
    const { door, robot, calls, held, ran, first } = await busyDoor({ paced });
    const second = await robot.request(OPEN_REQUEST, (draft) => void (draft.data.testAngle = 3));
    expect(door.queued).toEqual([second]);
    expect(calls).toEqual(['update', 'select']);
    held.open();
    for (const op of [first, second]) expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
    expect(ran).toEqual([...(paced ? PACE : []), 2, 3]);
    expect(calls).toEqual(['update', 'select', 'update', 'update', 'update']);
  }

  onStore('should resolve with one read an Operation triggered while the receiver is busy, and claim it after', () =>
    // The only runner is busy and has no pace yet: the trigger reads at once.
    readWhileBusy({ paced: false }),
  );

  // Embedded only, and up to three tries: the claim must come within 2 x LIMITS.triggerClaimWaitMs
  // of the trigger and the worker's pace within the budget, which a loaded machine or a remote store
  // may not give. The trigger then reads, which is right (the next test) but not what this one
  // looks for; with the wait gone, every try reads.
  (kind === 'embedded' ? onStore : it.skip)(
    'should answer a trigger that finds the receiver busy once its claim applied, without a read, when the claim comes soon',
    async () => {
      const tries: string[][] = [];
      while (tries.length < 3 && !tries.some((calls) => !calls.includes('select'))) {
        const { door, robot, calls, held, ran, first } = await busyDoor({ paced: true });
        const requested = robot.request(OPEN_REQUEST, (draft) => void (draft.data.testAngle = 3));
        // Enqueued in its place at once when its trigger waits (after its read when it does not).
        while (door.queued.length === 0) await new Promise((resolve) => setImmediate(resolve));
        held.open();
        const second = await requested;
        for (const op of [first, second]) expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
        expect(ran).toEqual([...PACE, 2, 3]);
        tries.push([...calls]);
        await robot.stop();
        await door.stop();
      }
      // Claim and terminal write of each, no read of the second.
      expect(tries.find((calls) => !calls.includes('select'))).toEqual(['update', 'update', 'update', 'update']);
    },
  );

  // Embedded only, and up to three tries, for the reasons above: the trigger must have waited.
  (kind === 'embedded' ? onStore : it.skip)(
    'should answer a busy trigger as delivered when its claim applies while its late read is under way',
    async () => {
      let raced = 0;
      for (let attempt = 0; attempt < 3 && raced === 0; attempt++) {
        const { door, robot, held, ran, first, observed } = await busyDoor({ paced: true });
        // The read that follows a late claim: before it reaches the store, the held Operation ends
        // and the waiting one is claimed and runs, so the read finds it no longer queued.
        observed.beforeSelect = async () => {
          const waited = door.queued.length === 1;
          held.open();
          if (!waited) return;
          await until(() => ran.includes(3), 'the waiting Operation to be claimed');
          raced += 1;
        };
        const second = await robot.request(OPEN_REQUEST, (draft) => void (draft.data.testAngle = 3));
        for (const op of [first, second]) expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
        expect(ran).toEqual([...PACE, 2, 3]);
        await robot.stop();
        await door.stop();
      }
      expect(raced).toBe(1);
    },
  );

  onStore('should run an Operation whose trigger found the receiver busy once, in order, however late its claim', () =>
    // The held Operation keeps the only runner: the trigger waits for the claim, then reads.
    readWhileBusy({ paced: true }),
  );

  onStore('should record failed with the message and a failure snapshot whose id is the resource', async () => {
    const door = suite.controller();
    door.state(DOOR_STATE, () => 'jammed');
    door.state({ capabilityClass: plant.DoorStateCapability, statePropertyClass: plant.DoorStateProperty, name: 'sensor' }, () => {
      throw new Error('sensor offline');
    });
    door.registerCallback(() => {
      throw new Error('motor stalled');
    });
    await door.start();
    const robot = await caller();
    const op = await robot.request(OPEN_REQUEST);
    const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
    expect(outcome).toMatchObject({ status: 'failed', result: 'motor stalled', workflowIri: mintWorkflowIri(door.serviceIri!, 'open') });
    const snapshot = JSON.parse(outcome.failureState!) as FailureSnapshot;
    expect(snapshot.id).toBe(plant.door1);
    expect(snapshot.types).toContain(plant.Door);
    expect(snapshot.properties[`${'https://w3id.org/circularfactory/Core#'}hasCapability`]).toEqual(
      expect.arrayContaining([mintCapabilityIri(plant.door1, 'open')]),
    );
    expect(snapshot.state).toEqual({ doorState: 'jammed', sensor: { error: 'sensor offline' } });
  });

  onStore('should rethrow a body error of request before anything is written, and resolve before the body', async () => {
    const door = suite.controller({ heartbeatInterval: null });
    await door.start();
    const robot = await caller();
    const before = await suite.dump();
    const error = await rejection(
      robot.request(OPEN_REQUEST, () => {
        throw new Error('planner changed its mind');
      }),
    );
    expect((error as Error).message).toBe('planner changed its mind');
    expect(await suite.dump()).toBe(before);
    const body = jest.fn();
    const missing = await rejection(
      robot.request({ capabilityClass: plant.PickAndPlaceCapability, operationClass: plant.PickAndPlaceOperation }, body),
    );
    expect(missing).toBeInstanceOf(OperationResolutionError);
    expect(body).not.toHaveBeenCalled();
    expect(await rejection(robot.request({ capabilityClass: 'not an iri', operationClass: plant.OpenDoorOperation }))).toBeInstanceOf(
      ValueError,
    );
    expect(await suite.dump()).toBe(before);
  });

  onStore('should revert the Operation when the receiver is unreachable, leaving the graph unchanged', async () => {
    const door = suite.controller({ heartbeatInterval: null });
    await door.start();
    const robot = await caller();
    // The door's process dies without deregistering: its address stays in the graph.
    door.server!.closeAllConnections();
    await new Promise<void>((r) => door.server!.close(() => r()));
    const before = await suite.dump();
    const error = await rejection(robot.request(OPEN_REQUEST, (d) => void (d.data.testAngle = 45)));
    expect(error).toBeInstanceOf(TriggerDeliveryError);
    expect((error as Error).message).toContain(door.address!);
    expect(await suite.dump()).toBe(before);
  });

  onStore('should revert the Operation when the receiver answers with an error status', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"receiver broke"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await registerOpenReceiver(suite.newOgm(), DOOR2, address);
      const robot = await caller();
      const before = await suite.dump();
      const error = await rejection(robot.request({ ...OPEN_REQUEST, targetResource: DOOR2 }, (d) => void (d.data.testNote = 'x')));
      expect(error).toBeInstanceOf(TriggerDeliveryError);
      expect((error as Error).message).toMatch(/answered 500: \{"detail":"receiver broke"\}/);
      expect(await suite.dump()).toBe(before);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  onStore('should pin dispatch to the target resource', async () => {
    const door1 = suite.controller();
    const door2 = suite.create({ resourceIri: DOOR2, serviceClass: plant.ControllerService });
    door2.workflow(OPEN, () => 'opened');
    const ran: string[] = [];
    door1.registerCallback(() => ran.push('door1'));
    door2.registerCallback(() => ran.push('door2'));
    await Promise.all([door1.start(), door2.start()]);
    const robot = await caller();
    for (const [target, instance] of [
      [DOOR2, door2],
      [plant.door1, door1],
      [DOOR2, door2],
    ] as const) {
      const op = await robot.request({ ...OPEN_REQUEST, targetResource: target }, (d) =>
        expect(d.target.serviceIri).toBe(instance.serviceIri),
      );
      await robot.waitForOperation(op, { timeoutMs: 10_000 });
    }
    expect(ran).toEqual(['door2', 'door1', 'door2']);
  });

  onStore('should run a controller and a monitor on one resource, dispatching only to the controller', async () => {
    const controller = suite.controller();
    const monitor = suite.create({ resourceIri: plant.door1, serviceClass: plant.MonitorService });
    const lock = gate();
    monitor.state(DOOR_STATE, () => 'closed');
    controller.registerCallback(async () => {
      await lock.promise;
      return 'opened';
    });
    await Promise.all([controller.start(), monitor.start()]);
    expect(await servicesOfResource(suite.newOgm(), plant.door1, { reachableOnly: true })).toEqual(
      [controller.serviceIri, monitor.serviceIri].sort(),
    );
    const state = await fetch(`${monitor.address}/state/doorState`);
    expect(await state.json()).toBe('closed');
    const robot = await caller();
    const op = await robot.request({ ...OPEN_REQUEST, targetResource: plant.door1 });
    expect(monitor.queued).toEqual([]);
    await until(async () => (await robot.readOperation(op))?.status === 'running', 'the controller to claim');
    lock.open();
    expect((await robot.waitForOperation(op)).status).toBe('done');
    const noWorkflow = await rejection(
      robot.request({ capabilityClass: plant.DoorStateCapability, operationClass: plant.OpenDoorOperation, targetResource: plant.door1 }),
    );
    expect(noWorkflow).toBeInstanceOf(OperationResolutionError);
    expect((await suite.dump()).split('\n').filter((l) => l.includes(`<${w3.type}> <${plant.OpenDoorOperation}>`))).toHaveLength(1);
  });
});
