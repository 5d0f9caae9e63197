import { describe, expect } from '@jest/globals';
import { createServer } from 'node:net';
import {
  buildEventTriggerUrl,
  buildStateEndpoint,
  buildWorkflowEndpoint,
  mintCapabilityIri,
  mintStatePropertyIri,
  mintWorkflowIri,
} from '../../src/iri/index.js';
import {
  OntologyGroundTruthError,
  RECLAIM_REASON,
  RuntimeError,
  SHUTDOWN_REASON,
  TransitionConflictError,
} from '../../src/middleware/index.js';
import { setOperationStatus } from '../../src/registration/index.js';
import { PLANT, plant, svc } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { DOOR_STATE, gate, middlewareSuite, OPEN, postJson, registerOpenReceiver, until } from './support/harness.js';

const G = 'urn:test:middleware:lifecycle';

describe.each(['embedded', 'remote'] as const)('middleware lifecycle on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const addressOf = async (serviceIri: string): Promise<string | undefined> =>
    (await suite.dump()).match(new RegExp(`<${serviceIri}> <${svc.address}> "([^"]+)"`))?.[1];
  const { queuedOp } = suite;

  onStore('should register the Service reachable with its parts at start and deregister it at stop', async () => {
    const door = suite.controller({ activityFeed: true });
    door.state(DOOR_STATE, () => 'closed');
    expect(door.phase).toBe('new');
    const started = door.start();
    expect(door.start()).toBe(started);
    await started;
    await door.start();
    const { serviceIri, address } = door;
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const dump = await suite.dump();
    expect(dump).toContain(`<${serviceIri}> <${svc.address}> "${address}"`);
    expect(dump).toContain(`<${serviceIri}> <${svc.lastHeartbeat}>`);
    expect(dump).toContain(`<${mintWorkflowIri(serviceIri!, 'open')}> <${svc.endpoint}> "${buildWorkflowEndpoint(address!, 'open')}"`);
    expect(dump).toContain(
      `<${mintStatePropertyIri(serviceIri!, 'doorState')}> <${svc.endpoint}> "${buildStateEndpoint(address!, 'doorState')}"`,
    );
    expect(dump).toContain(
      `<${mintCapabilityIri(plant.door1, 'open')}> <${svc.realizedByWorkflow}> <${mintWorkflowIri(serviceIri!, 'open')}>`,
    );
    expect(await (await fetch(`${address}/readyz`)).json()).toEqual({ status: 'ready' });
    expect(() => door.workflow({ ...OPEN, name: 'late' }, () => 1)).toThrow(RuntimeError);
    const op = await queuedOp();
    await postJson(buildEventTriggerUrl(address!), { operation_iri: op });
    await door.stop();
    await door.stop();
    expect(door.phase).toBe('stopped');
    const after = await suite.dump();
    expect(after).not.toContain(`<${svc.address}>`);
    expect(after).not.toContain(`<${svc.endpoint}>`);
    expect((await door.readOperation(op))?.status).toBe('queued');
    expect(String(await rejection(fetch(`${address}/`)))).toMatch(/fetch failed/);
    expect(await rejection(door.start())).toBeInstanceOf(RuntimeError);
    const kinds = door
      .activity!.entries()
      .entries.map((e) => e.kind)
      .filter((k) => k !== 'heartbeat');
    expect(kinds).toEqual(['reconstructed', 'registered', 'trigger', 'deregistered', 'stopped']);
  });

  onStore('should fail start-up on a missing workflow class before writing anything and release the port', async () => {
    const door = suite.create({ resourceIri: plant.door1, serviceClass: plant.ControllerService });
    door.workflow({ capabilityClass: plant.DoorOpeningCapability, workflowClass: PLANT('NoSuchWorkflow'), name: 'open' }, () => 1);
    const error = await rejection(door.start());
    expect(error).toBeInstanceOf(OntologyGroundTruthError);
    expect((error as Error).message).toContain(PLANT('NoSuchWorkflow'));
    expect(await suite.dump()).toBe('');
    expect(door.phase).toBe('new');
    expect(door.server).toBeUndefined();
    const port = Number(new URL(door.address!).port);
    // The port was released: it can be bound again.
    await new Promise<void>((resolve, reject) => {
      const probe = createServer()
        .once('error', reject)
        .listen(port, '127.0.0.1', () => probe.close(() => resolve()));
    });
  });

  onStore('should leave nothing reachable when start-up fails after the Service was written', async () => {
    const { FlakyStore } = await import('./support/harness.js');
    const flaky = new FlakyStore(suite.store!);
    // Making the Service reachable (address + heartbeat) fails once.
    flaky.failing = (k, text) => k === 'update' && text.includes(svc.lastHeartbeat) && flaky.failures === 0;
    const door = suite.controller({ ogm: suite.newOgm(flaky) });
    const error = await rejection(door.start());
    expect((error as Error).message).toMatch(/injected store outage/);
    const dump = await suite.dump();
    expect(dump).toContain(`<${svc.isWorkflowOf}>`);
    expect(dump).not.toContain(`<${svc.address}>`);
    expect(dump).not.toContain(`<${svc.endpoint}>`);
    await door.start();
    expect(await addressOf(door.serviceIri!)).toBe(door.address);
  });

  onStore('should resume queued Operations and fail orphaned running ones at restart, never re-running them', async () => {
    const first = suite.controller();
    await first.start();
    const port = Number(new URL(first.address!).port);
    const queued = await queuedOp();
    const running = await queuedOp();
    await postJson(buildEventTriggerUrl(first.address!), { operation_iri: queued });
    // A previous process claimed this one and died.
    await setOperationStatus(suite.newOgm(), { operationIri: running, status: 'running' });
    await first.stop();
    expect((await first.readOperation(queued))?.status).toBe('queued');
    const seen: string[] = [];
    const second = suite.controller({ port });
    second.registerCallback((c) => void seen.push(c.operationIri));
    await second.start();
    expect(second.serviceIri).toBe(first.serviceIri);
    const done = await second.waitForOperation(queued, { timeoutMs: 10_000 });
    expect(done.status).toBe('done');
    expect(await second.readOperation(running)).toMatchObject({ status: 'failed', result: RECLAIM_REASON });
    expect(seen).toEqual([queued]);
  });

  onStore(
    'should leave a running Operation to a live twin at restart, and fail it when the twin is dead though fresh in the graph',
    async () => {
      const { logSink } = await import('./support/harness.js');
      // A twin instance of door1 realizes the same Capability and is alive; an Operation of that
      // Capability is running, perhaps on the twin.
      const twin = suite.controller();
      await twin.start();
      const running = await queuedOp();
      await setOperationStatus(suite.newOgm(), { operationIri: running, status: 'running' });
      const sink = logSink();
      const restarted = suite.controller({ logger: sink.logger });
      await restarted.start();
      expect((await restarted.readOperation(running))?.status).toBe('running');
      expect(
        sink
          .lines()
          .filter((l) => l.operation === running)
          .map((l) => [l.msg, l.twin]),
      ).toEqual([['running operation left to a live twin that realizes its Capability', twin.address]]);
      await restarted.stop();
      await twin.stop();

      // A twin that died a moment ago: registered, fresh heartbeat, address, but nothing answers.
      const closedPort = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        });
      });
      const deadAddress = `http://127.0.0.1:${closedPort}`;
      await registerOpenReceiver(suite.newOgm(), plant.door1, deadAddress);
      const again = suite.controller();
      await again.start();
      expect(await again.readOperation(running)).toMatchObject({ status: 'failed', result: RECLAIM_REASON });
      await again.stop();

      // A twin whose port another sidecar took since: its /healthz answers, as another Service.
      const other = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService });
      await other.start();
      await registerOpenReceiver(suite.newOgm(), plant.door1, other.address!);
      const second = await queuedOp();
      await setOperationStatus(suite.newOgm(), { operationIri: second, status: 'running' });
      const third = suite.controller();
      await third.start();
      expect(await third.readOperation(second)).toMatchObject({ status: 'failed', result: RECLAIM_REASON });
    },
  );

  onStore('should give in-flight work the grace period at stop, then fail it; the late write loses', async () => {
    const { logSink } = await import('./support/harness.js');
    const sink = logSink();
    const door = suite.controller({ shutdownGraceMs: 150, logger: sink.logger });
    const lock = gate();
    let outcome: unknown;
    const claimed = gate();
    await door.start();
    const op = await queuedOp();
    await postJson(buildEventTriggerUrl(door.address!), { operation_iri: op });
    const claim = door
      .claimNext(async (c) => {
        claimed.open();
        await lock.promise;
        expect(c.signal.aborted).toBe(true);
        return 'too late';
      })
      .catch((e: unknown) => (outcome = e));
    await claimed.promise;
    await door.stop();
    expect(await door.readOperation(op)).toMatchObject({ status: 'failed', result: SHUTDOWN_REASON });
    lock.open();
    await claim;
    expect(outcome).toBeInstanceOf(TransitionConflictError);
    expect(await door.readOperation(op)).toMatchObject({ status: 'failed', result: SHUTDOWN_REASON });
    expect(sink.lines().some((l) => l.level === 40 && String(l.msg).includes('late terminal write lost'))).toBe(true);
  });

  onStore('should refresh the heartbeat on its interval', async () => {
    const door = suite.controller({ heartbeatInterval: 0.1, activityFeed: true });
    await door.start();
    const beats = () => door.activity!.entries().entries.filter((e) => e.kind === 'heartbeat').length;
    await until(() => beats() >= 3, 'three heartbeats');
    const stamp = (await suite.dump()).match(new RegExp(`<${door.serviceIri}> <${svc.lastHeartbeat}> "([^"]+)"`))![1]!;
    expect(Date.now() - Date.parse(stamp)).toBeLessThan(5_000);
  });
});
