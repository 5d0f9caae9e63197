/**
 * The watchdog races live heartbeats, as real processes: a watchdog sweeping every second with
 * a staleness threshold of THRESHOLD_S against several door sidecars (one resource each, one
 * shared mock bridge) heartbeating every HEARTBEAT_S while they run Operations. Over many sweeps
 * no live Service loses its address, none of their Operations is failed, and no sweep even
 * finds one stale while its last heartbeat is younger than the threshold; a sidecar killed with
 * -9 is swept, no earlier than the threshold allows, and its stranded work is failed.
 *
 * A sweep that removes a Service whose heartbeat really was late (its process or the store
 * stalled past the threshold) would be right; the failure messages show every sidecar's
 * heartbeat gaps and the age of its heartbeat at each sweep that found it stale, from the
 * activity feeds, to tell such a stall from a race the product lost.
 *
 * Knobs: SOAK=1 runs 5 live sidecars for 45 s instead of 3 for 10 s.
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SemanticMiddleware } from '../../src/middleware/semantic-middleware.js';
import { SWEEP_REASON } from '../../src/registration/index.js';
import { PLANT, plant } from '../../src/vocab/index.js';
import { startDoor1, type CellStore } from '../e2e/support/cell.js';
import { startBridge, startWatchdog, type BridgeProc, type SidecarProc } from '../e2e/support/daemons.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup, type Proc } from '../support/sidecar-process.js';
import {
  closeFaultCell,
  faultSuite,
  getJson,
  inProcessCaller,
  lastHeartbeat,
  openCellStore,
  operationWhen,
  reachable,
  SOAK,
  STORE_KINDS,
  until,
} from './support/fault-cell.js';
import { auditGraph } from './support/graph-audit.js';

// Half the threshold: close enough that the sweeps race the heartbeats, far enough that a busy
// 2-core machine does not make a live sidecar really late.
const THRESHOLD_S = 3;
const HEARTBEAT_S = 1.5;
const LIVE = SOAK ? 5 : 3;
const WINDOW_MS = SOAK ? 45_000 : 10_000;
const REREGISTERED = 'the Service was deregistered behind this instance (swept during an outage?); registering it again';

interface Door {
  resource: string;
  sidecar: SidecarProc;
}

describe.each(STORE_KINDS)('a watchdog racing live heartbeats (%s store)', (kind) => {
  const { enabled, onStore } = faultSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let cell: CellStore;
  let bridge: BridgeProc;
  let doors: Door[];
  let victim: Door;
  let watchdog: { proc: Proc; address: string };
  let caller: SemanticMiddleware;

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-faults-race-${kind}-`));
    cell = await openCellStore(kind, group);
    bridge = await startBridge(group, 'door-bridge', { kind: 'door', socket: join(dir, 'door-bridge.sock'), delayMs: 200 });
    const all = await Promise.all(
      Array.from({ length: LIVE + 1 }, async (_, i): Promise<Door> => {
        const resource = PLANT(`race-door-${i}`);
        const args = ['--resource', resource, '--heartbeat-interval', String(HEARTBEAT_S), '--activity-feed'];
        const env = {
          SIDECAR_STALENESS_THRESHOLD: String(THRESHOLD_S),
          SIDECAR_DEVICE_TIMEOUT_MS: '60000',
          SIDECAR_ACTIVITY_CAPACITY: '10000',
        };
        return { resource, sidecar: (await startDoor1(group, join(dir, `door-${i}`), cell, { bridge, args, env })).sidecar };
      }),
    );
    victim = all.pop()!;
    doors = all;
    watchdog = await startWatchdog(
      group,
      [...cell.flags, '--staleness-threshold', String(THRESHOLD_S), '--sweep-interval', '1', '--activity-feed'],
      { env: { SIDECAR_ACTIVITY_CAPACITY: '10000' } },
    );
    caller = inProcessCaller(cell);
  }, 180_000);

  afterAll(() => closeFaultCell(group, cell, dir), 60_000);

  interface BeatReport {
    /** Largest gap between two heartbeats, from the sidecar's activity feed. */
    maxGapMs: number;
    /** Times the sidecar found itself deregistered and registered again. */
    reRegistered: number;
    /** Age of its last heartbeat each time a sweep found it stale (a sweep's entry is recorded when it ends). */
    foundStaleAtAgeMs: number[];
  }

  /** Each sidecar's heartbeat gaps, re-registrations and the sweeps that found it stale: tells a stall from a lost race. */
  async function heartbeatReport(): Promise<Record<string, BeatReport>> {
    const report: Record<string, BeatReport> = {};
    const sweeps = (
      (await getJson(`${watchdog.address}/activity?limit=10000`)).json as { entries: { kind: string; time: string; swept?: string[] }[] }
    ).entries.filter((e) => e.kind === 'sweep');
    for (const { resource, sidecar } of [...doors, victim]) {
      const feed = sidecar.proc.running
        ? ((await getJson(`${sidecar.address}/activity?limit=10000`)).json as { entries: { kind: string; at?: string }[] })
        : { entries: [] };
      const beats = feed.entries.filter((e) => e.kind === 'heartbeat').map((e) => Date.parse(e.at!));
      const maxGapMs = Math.max(0, ...beats.slice(1).map((t, i) => t - beats[i]!));
      const foundStaleAtAgeMs = sweeps
        .filter((e) => e.swept?.includes(sidecar.service))
        .map((e) => Date.parse(e.time) - Math.max(0, ...beats.filter((b) => b <= Date.parse(e.time))));
      report[resource] = { maxGapMs, reRegistered: sidecar.proc.logs().filter((l) => l.msg === REREGISTERED).length, foundStaleAtAgeMs };
    }
    return report;
  }

  /** What the assertions check of one live door, with the whole report beside it for a failure message. */
  function liveness(door: Door, report: Record<string, BeatReport>): Record<string, unknown> {
    const mine = report[door.resource]!;
    return { door: door.resource, ...mine, foundStaleEarly: mine.foundStaleAtAgeMs.filter((ms) => ms < THRESHOLD_S * 1000) };
  }

  /** Keeps one Operation at a time running on `door` until `end`; resolves with their outcomes (a refused request too). */
  async function keepBusy(door: Door, end: number): Promise<{ operation: string; status?: string; result?: string }[]> {
    const outcomes: { operation: string; status?: string; result?: string }[] = [];
    for (let i = 0; Date.now() < end; i++) {
      const options =
        i % 2 === 0
          ? { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: door.resource }
          : { capabilityClass: plant.DoorClosingCapability, operationClass: plant.CloseDoorOperation, targetResource: door.resource };
      try {
        const operation = await caller.request(options);
        const outcome = await operationWhen(cell, operation, (s) => s?.status === 'done' || s?.status === 'failed', 20_000);
        outcomes.push({ operation, status: outcome?.status, result: outcome?.result });
      } catch (error) {
        outcomes.push({
          operation: `(request at ${new Date().toISOString()})`,
          status: 'refused',
          result: error instanceof Error ? error.message : String(error),
        });
        await sleep(500);
      }
    }
    return outcomes;
  }

  onStore(
    `should keep every live Service reachable and its Operations running over ${WINDOW_MS / 1000} s of sweeps`,
    async () => {
      const end = Date.now() + WINDOW_MS;
      const misses: string[] = [];
      const watch = (async () => {
        while (Date.now() < end) {
          for (const { sidecar } of doors)
            if (!(await reachable(cell, sidecar.service))) misses.push(`${new Date().toISOString()} ${sidecar.service}`);
          await sleep(200);
        }
      })();
      const [outcomes] = await Promise.all([Promise.all(doors.map((d) => keepBusy(d, end))), watch]);
      const sweeps = ((await getJson(`${watchdog.address}/activity?limit=10000`)).json as { entries: { kind: string }[] }).entries.filter(
        (e) => e.kind === 'sweep',
      );
      const report = await heartbeatReport();
      const notDone = outcomes.flat().filter((o) => o.status !== 'done');
      expect({ misses, notDone, report }).toEqual({ misses: [], notDone: [], report: expect.any(Object) });
      for (const door of doors) expect(liveness(door, report)).toEqual({ ...liveness(door, report), reRegistered: 0, foundStaleEarly: [] });
      // The window saw many sweeps, and every sidecar ran work all along.
      expect(sweeps.length).toBeGreaterThanOrEqual(WINDOW_MS / 1000 - 3);
      for (const o of outcomes) expect(o.length).toBeGreaterThan(2);
    },
    WINDOW_MS + 90_000,
  );

  onStore(
    'should sweep a sidecar killed with -9, no earlier than the threshold, and fail its stranded Operations',
    async () => {
      const hung = await caller.request(
        { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: victim.resource },
        (d) => void (d.data.hang = true),
      );
      await operationWhen(cell, hung, (s) => s?.status === 'running', 15_000);
      const queued = await caller.request({
        capabilityClass: plant.DoorClosingCapability,
        operationClass: plant.CloseDoorOperation,
        targetResource: victim.resource,
      });
      expect((await victim.sidecar.proc.kill('SIGKILL')).signal).toBe('SIGKILL');
      const lastBeat = (await lastHeartbeat(cell, victim.sidecar.service))!;
      await until(
        async () => ((await reachable(cell, victim.sidecar.service)) ? undefined : true),
        'the killed sidecar swept',
        THRESHOLD_S * 1000 + 15_000,
        () => watchdog.proc.tail(),
      );
      for (const operation of [hung, queued]) {
        // The sweep fails stranded work in the request after the deregistration.
        const swept = await operationWhen(cell, operation, (s) => s?.status === 'failed', 10_000);
        expect(swept).toMatchObject({ status: 'failed', result: SWEEP_REASON });
        expect(swept!.timestamp!.getTime() - lastBeat).toBeGreaterThanOrEqual(THRESHOLD_S * 1000);
      }
      for (const { sidecar } of doors) expect(await reachable(cell, sidecar.service)).toBe(true);
      const report = await heartbeatReport();
      for (const door of doors) expect(liveness(door, report)).toEqual({ ...liveness(door, report), reRegistered: 0, foundStaleEarly: [] });
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    60_000,
  );
});
