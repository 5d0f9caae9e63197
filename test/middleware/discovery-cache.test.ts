/**
 * The caller's discovery cache: what discovery found is reused for `discoveryCacheMs`, requests
 * that miss together share one read, a remembered receiver that declines the Operation (gone, or
 * answering 503) is replaced within the same request, and any failed trigger makes the next
 * request read the graph again.
 */
import { describe, expect } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TriggerDeliveryError } from '../../src/errors.js';
import { mintWorkflowIri } from '../../src/iri/index.js';
import type { DeviceHealthReport } from '../../src/middleware/index.js';
import { DispatchTargets } from '../../src/middleware/operations/dispatch-targets.js';
import { MeasuredStore } from '../../src/store/measured-store.js';
import { PLANT, plant, sm } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { logSink, middlewareSuite, OPEN, OPEN_REQUEST, registerOpenReceiver, until } from './support/harness.js';

const G = 'urn:test:middleware:discovery-cache';
const DOOR2 = PLANT('door2');
const REMEMBER_MS = 60_000;

describe.each(['embedded', 'remote'] as const)('the discovery cache on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  /**
   * A robot1 caller whose store reads are counted (`selects()`), with its log lines and activity
   * feed. Warmed by one request pinned to `warmWith` (door1 by default): its OGM's ontology and
   * type caches are then filled, so that the count holds discovery alone; the unpinned
   * discovery the tests use is not remembered yet.
   */
  async function caller(discoveryCacheMs = REMEMBER_MS, warmWith: string = plant.door1) {
    let selects = 0;
    const store = new MeasuredStore(suite.store!);
    store.observe((k) => void (k === 'select' && selects++));
    const sink = logSink('info');
    const robot = suite.create({
      resourceIri: plant.robot1,
      serviceClass: plant.ControllerService,
      heartbeatInterval: null,
      discoveryCacheMs,
      activityFeed: true,
      logger: sink.logger,
      ogm: suite.newOgm(store),
    });
    await robot.start();
    await robot.waitForOperation(await robot.request({ ...OPEN_REQUEST, targetResource: warmWith, wait: true }), { timeoutMs: 10_000 });
    selects = 0;
    return { robot, selects: () => selects, lines: sink.lines };
  }

  /** A receiver of door1 (or `resourceIri`) that records what it ran under `name`. */
  function receiver(ran: string[], name: string, options: Parameters<typeof suite.create>[0] | object = {}) {
    const door = suite.create({ resourceIri: plant.door1, serviceClass: plant.ControllerService, ...options });
    door.workflow(OPEN, () => 'opened');
    door.registerCallback(({ operationIri }) => void ran.push(`${name} ${operationIri}`));
    return door;
  }

  /**
   * Requests one Operation and waits for it, told its outcome by the receiver (so the wait reads
   * nothing); the Service the body saw as its target, and the outcome.
   */
  async function requestOne(robot: Awaited<ReturnType<typeof caller>>['robot'], options: object = {}) {
    let seen: string | undefined;
    const op = await robot.request({ ...OPEN_REQUEST, wait: true, ...options }, (draft) => void (seen = draft.target.serviceIri));
    const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
    return { op, seen: seen!, outcome };
  }

  /**
   * Receivers of door1 and door2 (each with its `options`), and a caller that has dispatched one
   * Operation and so remembers one of them: `remembered` and `other`, each with the name its runs
   * are recorded under in `ran` (emptied).
   */
  async function twoReceivers(ran: string[], options: { door1?: object; door2?: object } = {}) {
    const doors = { door1: receiver(ran, 'door1', options.door1), door2: receiver(ran, 'door2', { resourceIri: DOOR2, ...options.door2 }) };
    await Promise.all([doors.door1.start(), doors.door2.start()]);
    const calling = await caller();
    const { seen } = await requestOne(calling.robot);
    const [rememberedName, otherName] = seen === doors.door1.serviceIri ? (['door1', 'door2'] as const) : (['door2', 'door1'] as const);
    ran.length = 0;
    return { ...calling, remembered: doors[rememberedName], rememberedName, other: doors[otherName], otherName };
  }

  /** The caller's activity entries of `operationIri`. */
  const activityOf = (robot: Awaited<ReturnType<typeof caller>>['robot'], operationIri: string) =>
    robot.activity!.entries().entries.filter((e) => e.operation === operationIri);

  onStore('should read discovery once while it is remembered, and share one read among requests that miss together', async () => {
    const ran: string[] = [];
    const door = receiver(ran, 'door1');
    await door.start();
    const { robot, selects } = await caller();
    ran.length = 0;
    const first = await Promise.all([1, 2, 3, 4].map(() => robot.request({ ...OPEN_REQUEST, wait: true })));
    expect(selects()).toBe(1);
    for (let i = 0; i < 3; i++) expect((await requestOne(robot)).outcome.status).toBe('done');
    expect(selects()).toBe(1);
    for (const op of first) expect((await robot.waitForOperation(op, { timeoutMs: 10_000 })).status).toBe('done');
    expect(ran).toHaveLength(7);
  });

  onStore('should read discovery on every request with discoveryCacheMs 0', async () => {
    const door = receiver([], 'door1');
    await door.start();
    const { robot, selects } = await caller(0);
    for (let i = 0; i < 3; i++) expect((await requestOne(robot)).outcome.status).toBe('done');
    expect(selects()).toBe(3);
  });

  onStore('should send the Operation where discovery points now when the remembered receiver is gone', async () => {
    const ran: string[] = [];
    const { robot, selects, lines, remembered: gone, other, otherName } = await twoReceivers(ran);
    // Stopped: deregistered, and nothing listens at its address any more.
    await gone.stop();
    const before = selects();
    const { op, seen, outcome } = await requestOne(robot);
    // The body saw the remembered receiver; the Operation, reverted there, ran once at the other.
    expect(seen).toBe(gone.serviceIri);
    expect(outcome).toMatchObject({ status: 'done', workflowIri: mintWorkflowIri(other.serviceIri!, 'open') });
    expect(ran).toEqual([`${otherName} ${op}`]);
    expect(selects() - before).toBe(1);
    expect(activityOf(robot, op).map((e) => [e.kind, e.service])).toEqual([
      ['reverted', gone.serviceIri],
      ['request', other.serviceIri],
    ]);
    expect(
      lines().filter((l) => l.msg === 'the remembered receiver declined the Operation; requesting from the one discovery finds now'),
    ).toEqual([expect.objectContaining({ level: 30, operation: op, gone: gone.serviceIri, receiver: other.serviceIri })]);
    // The new receiver is remembered in turn.
    expect((await requestOne(robot)).seen).toBe(other.serviceIri);
    expect(selects() - before).toBe(1);
  });

  onStore('should share one discovery read among the requests that a gone receiver declined together', async () => {
    const ran: string[] = [];
    const { robot, selects, remembered: gone, other } = await twoReceivers(ran);
    await gone.stop();
    const reads = selects();
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => requestOne(robot)));
    for (const { outcome } of outcomes)
      expect(outcome).toMatchObject({ status: 'done', workflowIri: mintWorkflowIri(other.serviceIri!, 'open') });
    expect(ran).toHaveLength(4);
    expect(selects()).toBe(reads + 1);
  });

  onStore(
    'should send the Operation where discovery points now when the remembered receiver answers 503 (its device is down)',
    async () => {
      const ran: string[] = [];
      const reports = new Map<string, DeviceHealthReport>([
        ['door1', { available: true }],
        ['door2', { available: true }],
      ]);
      const health = (name: string) => ({ deviceHealth: () => Promise.resolve(reports.get(name)!), deviceHealthIntervalMs: 50 });
      const {
        robot,
        selects,
        remembered: withdrawn,
        rememberedName,
        other,
        otherName,
      } = await twoReceivers(ran, {
        door1: health('door1'),
        door2: health('door2'),
      });
      reports.set(rememberedName, { available: false, reason: 'unplugged' });
      await until(
        async () => (await suite.dump()).includes(`<${withdrawn.serviceIri}> <${sm.deviceUnavailableSince}>`),
        'the device marked down',
      );
      const reads = selects();
      const { op, seen, outcome } = await requestOne(robot);
      expect(seen).toBe(withdrawn.serviceIri);
      expect(outcome).toMatchObject({ status: 'done', workflowIri: mintWorkflowIri(other.serviceIri!, 'open') });
      expect(ran).toEqual([`${otherName} ${op}`]);
      expect(selects()).toBe(reads + 1);
      const entries = activityOf(robot, op);
      expect(entries.map((e) => [e.kind, e.service])).toEqual([
        ['reverted', withdrawn.serviceIri],
        ['request', other.serviceIri],
      ]);
      expect(String(entries[0]!.error)).toMatch(/answered 503: .*does not answer its health probe/u);
    },
  );

  onStore('should fail without asking discovery again when the remembered receiver answers another refusal', async () => {
    // A receiver of door2 that takes the first trigger and answers every later one with 500.
    let triggers = 0;
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        triggers += 1;
        if (triggers > 1) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"receiver broke"}');
        const { operation_iri: operation } = JSON.parse(body) as { operation_iri: string };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ operation, status: 'queued' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await registerOpenReceiver(suite.newOgm(), DOOR2, address);
      // No heartbeat: the graph is compared before and after the refused request.
      const door = receiver([], 'door1', { heartbeatInterval: null });
      await door.start();
      const { robot, selects } = await caller();
      const pinned = { ...OPEN_REQUEST, targetResource: DOOR2 };
      await robot.request(pinned);
      const reads = selects();
      const before = await suite.dump();
      const error = await rejection(robot.request(pinned));
      expect(error).toBeInstanceOf(TriggerDeliveryError);
      expect((error as Error).message).toMatch(/answered 500: \{"detail":"receiver broke"\}/u);
      // No second read, nothing left behind; the next request reads again.
      expect(selects()).toBe(reads);
      expect(await suite.dump()).toBe(before);
      await rejection(robot.request(pinned));
      expect(selects()).toBe(reads + 1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  onStore('should fail as without the cache when discovery still offers the receiver that refused the connection', async () => {
    const door = receiver([], 'door1');
    await door.start();
    const address = door.address!;
    const serviceIri = door.serviceIri!;
    const { robot, selects, lines } = await caller();
    const pinned = { targetResource: plant.door1 };
    expect((await requestOne(robot, pinned)).seen).toBe(serviceIri);
    // Gone without deregistering, as a killed sidecar: its Service stays in the graph, reachable and fresh.
    await door.stop();
    expect(await registerOpenReceiver(suite.newOgm(), plant.door1, address)).toBe(serviceIri);
    const before = await suite.dump();
    const reads = selects();
    const error = await rejection(robot.request({ ...OPEN_REQUEST, ...pinned }));
    expect(error).toBeInstanceOf(TriggerDeliveryError);
    expect((error as Error).message).toMatch(/was not delivered: .*ECONNREFUSED/u);
    // One fresh read, which offered the same receiver: no second attempt, nothing left behind.
    expect(selects()).toBe(reads + 1);
    expect(await suite.dump()).toBe(before);
    expect(
      lines().some((l) => l.msg === 'the remembered receiver declined the Operation; requesting from the one discovery finds now'),
    ).toBe(false);
    // Forgotten: the next request reads again.
    await rejection(robot.request({ ...OPEN_REQUEST, ...pinned }));
    expect(selects()).toBe(reads + 2);
  });

  onStore('should read again once the remembered target is older than the time given, and keep at most the entries given', async () => {
    const door = receiver([], 'door1');
    await door.start();
    const ogm = suite.newOgm();
    let now = 0;
    const options = (targetResource: string | null) => ({ targetResource, freshWithinSeconds: 90, namedGraph: null });
    const targets = new DispatchTargets(1_000, 1, () => now);
    const find = async (targetResource: string | null) =>
      (await targets.find(ogm, plant.DoorOpeningCapability, options(targetResource))).remembered;
    expect(await find(null)).toBe(false);
    now = 999;
    expect(await find(null)).toBe(true);
    now = 1_000;
    expect(await find(null)).toBe(false);
    // One entry at most: another key pushes it out.
    expect(await find(plant.door1)).toBe(false);
    expect(await find(null)).toBe(false);
    expect(await find(null)).toBe(true);
    // A later read's entry stays when an older target is forgotten; its own target goes.
    const current = (await targets.find(ogm, plant.DoorOpeningCapability, options(null))).target;
    targets.forget(plant.DoorOpeningCapability, null, { ...current, serviceAddress: 'http://127.0.0.1:1' });
    expect(await find(null)).toBe(true);
    targets.forget(plant.DoorOpeningCapability, null, current);
    expect(await find(null)).toBe(false);
  });
});
