/**
 * How sidecars leave, as real processes on a served store: a SIGTERM deregisters cleanly, and a
 * sidecar killed with -9 is swept by `semantic-sidecar watchdog` while the other one stays.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readOperation } from '../../src/middleware/operations/operation-watch.js';
import { SWEEP_REASON } from '../../src/registration/index.js';
import { plant, svc } from '../../src/vocab/index.js';
import { ProcessGroup, runCli } from '../support/sidecar-process.js';
import { ensureBuilt } from '../support/build.js';
import { requestCli, servedStore, startDoor1, startRobot1, type CellStore } from './support/cell.js';
import { startBridge, startWatchdog } from './support/daemons.js';

const STALE_AFTER_S = 3;
const shared = new ProcessGroup();
let group: ProcessGroup;
let dir: string;
let store: CellStore;
let watchdog: Awaited<ReturnType<typeof startWatchdog>>;

const reachable = (service: string): Promise<boolean> =>
  store.client.ask(`ASK { GRAPH <${store.graph}> { <${service}> <${svc.address}> ?a } }`);

/** Polls `probe` every 100 ms until it is true; resolves with the time it took, rejects after `timeoutMs`. */
async function until(probe: () => Promise<boolean>, what: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms\n${watchdog.proc.tail()}`);
    await sleep(100);
  }
  return Date.now() - started;
}

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'sm-e2e-lifecycle-'));
  store = await servedStore(shared);
  watchdog = await startWatchdog(shared, [...store.flags, '--staleness-threshold', String(STALE_AFTER_S), '--sweep-interval', '1']);
}, 120_000);

afterEach(async () => {
  await group.cleanup();
}, 30_000);

afterAll(async () => {
  await shared.cleanup();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

describe('leaving the plant', () => {
  it('should deregister on SIGTERM, log it, and exit 0', async () => {
    group = new ProcessGroup();
    const { sidecar } = await startDoor1(group, join(dir, 'sigterm'), store);
    expect(await reachable(sidecar.service)).toBe(true);
    expect(existsSync(sidecar.localApiSocket!)).toBe(true);
    expect(await sidecar.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(sidecar.localApiSocket!)).toBe(false);
    const messages = sidecar.proc.logs().map((l) => [l.msg, l.service ?? l.reason]);
    const shutdown = messages.findIndex(([msg]) => msg === 'shutting down');
    expect(messages[shutdown]).toEqual(['shutting down', 'SIGTERM']);
    expect(messages.slice(shutdown)).toContainEqual(['Service deregistered', sidecar.service]);
    expect(messages.at(-1)?.[0]).toBe('stopped');
    // svc:address and the endpoints are gone; the Service and its structure are kept.
    expect(await reachable(sidecar.service)).toBe(false);
    expect(
      await store.client.ask(
        `ASK { GRAPH <${store.graph}> { ?part <${svc.endpoint}> ?e . { ?part <${svc.isWorkflowOf}> <${sidecar.service}> } UNION { ?part <${svc.isStatePropertyOf}> <${sidecar.service}> } } }`,
      ),
    ).toBe(false);
    const status = await runCli(['status', '--resource', 'plant:door1', ...store.flags, '--json']);
    expect(status.code).toBe(0);
    const services = (JSON.parse(status.stdout) as { services: { service: string; reachable: boolean; address?: string }[] }).services;
    expect(services).toContainEqual(expect.objectContaining({ service: sidecar.service, reachable: false }));
    expect(services.find((s) => s.service === sidecar.service)?.address).toBeUndefined();
  }, 60_000);

  it('should let the watchdog sweep a sidecar killed with -9 and fail its running Operation, leaving the other one reachable', async () => {
    group = new ProcessGroup();
    const cell = join(dir, 'kill9');
    // robot1's device takes long enough that its Operation is still running when robot1 dies.
    const slow = await startBridge(group, 'robot1-bridge', { kind: 'robot', port: 0, delayMs: 60_000 });
    const [door, robot] = await Promise.all([startDoor1(group, cell, store), startRobot1(group, cell, store, { bridge: slow })]);
    const run = await requestCli(store, [
      '--capability',
      'plant:PickAndPlaceCapability',
      '--operation-class',
      'plant:PickAndPlaceOperation',
    ]);
    expect(run.code).toBe(0);
    await until(async () => (await readOperation(store.ogm, run.operation))?.status === 'running', 'robot1 runs the Operation', 10_000);

    expect((await robot.sidecar.proc.kill('SIGKILL')).signal).toBe('SIGKILL');
    const ms = await until(async () => !(await reachable(robot.sidecar.service)), 'robot1 swept', 20_000);
    expect(ms).toBeLessThan((STALE_AFTER_S + 5) * 1000);
    // The address goes first; the sweep logs once it has also failed the stranded Operations.
    const swept = (): string[] => watchdog.proc.logs().flatMap((l) => (l.msg === 'swept stale services' ? (l.swept as string[]) : []));
    await watchdog.proc.waitFor(
      () => (swept().includes(robot.sidecar.service) ? true : undefined),
      "the watchdog's sweep log line",
      10_000,
    );
    expect(swept()).not.toContain(door.sidecar.service);
    expect(await readOperation(store.ogm, run.operation)).toMatchObject({ status: 'failed', result: SWEEP_REASON });

    const gone = await runCli(['discover', '--capability', 'plant:PickAndPlaceCapability', ...store.flags]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no reachable Service realizes a Capability of class plant:PickAndPlaceCapability');
    // door1 kept its heartbeat: still reachable, still discoverable, still serving.
    expect(await reachable(door.sidecar.service)).toBe(true);
    const found = await runCli(['discover', '--capability', 'plant:DoorOpeningCapability', ...store.flags, '--json']);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toEqual([
      expect.objectContaining({ service: door.sidecar.service, address: door.sidecar.address, resource: plant.door1, fresh: true }),
    ]);
    expect((await fetch(`${door.sidecar.address}/state/door`)).status).toBe(200);
  }, 90_000);

  it('should stop the watchdog on SIGTERM with exit 0', async () => {
    group = new ProcessGroup();
    expect(await watchdog.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(watchdog.proc.logs().at(-1)).toMatchObject({ msg: 'middleware stopped' });
  }, 30_000);
});
