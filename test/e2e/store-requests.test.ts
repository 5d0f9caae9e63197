/**
 * Store requests per Operation at process level: door1 and robot1 as sidecar processes on a
 * served store, Operations requested through robot1's local API (with `wait`) and waited for with
 * its status long-poll, the requests counted by both sidecars' `store_requests_total` (heartbeats off, so
 * nothing but the dispatch asks the store; robot1 remembers discovery's answer throughout).
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plant } from '../../src/vocab/index.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { ensureBuilt } from '../support/build.js';
import { cellSuite, servedStore, startDoor1, startRobot1, type CellResource, type CellStore } from './support/cell.js';
import { unixRequest } from './support/unix-http.js';

/** The goal: at most this many store requests per Operation, caller and receiver together. */
const MAX_REQUESTS_PER_OPERATION = 4;
const OPERATIONS = 10;
// Heartbeats would ask the store beside the dispatch: far apart, the Services stay fresh throughout.
const QUIET = { args: ['--heartbeat-interval', '3600'], env: { SIDECAR_STALENESS_THRESHOLD: '7200' } };

/** A sidecar's `store_requests_total` by kind, summed over outcomes. */
async function storeRequests(resource: CellResource): Promise<Record<string, number>> {
  const text = await (await fetch(`${resource.sidecar.address}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, kind, n] of text.matchAll(/^\w*store_requests_total\{kind="(\w+)",[^}]*\} (\d+)/gmu))
    counts[kind!] = (counts[kind!] ?? 0) + Number(n);
  return counts;
}

/** Requests per Operation by kind between two counts. */
function perOperation(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, n] of Object.entries(after)) if (n !== (before[kind] ?? 0)) out[kind] = (n - (before[kind] ?? 0)) / OPERATIONS;
  return out;
}

describe('store requests per Operation between sidecar processes', () => {
  const { onStore } = cellSuite('served');
  const group = new ProcessGroup();
  let dir: string | undefined;
  let store: CellStore | undefined;
  let door: CellResource;
  let robot: CellResource;

  beforeAll(async () => {
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'sm-e2e-requests-'));
    store = await servedStore(group);
    // robot1 remembers what discovery found for longer than the test takes: its count is then exact.
    const remembering = { ...QUIET, env: { ...QUIET.env, SIDECAR_DISCOVERY_CACHE_MS: '600000' } };
    [door, robot] = await Promise.all([startDoor1(group, dir, store, QUIET), startRobot1(group, dir, store, remembering)]);
  }, 180_000);

  afterAll(async () => {
    await group.cleanup();
    await store?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  /** One Operation through robot1's local API, waited for with the long-poll. */
  async function dispatch(): Promise<Record<string, unknown>> {
    const socket = robot.sidecar.localApiSocket!;
    // `wait`: the long-poll follows, so the receiver is asked to announce the outcome.
    const body = {
      capabilityClass: plant.DoorOpeningCapability,
      operationClass: plant.OpenDoorOperation,
      targetResource: plant.door1,
      wait: true,
    };
    const created = await unixRequest(socket, 'POST', '/operations', { body });
    expect(created.status).toBe(201);
    const { operation } = created.json as { operation: string };
    const status = await unixRequest(socket, 'GET', `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=20000`, {
      timeoutMs: 30_000,
    });
    return status.json as Record<string, unknown>;
  }

  onStore(
    `should cost at most ${MAX_REQUESTS_PER_OPERATION} store requests per Operation, the long-poll included`,
    async () => {
      expect(await dispatch()).toMatchObject({ status: 'done' });
      const before = [await storeRequests(robot), await storeRequests(door)];
      for (let i = 0; i < OPERATIONS; i++) expect(await dispatch()).toMatchObject({ status: 'done' });
      const [caller, receiver] = [
        perOperation(before[0]!, await storeRequests(robot)),
        perOperation(before[1]!, await storeRequests(door)),
      ];
      // The receiver's cancel watch reads while work runs longer than its interval (a loaded
      // machine may take that long): a cost per second of running, not per Operation.
      // The idle receiver claims inside the trigger, so it reads nothing to resolve the Operation.
      const { select: reads = 0, ...claims } = receiver;
      expect(reads).toBeLessThanOrEqual(0.2);
      // The caller reads nothing: discovery's answer from the first dispatch is remembered.
      expect({ caller, receiver: claims }).toEqual({ caller: { update: 1 }, receiver: { conditional_update: 2 } });
      expect(caller.update! + claims.conditional_update!).toBeLessThanOrEqual(MAX_REQUESTS_PER_OPERATION);
    },
    120_000,
  );
});
