import { describe, expect } from '@jest/globals';
import { ValueError } from '../../src/errors.js';
import { mintCapabilityIri } from '../../src/iri/index.js';
import { cancelOperation, createOperation, createPossession, revertOperation } from '../../src/registration/index.js';
import { mes, PLANT, plant, sm, svc } from '../../src/vocab/index.js';
import { TIMESTAMP_DATATYPE } from '../../src/vocab/terms.js';
import { auditGraph, readGraph, values } from '../faults/support/graph-audit.js';
import { rejection } from '../support/per-store.js';
import { FlakyStore, middlewareSuite, OPEN_REQUEST } from './support/harness.js';

const G = 'urn:test:middleware:audit';
const PART = PLANT('part9');
const LOAD = 6;

describe.each(['embedded', 'remote'] as const)('the audit trail of Operations and possession on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const instant = (index: Awaited<ReturnType<typeof readGraph>>, subject: string, property: string): number => {
    const found = values(index, subject, property);
    expect(found).toHaveLength(1);
    const at = Date.parse(found[0]!);
    expect(Number.isNaN(at)).toBe(false);
    return at;
  };

  onStore(
    'should name the requester and the created, claimed and finished times of every Operation of a load, in order',
    async () => {
      const door = suite.controller({ heartbeatInterval: null });
      let calls = 0;
      door.registerCallback(() => {
        calls += 1;
        if (calls % 4 === 0) throw new Error('jammed');
        return 'opened';
      });
      await door.start();
      const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null });
      await robot.start();
      const started = Date.now();
      const ops = await Promise.all(Array.from({ length: LOAD }, () => robot.request(OPEN_REQUEST)));
      const named = await robot.request({ ...OPEN_REQUEST, requestedBy: 'local-api:alice' });
      const outcomes = await Promise.all([...ops, named].map((op) => robot.waitForOperation(op, { timeoutMs: 60_000 })));
      expect(outcomes.map((o) => o.status).sort()).toEqual(expect.arrayContaining(['done', 'failed']));
      const index = await readGraph(suite.store!, G);
      for (const op of [...ops, named]) {
        expect(values(index, op, sm.requestedBy)).toEqual([op === named ? 'local-api:alice' : robot.serviceIri]);
        const created = instant(index, op, sm.createdAt);
        const claimed = instant(index, op, sm.claimedAt);
        const finished = instant(index, op, sm.finishedAt);
        expect(created).toBeGreaterThanOrEqual(started - 1000);
        expect(claimed).toBeGreaterThanOrEqual(created);
        expect(finished).toBeGreaterThanOrEqual(claimed);
        expect(values(index, op, svc.executionTimestamp)).toEqual(values(index, op, sm.finishedAt));
      }
      const dump = await suite.dump();
      expect(dump).toContain(`<${sm.createdAt}> "${values(index, named, sm.createdAt)[0]}"^^<${TIMESTAMP_DATATYPE}>`);
      expect(await auditGraph(suite.store!, G)).toEqual([]);
    },
    90_000,
  );

  onStore('should write the audit in the same single update as the create, the claim and the terminal write', async () => {
    const observed = new FlakyStore(suite.store!);
    const updates: string[] = [];
    observed.failing = (k, text) => (k === 'update' && updates.push(text), false);
    const door = suite.controller({ heartbeatInterval: null, ogm: suite.newOgm(observed) });
    door.registerCallback(() => 'opened');
    await door.start();
    const robot = suite.create({
      resourceIri: plant.robot1,
      serviceClass: plant.ControllerService,
      heartbeatInterval: null,
      ogm: suite.newOgm(observed),
    });
    await robot.start();
    updates.length = 0;
    const op = await robot.request(OPEN_REQUEST);
    expect(await robot.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done' });
    // Create, claim, terminal write: three updates, each carrying its audit term.
    expect(updates).toHaveLength(3);
    expect(updates[0]).toContain(sm.requestedBy);
    expect(updates[0]).toContain(sm.createdAt);
    expect(updates[1]).toContain(sm.claimedAt);
    expect(updates[2]).toContain(sm.finishedAt);
  });

  onStore('should record who cancelled a queued Operation and when it finished, in the cancel update', async () => {
    const ogm = suite.newOgm();
    const operationIri = PLANT('op_audit_cancel');
    const capabilityIri = mintCapabilityIri(plant.door1, 'open');
    await createOperation(ogm, { operationIri, operationClass: plant.OpenDoorOperation, capabilityIri, requestedBy: 'cli:bob' });
    await cancelOperation(ogm, operationIri, { by: 'cli:carol', now: new Date('2030-01-02T03:04:05.000Z') });
    const index = await readGraph(suite.store!, G);
    expect(values(index, operationIri, sm.requestedBy)).toEqual(['cli:bob']);
    expect(values(index, operationIri, sm.cancelledBy)).toEqual(['cli:carol']);
    expect(instant(index, operationIri, sm.finishedAt)).toBe(Date.parse('2030-01-02T03:04:05.000Z'));
  });

  onStore('should revert exactly what was created, the audit terms included', async () => {
    const ogm = suite.newOgm();
    const created = {
      operationIri: PLANT('op_audit_revert'),
      operationClass: plant.OpenDoorOperation,
      capabilityIri: mintCapabilityIri(plant.door1, 'open'),
      requestedBy: 'urn:caller',
      createdAt: new Date(),
    };
    await createOperation(ogm, created);
    await revertOperation(ogm, created);
    expect(await suite.dump()).toBe('');
  });

  onStore('should refuse hostile requester names before anything is written', async () => {
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null });
    const ogm = suite.newOgm();
    const base = {
      operationIri: PLANT('op_hostile'),
      operationClass: plant.OpenDoorOperation,
      capabilityIri: mintCapabilityIri(plant.door1, 'open'),
    };
    for (const hostile of ['', 'a\nb', 'x'.repeat(257), 'nul\u0000', 42]) {
      expect(await rejection(createOperation(ogm, { ...base, requestedBy: hostile as string }))).toBeInstanceOf(ValueError);
      expect(await rejection(robot.request({ ...OPEN_REQUEST, requestedBy: hostile as string }))).toBeInstanceOf(ValueError);
    }
    // Quotes and markup are names like any other: stored as plain text, never as SPARQL.
    const odd = `"}; DROP ALL; <x> '`;
    await createOperation(ogm, { ...base, requestedBy: odd });
    expect(values(await readGraph(suite.store!, G), base.operationIri, sm.requestedBy)).toEqual([odd]);
  });

  onStore('should record when and by whom each change of possession was made', async () => {
    const ogm = suite.newOgm();
    await ogm.create({ iri: PART, type: plant.Part });
    const first = await createPossession(ogm, { workpieceIri: PART, possessorIri: plant.robot1, changedBy: 'cli:dora' });
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, heartbeatInterval: null });
    const conveyor = suite.create({ resourceIri: plant.conveyor1, serviceClass: plant.ControllerService, heartbeatInterval: null });
    await Promise.all([robot.start(), conveyor.start()]);
    const put = await robot.handover({ mode: mes.Put, workpiece: PART, counterpart: plant.conveyor1 });
    const back = await conveyor.handover({ mode: mes.Release, workpiece: PART, counterpart: plant.robot1, by: 'local-api:erin' });
    const index = await readGraph(suite.store!, G);
    expect(values(index, first, sm.possessionChangedBy)).toEqual(['cli:dora']);
    expect(values(index, put, sm.possessionChangedBy)).toEqual([robot.serviceIri]);
    expect(values(index, back, sm.possessionChangedBy)).toEqual(['local-api:erin']);
    const times = [first, put, back].map((state) => instant(index, state, sm.possessionChangedAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(await auditGraph(suite.store!, G)).toEqual([]);
    expect(
      await rejection(robot.handover({ mode: mes.Put, workpiece: PART, counterpart: plant.conveyor1, by: 'bad\u0007' })),
    ).toBeInstanceOf(ValueError);
  });
});
