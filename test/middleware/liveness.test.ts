import { describe, expect } from '@jest/globals';
import { buildEventTriggerUrl, buildWorkflowEndpoint, mintWorkflowIri } from '../../src/iri/index.js';
import { RuntimeError, UnavailableError } from '../../src/middleware/index.js';
import { sweepStaleServices, SWEEP_REASON } from '../../src/registration/index.js';
import { plant, svc } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { DOOR_STATE, FlakyStore, gate, logSink, middlewareSuite, postJson, until } from './support/harness.js';

const G = 'urn:test:middleware:liveness';

describe.each(['embedded', 'remote'] as const)('heartbeats and sweeps on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const heartbeatOf = async (serviceIri: string): Promise<number | undefined> => {
    const m = (await suite.dump()).match(new RegExp(`<${serviceIri}> <${svc.lastHeartbeat}> "([^"]+)"`));
    return m ? Date.parse(m[1]!) : undefined;
  };
  const hasAddress = async (serviceIri: string): Promise<boolean> => (await suite.dump()).includes(`<${serviceIri}> <${svc.address}>`);
  const { queuedOp } = suite;

  onStore('should keep the heartbeat loop alive through a store outage, logging and retrying', async () => {
    const sink = logSink();
    const flaky = new FlakyStore(suite.store!);
    const door = suite.controller({ ogm: suite.newOgm(flaky), heartbeatInterval: 0.1, activityFeed: true, logger: sink.logger });
    await door.start();
    flaky.failing = (k) => k === 'update';
    await until(() => flaky.failures >= 3, 'three failed heartbeats');
    const during = await heartbeatOf(door.serviceIri!);
    flaky.failing = undefined;
    await until(async () => ((await heartbeatOf(door.serviceIri!)) ?? 0) > during!, 'a heartbeat after the outage');
    // The store shows the heartbeat as soon as it committed, before the loop has had its answer.
    await until(() => sink.lines().some((l) => l.msg === 'heartbeat recovered'), 'the loop logging its recovery');
    const warnings = sink.lines().filter((l) => l.level === 40 && l.loop === 'heartbeat');
    expect(warnings.length).toBeGreaterThanOrEqual(3);
    expect((warnings[0]!.err as { message: string }).message).toMatch(/injected store outage/);
    expect(warnings.every((w) => (w.retryMs as number) <= 100)).toBe(true);
    const kinds = door.activity!.entries().entries.map((e) => e.kind);
    expect(kinds.indexOf('heartbeat-failed')).toBeLessThan(kinds.lastIndexOf('heartbeat'));
  });

  onStore('should register again when a heartbeat finds the Service swept', async () => {
    const sink = logSink();
    const door = suite.controller({ heartbeatInterval: null, logger: sink.logger });
    door.state(DOOR_STATE, () => 'closed');
    await door.start();
    // Swept during an outage: a sweep that sees the heartbeat as a minute old.
    expect(await sweepStaleServices(suite.newOgm(), 30, { now: new Date(Date.now() + 60_000) })).toEqual([door.serviceIri]);
    expect(await hasAddress(door.serviceIri!)).toBe(false);
    expect((await fetch(`${door.address}/readyz`)).status).toBe(503);
    await door.emitHeartbeat();
    expect(await hasAddress(door.serviceIri!)).toBe(true);
    const dump = await suite.dump();
    expect(dump).toContain(
      `<${mintWorkflowIri(door.serviceIri!, 'open')}> <${svc.endpoint}> "${buildWorkflowEndpoint(door.address!, 'open')}"`,
    );
    expect(dump).toMatch(new RegExp(`_state_doorState> <${svc.endpoint}>`));
    expect(sink.lines().some((l) => l.level === 40 && String(l.msg).includes('deregistered behind'))).toBe(true);
    expect((await fetch(`${door.address}/readyz`)).status).toBe(200);
  });

  onStore(
    'should let a watchdog sweep a stale monitor without failing its live controller work',
    async () => {
      const controller = suite.controller({ heartbeatInterval: 0.1 });
      const monitor = suite.create({ resourceIri: plant.door1, serviceClass: plant.MonitorService, heartbeatInterval: null });
      monitor.state(DOOR_STATE, () => 'closed');
      const lock = gate();
      controller.registerCallback(() => lock.promise.then(() => 'opened'));
      await Promise.all([controller.start(), monitor.start()]);
      const running = await queuedOp();
      const waiting = await queuedOp();
      for (const op of [running, waiting]) await postJson(buildEventTriggerUrl(controller.address!), { operation_iri: op });
      await until(async () => (await controller.readOperation(running))?.status === 'running', 'the claim');
      const watchdog = suite.create({ mode: 'watchdog', sweepInterval: 0.1, stalenessThreshold: 1, activityFeed: true });
      await watchdog.start();
      const sweptMonitor = () =>
        watchdog.activity!.entries().entries.some((e) => e.kind === 'sweep' && (e.swept as string[]).includes(monitor.serviceIri!));
      await until(sweptMonitor, 'the monitor to be swept', 15_000);
      const sweeps = watchdog.activity!.entries().entries.filter((e) => e.kind === 'sweep');
      expect(await hasAddress(monitor.serviceIri!)).toBe(false);
      expect(sweeps.every((e) => !(e.swept as string[]).includes(controller.serviceIri!))).toBe(true);
      expect(await hasAddress(controller.serviceIri!)).toBe(true);
      expect((await controller.readOperation(running))?.status).toBe('running');
      expect((await controller.readOperation(waiting))?.status).toBe('queued');
      lock.open();
      // The next Operation is claimed while the last one's `done` is written: either may land first.
      for (const op of [running, waiting]) expect((await controller.waitForOperation(op, { timeoutMs: 10_000 })).status).toBe('done');
    },
    30_000,
  );

  onStore('should sweep a dead controller on demand and fail its stranded Operations', async () => {
    const dead = suite.controller({ heartbeatInterval: null });
    await dead.start();
    const stranded = await queuedOp();
    await postJson(buildEventTriggerUrl(dead.address!), { operation_iri: stranded });
    // Not started: its loop would sweep on its own; sweep() works on demand in any phase.
    const watchdog = suite.create({ mode: 'watchdog', stalenessThreshold: 0.3 });
    await new Promise((r) => setTimeout(r, 400));
    expect(await watchdog.sweep()).toEqual([dead.serviceIri]);
    expect(await watchdog.readOperation(stranded)).toMatchObject({ status: 'failed', result: SWEEP_REASON });
    expect(await watchdog.sweep()).toEqual([]);
    // The dead controller's queue entry lost: claiming it drops it.
    expect(await rejection(dead.claimNext(() => 'never'))).toMatchObject({ name: 'OperationQueueEmpty' });
  });

  onStore('should serve a watchdog HTTP surface and register nothing', async () => {
    const watchdog = suite.create({ mode: 'watchdog', sweepInterval: 3600, activityFeed: true });
    expect(() =>
      watchdog.workflow({ capabilityClass: plant.DoorOpeningCapability, workflowClass: plant.OpenDoorWorkflow, name: 'x' }, () => 1),
    ).toThrow(RuntimeError);
    await watchdog.start();
    expect(await (await fetch(`${watchdog.address}/`)).json()).toBe('Welcome to semantic middleware!');
    expect((await fetch(`${watchdog.address}/healthz`)).status).toBe(200);
    expect((await fetch(`${watchdog.address}/readyz`)).status).toBe(200);
    await until(() => watchdog.activity!.entries().entries.some((e) => e.kind === 'sweep'), 'the first sweep');
    expect((await fetch(`${watchdog.address}/activity`)).status).toBe(200);
    expect(watchdog.serviceIri).toBeUndefined();
    expect(await suite.dump()).toBe('');
    expect(await rejection(watchdog.emitHeartbeat())).toBeInstanceOf(RuntimeError);
    expect(await rejection(watchdog.claimNext(() => 1))).toBeInstanceOf(RuntimeError);
    const door = suite.controller();
    expect(await rejection(door.emitHeartbeat())).toBeInstanceOf(UnavailableError);
  });
});
