import { describe, expect } from '@jest/globals';
import { buildEventTriggerUrl } from '../../src/iri/index.js';
import { OperationResolutionError, type DeviceHealthReport } from '../../src/middleware/index.js';
import { resolveDispatchTarget } from '../../src/registration/index.js';
import { plant, sm, svc } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { logSink, middlewareSuite, postJson, until } from './support/harness.js';

const G = 'urn:test:middleware:device-health';

describe.each(['embedded', 'remote'] as const)('device-aware health and per-Service liveness on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const marked = async (serviceIri: string): Promise<boolean> =>
    (await suite.dump()).includes(`<${serviceIri}> <${sm.deviceUnavailableSince}>`);
  const readyz = async (address: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${address}/readyz`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  onStore(
    'should withdraw a Service whose device is down from readiness, discovery and its trigger, and offer it again when it returns',
    async () => {
      let report: DeviceHealthReport = { available: false, reason: 'connect ENOENT /run/device/secret-path.sock' };
      const sink = logSink();
      const door = suite.controller({
        heartbeatInterval: 0.2,
        deviceHealth: () => Promise.resolve(report),
        deviceHealthIntervalMs: 50,
        activityFeed: true,
        logger: sink.logger,
      });
      door.registerCallback(() => 'opened');
      await door.start();
      // At start one failed probe decides, with a warning at once, before the Service is reachable.
      expect(sink.lines().some((l) => l.level === 40 && l.msg === 'the device does not answer: its calls fail until it does')).toBe(true);
      expect(await marked(door.serviceIri!)).toBe(true);
      const notReady = await readyz(door.address!);
      expect(notReady.status).toBe(503);
      expect(notReady.body.detail).toMatch(/^not ready: the device of this Service does not answer its health probe \(since /u);
      expect(JSON.stringify(notReady.body)).not.toContain('secret-path');
      // Discovery skips it and says why; a caller that rings its trigger anyway is refused with 503.
      const e = await rejection(resolveDispatchTarget(suite.newOgm(), plant.DoorOpeningCapability, { targetResource: plant.door1 }));
      expect(e).toBeInstanceOf(OperationResolutionError);
      expect((e as Error).message).toMatch(/skipped 1 realizer\(s\) whose device is unavailable/u);
      const op = await suite.queuedOp();
      const refused = await postJson(buildEventTriggerUrl(door.address!), { operation_iri: op });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatch(/does not answer its health probe .*: the Operation was not enqueued/u);
      expect(door.queued).toEqual([]);
      // The heartbeat goes on: the Service stays reachable and live for readers that ignore sm: terms.
      expect((await suite.dump()).includes(`<${door.serviceIri!}> <${svc.address}>`)).toBe(true);

      report = { available: true };
      await until(async () => !(await marked(door.serviceIri!)), 'the mark removed', 10_000);
      expect((await readyz(door.address!)).status).toBe(200);
      expect((await resolveDispatchTarget(suite.newOgm(), plant.DoorOpeningCapability)).serviceIri).toBe(door.serviceIri);
      expect((await postJson(buildEventTriggerUrl(door.address!), { operation_iri: op })).status).toBe(200);
      expect((await door.waitForOperation(op, { timeoutMs: 10_000 })).status).toBe('done');

      // After start, one failed probe is not enough (a slow answer); two in a row are.
      report = { available: false, reason: 'timed out' };
      const downs = (): number => door.activity!.entries().entries.filter((x) => x.kind === 'device-down').length;
      await until(() => downs() === 2, 'the second device-down entry', 10_000);
      await until(() => marked(door.serviceIri!), 'the mark written again', 10_000);
      expect((await readyz(door.address!)).status).toBe(503);
      const kinds = door
        .activity!.entries()
        .entries.map((x) => x.kind)
        .filter((k) => k.startsWith('device-'));
      expect(kinds).toEqual(['device-down', 'device-up', 'device-down']);
    },
    30_000,
  );

  onStore('should take a probe that throws for an unavailable device', async () => {
    const door = suite.controller({ deviceHealth: () => Promise.reject(new Error('probe exploded')), deviceHealthIntervalMs: 60_000 });
    await door.start();
    expect(await marked(door.serviceIri!)).toBe(true);
    expect((await readyz(door.address!)).status).toBe(503);
    await door.stop();
    // Stopped: deregistered; a restart with the device back removes the mark before it is reachable again.
    const again = suite.controller({ deviceHealth: () => Promise.resolve({ available: true }) });
    await again.start();
    expect(await marked(again.serviceIri!)).toBe(false);
  });

  onStore(
    'should never let a watchdog configured shorter than the heartbeat sweep the live Service',
    async () => {
      const door = suite.controller({ heartbeatInterval: 1 });
      await door.start();
      expect((await suite.dump()).includes(`<${door.serviceIri!}> <${sm.heartbeatInterval}> "1000"`)).toBe(true);
      // Threshold 0.3 s against a 1 s heartbeat: by the threshold alone the door would be swept between heartbeats.
      const watchdog = suite.create({ mode: 'watchdog', sweepInterval: 0.1, stalenessThreshold: 0.3, activityFeed: true });
      await watchdog.start();
      const sweeps = (): { swept?: string[] }[] =>
        watchdog.activity!.entries().entries.filter((x) => x.kind === 'sweep') as { swept?: string[] }[];
      await until(() => sweeps().length >= 25, '25 sweeps', 20_000);
      expect(sweeps().flatMap((x) => x.swept ?? [])).toEqual([]);
      expect((await suite.dump()).includes(`<${door.serviceIri!}> <${svc.address}>`)).toBe(true);
      // A Service without a heartbeat loop records no interval and is judged by the threshold.
      const silent = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null });
      await silent.start();
      expect((await suite.dump()).includes(`<${silent.serviceIri!}> <${sm.heartbeatInterval}>`)).toBe(false);
      await until(() => sweeps().some((x) => (x.swept ?? []).includes(silent.serviceIri!)), 'the silent one swept', 10_000);
      expect(sweeps().flatMap((x) => x.swept ?? [])).not.toContain(door.serviceIri);
    },
    40_000,
  );
});
