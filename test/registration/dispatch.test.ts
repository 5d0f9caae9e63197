import { describe, expect } from '@jest/globals';
import { OperationResolutionError, ValueError } from '../../src/errors.js';
import { mintCapabilityIri, mintOperationIri } from '../../src/iri/index.js';
import { FRESH_CANDIDATES } from '../../src/queries/dispatch.js';
import { resolveDispatchTarget, resolveOperationWorkflow } from '../../src/registration/dispatch.js';
import { createOperation } from '../../src/registration/operations.js';
import { cfc, PLANT, plant, sm } from '../../src/vocab/index.js';
import { addService, CLOSE_DOOR, deregister, OPEN_DOOR, rejection, storeSuite } from './support/plant-graph.js';

const G = 'urn:test:registration:dispatch';
const G2 = 'urn:test:registration:dispatch:other';
const door2 = PLANT('door2');
const door3 = PLANT('door3');
const ago = (seconds: number): Date => new Date(Date.now() - seconds * 1000);

describe.each(['embedded', 'remote'] as const)('dispatch on the %s store', (kind) => {
  const suite = storeSuite(kind, G, { extraGraphs: [G2] });
  const { onStore } = suite;
  const ogm = () => suite.ogm;

  async function expectUnresolved(p: Promise<unknown>, ...patterns: RegExp[]): Promise<void> {
    const e = await rejection(p);
    expect(e).toBeInstanceOf(OperationResolutionError);
    for (const pattern of patterns) expect((e as Error).message).toMatch(pattern);
  }
  const escape = (s: string): RegExp => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'), 'u');

  // resolveDispatchTarget ----------------------------------------------------------------------

  onStore('should resolve a Capability class to a reachable Service in one query', async () => {
    const door = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8201' });
    const before = suite.requests();
    const target = await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability);
    expect(suite.requests() - before).toBe(1);
    expect(target).toEqual({
      capabilityIri: door.workflows[0]!.capabilityIri,
      serviceIri: door.serviceIri,
      serviceAddress: 'http://127.0.0.1:8201',
    });
  });

  onStore('should match subclasses of the Capability class', async () => {
    const door = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8202' });
    expect((await resolveDispatchTarget(ogm(), cfc.Capability)).capabilityIri).toBe(door.workflows[0]!.capabilityIri);
    expect((await resolveDispatchTarget(ogm(), cfc.Capability, { targetResource: plant.door1 })).serviceIri).toBe(door.serviceIri);
  });

  onStore('should pick the pinned resource Service', async () => {
    await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8203', heartbeat: ago(1) });
    const two = await addService(ogm(), { resourceIri: door2, address: 'http://127.0.0.1:8204', heartbeat: ago(60) });
    const before = suite.requests();
    const target = await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: door2 });
    expect(suite.requests() - before).toBe(1);
    expect(target).toEqual({
      capabilityIri: mintCapabilityIri(door2, 'open'),
      serviceIri: two.serviceIri,
      serviceAddress: 'http://127.0.0.1:8204',
    });
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.robot1 }),
      escape(plant.DoorOpeningCapability),
      escape(plant.robot1),
    );
    // The door2 Service realizes no closing Capability.
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorClosingCapability, { targetResource: door2 }),
      escape(plant.DoorClosingCapability),
    );
  });

  onStore('should prefer the freshest heartbeat, and a Service without heartbeat last', async () => {
    await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8205', heartbeat: ago(60) });
    const fresh = await addService(ogm(), { resourceIri: door2, address: 'http://127.0.0.1:8206', heartbeat: ago(5) });
    await addService(ogm(), { resourceIri: door3, address: 'http://127.0.0.1:8207', heartbeat: null });
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability)).serviceIri).toBe(fresh.serviceIri);
    // Two instances of one resource: the fresher wins when pinned too.
    const second = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8208', heartbeat: ago(2) });
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.door1 })).serviceIri).toBe(
      second.serviceIri,
    );
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability)).serviceIri).toBe(second.serviceIri);
  });

  onStore('should never offer a stale Service, and say how many realizers it skipped as stale', async () => {
    await addService(ogm(), { resourceIri: door3, address: 'http://127.0.0.1:8209', heartbeat: null });
    const old = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8210', heartbeat: ago(3600) });
    await addService(ogm(), { resourceIri: door2, address: 'http://127.0.0.1:8211', heartbeat: ago(7200) });
    await expectUnresolved(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability), /skipped 3 realizer\(s\) as stale/);
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.door1 }),
      escape(plant.door1),
      /skipped 1 realizer\(s\) as stale/,
    );
    await addService(ogm(), { resourceIri: PLANT('door4'), address: 'http://127.0.0.1:8212', heartbeat: null });
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: PLANT('door4') }),
      /skipped 1 realizer\(s\) as stale/,
    );
    // Within a wider threshold the old one is fresh and wins.
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { freshWithinSeconds: 86_400 })).serviceIri).toBe(
      old.serviceIri,
    );
  });

  onStore('should judge each Service by its own heartbeat interval, with the threshold as a floor', async () => {
    // Heartbeats every 60 s, last one 100 s ago: stale by a 90 s threshold alone, alive by 3 x 60 s.
    const slow = await addService(ogm(), {
      resourceIri: plant.door1,
      address: 'http://127.0.0.1:8230',
      heartbeat: ago(100),
      heartbeatIntervalMs: 60_000,
    });
    // Written by the reference, no interval: judged by the threshold.
    await addService(ogm(), { resourceIri: door2, address: 'http://127.0.0.1:8231', heartbeat: ago(100) });
    // A short interval never shortens the threshold: 10 s heartbeats, 60 s ago, is fresh by 90 s.
    const short = await addService(ogm(), {
      resourceIri: door3,
      address: 'http://127.0.0.1:8232',
      heartbeat: ago(60),
      heartbeatIntervalMs: 10_000,
    });
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability)).serviceIri).toBe(short.serviceIri);
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.door1 })).serviceIri).toBe(
      slow.serviceIri,
    );
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: door2 }),
      /skipped 1 realizer\(s\) as stale/,
    );
    // Past 3 x 60 s the slow one is stale too: unpinned discovery reads every candidate, offers none, counts them.
    const later = new Date(Date.now() + 120_000);
    await expectUnresolved(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { now: later }), /skipped 3 realizer\(s\) as stale/);
    // Nothing fresh by the threshold: the second query finds the one alive by its own interval.
    const before = suite.requests();
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { now: new Date(Date.now() + 40_000) })).serviceIri).toBe(
      slow.serviceIri,
    );
    expect(suite.requests() - before).toBe(2);
  });

  onStore('should skip a Service whose device is marked unavailable, and say so', async () => {
    const down = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8240', deviceUnavailableSince: ago(5) });
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability),
      /skipped 1 realizer\(s\) whose device is unavailable/,
    );
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.door1 }),
      /skipped 1 realizer\(s\) whose device is unavailable/,
    );
    // A twin of the resource with its device: offered; the marked one never is, fresher or not.
    const twin = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8241', heartbeat: ago(30) });
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability)).serviceIri).toBe(twin.serviceIri);
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.door1 })).serviceIri).toBe(
      twin.serviceIri,
    );
    await ogm().commit({ iri: down.serviceIri, set: { [sm.deviceUnavailableSince]: [] }, graph: G });
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability)).serviceIri).toBe(down.serviceIri);
  });

  onStore('should judge hostile interval values safely', async () => {
    const hostile = ['-60000', '0', 'abc', '1e12', '99999999999999999999', ' 60000 ; DROP ALL', '60000.5'];
    for (const [i, value] of hostile.entries()) {
      const service = await addService(ogm(), {
        resourceIri: PLANT(`hostile${i}`),
        address: `http://127.0.0.1:${8250 + i}`,
        heartbeat: ago(100),
      });
      await suite.store!.update(
        `INSERT DATA { GRAPH <${G}> { <${service.serviceIri}> <${sm.heartbeatInterval}> ${JSON.stringify(value)} } }`,
      );
    }
    // None is a positive whole number of ms: each is judged by the threshold alone, so all are stale.
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability),
      new RegExp(`skipped ${hostile.length} realizer`, 'u'),
    );
    // A huge one is capped at an hour: alive for 3 h at most.
    const huge = await addService(ogm(), {
      resourceIri: PLANT('huge'),
      address: 'http://127.0.0.1:8270',
      heartbeat: ago(100),
      heartbeatIntervalMs: 2 ** 40,
    });
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability)).serviceIri).toBe(huge.serviceIri);
    await expectUnresolved(
      resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { now: new Date(Date.now() + 3 * 3_600_000) }),
      new RegExp(`skipped ${hostile.length + 1} realizer`, 'u'),
    );
  });

  onStore(
    'should find the one fresh Service behind more stale ones than it samples, registered after it',
    async () => {
      const fresh = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8220', heartbeat: ago(5) });
      // Registered later, so the store meets them first; more than FRESH_CANDIDATES and the 8 the former fallback sampled.
      for (let i = 0; i < FRESH_CANDIDATES + 12; i++) {
        await addService(ogm(), {
          resourceIri: PLANT(`deadDoor${i}`),
          address: `http://127.0.0.1:${8300 + i}`,
          heartbeat: i % 2 ? null : ago(3600),
        });
      }
      const before = suite.requests();
      expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability)).serviceIri).toBe(fresh.serviceIri);
      expect((await resolveDispatchTarget(ogm(), cfc.Capability)).serviceIri).toBe(fresh.serviceIri);
      expect(suite.requests() - before).toBe(2);
    },
    60_000,
  );

  onStore('should refuse when nothing reachable realizes the Capability', async () => {
    await expectUnresolved(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability), escape(plant.DoorOpeningCapability), /svc:address/);
    const door = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8213' });
    await expectUnresolved(resolveDispatchTarget(ogm(), plant.TransportCapability), escape(plant.TransportCapability));
    await expectUnresolved(resolveDispatchTarget(ogm(), PLANT('NoSuchCapability')), /not declared/);
    // The only Service is deregistered: no svc:address, nothing to dispatch to.
    await deregister(ogm(), door);
    await expectUnresolved(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability));
    await expectUnresolved(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.door1 }), escape(plant.door1));
  });

  onStore('should read the namedGraph when given', async () => {
    const other = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8214', graph: G2 });
    await expectUnresolved(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability));
    expect((await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { namedGraph: G2 })).serviceIri).toBe(other.serviceIri);
  });

  onStore('should refuse malformed input with ValueError', async () => {
    for (const bad of ['https://example.org/a>b', 'https://example.org/a b', 'no-scheme']) {
      await expect(resolveDispatchTarget(ogm(), bad)).rejects.toThrow(ValueError);
      await expect(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: bad })).rejects.toThrow(ValueError);
      await expect(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { namedGraph: bad })).rejects.toThrow(ValueError);
      await expect(resolveOperationWorkflow(ogm(), bad)).rejects.toThrow(ValueError);
    }
    await expect(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { freshWithinSeconds: -1 })).rejects.toThrow(ValueError);
    await expect(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { freshWithinSeconds: Number.NaN })).rejects.toThrow(ValueError);
    await expect(resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { now: new Date(Number.NaN) })).rejects.toThrow(ValueError);
  });

  // resolveOperationWorkflow -------------------------------------------------------------------

  async function operationFor(capabilityIri: string, graph?: string): Promise<string> {
    const operationIri = mintOperationIri(plant.OpenDoorOperation);
    await createOperation(ogm(), {
      operationIri,
      operationClass: plant.OpenDoorOperation,
      capabilityIri,
      ...(graph ? { namedGraph: graph } : {}),
    });
    return operationIri;
  }

  onStore('should resolve the Workflow of an Operation in one query, even after deregistration', async () => {
    const door = await addService(ogm(), {
      resourceIri: plant.door1,
      address: 'http://127.0.0.1:8215',
      workflows: [OPEN_DOOR, CLOSE_DOOR],
    });
    const op = await operationFor(door.workflows[1]!.capabilityIri);
    const before = suite.requests();
    expect(await resolveOperationWorkflow(ogm(), op)).toBe(door.workflows[1]!.workflowIri);
    expect(suite.requests() - before).toBe(1);
    await deregister(ogm(), door);
    expect(await resolveOperationWorkflow(ogm(), op)).toBe(door.workflows[1]!.workflowIri);
  });

  onStore('should prefer the Workflow of a reachable Service, then the freshest heartbeat', async () => {
    // Two instances of door1 share the per-resource Capability; each has its own Workflow.
    const a = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8216', heartbeat: ago(1) });
    const b = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8217', heartbeat: ago(30) });
    expect(a.workflows[0]!.capabilityIri).toBe(b.workflows[0]!.capabilityIri);
    const op = await operationFor(a.workflows[0]!.capabilityIri);
    expect(await resolveOperationWorkflow(ogm(), op)).toBe(a.workflows[0]!.workflowIri);
    await deregister(ogm(), a);
    expect(await resolveOperationWorkflow(ogm(), op)).toBe(b.workflows[0]!.workflowIri);
  });

  onStore('should refuse an Operation whose Capability no Workflow realizes', async () => {
    await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8218' });
    const orphan = await operationFor(mintCapabilityIri(plant.robot1, 'open'));
    await expectUnresolved(resolveOperationWorkflow(ogm(), orphan), escape(orphan));
    await expectUnresolved(resolveOperationWorkflow(ogm(), mintOperationIri(plant.OpenDoorOperation)));
  });

  onStore('should keep the write rules: dispatch reads only', async () => {
    await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8219' });
    const before = await suite.dump();
    await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: plant.door1 });
    await resolveDispatchTarget(ogm(), plant.DoorOpeningCapability);
    expect(await suite.dump()).toBe(before);
  });
});
