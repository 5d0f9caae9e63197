import { describe, expect } from '@jest/globals';
import { OperationResolutionError, TransitionConflictError, ValueError } from '../../src/errors.js';
import { mintOperationIri } from '../../src/iri/index.js';
import { readOperation } from '../../src/middleware/operations/operation-watch.js';
import { OGM } from '../../src/ogm/index.js';
import { cancelOperation } from '../../src/registration/cancellation.js';
import {
  createOperation,
  markOperationFailed,
  recordTerminalStatus,
  setOperationStatus,
  sweepStaleServices,
} from '../../src/registration/index.js';
import { cfc, FailureKind, ONTOLOGY_GRAPHS, plant, sm } from '../../src/vocab/index.js';
import { addService, OPEN_DOOR, rejection, storeSuite, type RegisteredService } from './support/plant-graph.js';

/**
 * Cancelling Operations and the failure kinds written with `failed`: every outcome of a cancel,
 * and the races that must end in exactly one outcome (a cancel against a claim, and against the
 * receiver's terminal write), 100 rounds each, with separate OGMs as separate processes have.
 */

const G = 'urn:test:registration:cancellation';
const ROUNDS = 100;
const BY = 'cli:tester';

describe.each(['embedded', 'remote'] as const)('cancelling Operations on the %s store', (kind) => {
  const suite = storeSuite(kind, G);
  const { onStore } = suite;
  let door: RegisteredService;

  const ogm = (): OGM => new OGM({ store: suite.store!, graph: G, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  const setup = async (): Promise<void> => {
    door = await addService(suite.ogm, { resourceIri: plant.door1, address: 'http://127.0.0.1:8111', workflows: [OPEN_DOOR] });
  };
  const create = async (deadline?: Date): Promise<string> => {
    const operationIri = mintOperationIri(plant.OpenDoorOperation);
    await createOperation(suite.ogm, {
      operationIri,
      operationClass: plant.OpenDoorOperation,
      capabilityIri: door.workflows[0]!.capabilityIri,
      ...(deadline && { deadline }),
    });
    return operationIri;
  };
  const running = async (): Promise<string> => {
    const op = await create();
    await setOperationStatus(suite.ogm, { operationIri: op, status: 'running' });
    return op;
  };
  const done = (op: string, o: OGM = suite.ogm) =>
    recordTerminalStatus(o, { operationIri: op, workflowIri: door.workflows[0]!.workflowIri, status: 'done', result: 'opened' });

  onStore('should fail a queued Operation at once, naming who cancelled it, with kind cancelled', async () => {
    await setup();
    const op = await create(new Date('2030-01-01T00:00:00Z'));
    expect(await readOperation(suite.ogm, op)).toMatchObject({ status: 'queued', deadline: new Date('2030-01-01T00:00:00Z') });
    expect(await cancelOperation(suite.ogm, op, { by: BY })).toEqual({
      operationIri: op,
      outcome: 'cancelled',
      status: 'failed',
      cancelledBy: BY,
    });
    expect(await readOperation(suite.ogm, op)).toMatchObject({
      status: 'failed',
      failureKind: 'cancelled',
      cancelledBy: BY,
      result: `cancelled by ${BY} while queued; not run`,
    });
    // A claim after the cancel loses.
    expect(await rejection(setOperationStatus(suite.ogm, { operationIri: op, status: 'running' }))).toBeInstanceOf(TransitionConflictError);
  });

  onStore('should mark a running Operation for cancelling; done is then refused and only a cancelled failure completes it', async () => {
    await setup();
    const op = await running();
    expect(await cancelOperation(suite.ogm, op, { by: BY })).toMatchObject({ outcome: 'requested', status: 'running', cancelledBy: BY });
    // A second cancel is acknowledged, naming the first caller.
    expect(await cancelOperation(suite.ogm, op, { by: 'someone-else' })).toMatchObject({ outcome: 'requested', cancelledBy: BY });
    const refused = await rejection(done(op));
    expect(refused).toBeInstanceOf(TransitionConflictError);
    expect((refused as Error).message).toContain(`a cancel of it was requested by "${BY}"`);
    const error = { operationIri: op, workflowIri: door.workflows[0]!.workflowIri, status: 'failed' as const, result: 'boom' };
    expect(await rejection(recordTerminalStatus(suite.ogm, error))).toBeInstanceOf(TransitionConflictError);
    await recordTerminalStatus(suite.ogm, { ...error, result: 'cancelled', failureKind: FailureKind.CANCELLED });
    expect(await readOperation(suite.ogm, op)).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: BY });
  });

  onStore('should refuse to cancel a done or failed Operation (409) and an unknown one (404), changing nothing', async () => {
    await setup();
    const finished = await running();
    await done(finished);
    const failed = await create();
    await markOperationFailed(suite.ogm, failed, 'gave up', { kind: FailureKind.ERROR });
    const before = await suite.dump();
    expect(await rejection(cancelOperation(suite.ogm, finished, { by: BY }))).toBeInstanceOf(TransitionConflictError);
    expect(await rejection(cancelOperation(suite.ogm, failed, { by: BY }))).toBeInstanceOf(TransitionConflictError);
    const unknown = mintOperationIri(plant.OpenDoorOperation);
    expect(await rejection(cancelOperation(suite.ogm, unknown, { by: BY }))).toBeInstanceOf(OperationResolutionError);
    expect(await suite.dump()).toBe(before);
  });

  onStore('should refuse hostile input with a ValueError and write nothing', async () => {
    await setup();
    const op = await create();
    const before = await suite.dump();
    for (const iri of ['https://example.org/a>b', 'not an iri', '', 'urn:x"}; DROP ALL; #'])
      expect(await rejection(cancelOperation(suite.ogm, iri, { by: BY }))).toBeInstanceOf(ValueError);
    for (const by of ['', 'a\nb', 'x'.repeat(257), 42, null])
      expect(await rejection(cancelOperation(suite.ogm, op, { by: by as string }))).toBeInstanceOf(ValueError);
    expect(await rejection(markOperationFailed(suite.ogm, op, 'x', { kind: 'exploded' as FailureKind }))).toBeInstanceOf(ValueError);
    const bad = {
      operationIri: mintOperationIri(plant.OpenDoorOperation),
      operationClass: plant.OpenDoorOperation,
      capabilityIri: door.workflows[0]!.capabilityIri,
    };
    expect(await rejection(createOperation(suite.ogm, { ...bad, deadline: new Date('nope') }))).toBeInstanceOf(ValueError);
    expect(await rejection(createOperation(suite.ogm, { ...bad, data: { [sm.deadline]: new Date() } }))).toBeInstanceOf(ValueError);
    expect(await suite.dump()).toBe(before);
  });

  onStore('should write the failure kind with every failure: swept by the sweep, given to markOperationFailed', async () => {
    await setup();
    const op = await create();
    const orphan = await running();
    await markOperationFailed(suite.ogm, orphan, 'orphaned', { kind: FailureKind.ORPHANED });
    expect(await readOperation(suite.ogm, orphan)).toMatchObject({ status: 'failed', failureKind: 'orphaned' });
    await sweepStaleServices(suite.ogm, 60, { now: new Date(Date.now() + 3_600_000) });
    expect(await readOperation(suite.ogm, op)).toMatchObject({ status: 'failed', failureKind: 'swept' });
  });

  onStore(
    'should fail with expectQueued only a queued Operation holding exactly the values expected, writing nothing otherwise',
    async () => {
      await setup();
      const deadline = new Date('2030-01-01T00:00:00Z');
      const op = await create(deadline);
      const capability = door.workflows[0]!.capabilityIri;
      const before = await suite.dump();
      const otherDeadline = { [sm.deadline]: [new Date('2031-01-01T00:00:00Z')] };
      const conflict = await rejection(
        markOperationFailed(suite.ogm, op, 'late', { kind: FailureKind.DEADLINE, expectQueued: otherDeadline }),
      );
      expect(conflict).toBeInstanceOf(TransitionConflictError);
      expect(await rejection(markOperationFailed(suite.ogm, op, 'late', { expectQueued: { [sm.deadline]: [] } }))).toBeInstanceOf(
        TransitionConflictError,
      );
      expect(await rejection(markOperationFailed(suite.ogm, op, 'x', { expectQueued: [] as never }))).toBeInstanceOf(ValueError);
      expect(await suite.dump()).toBe(before);
      // A running Operation is not failed this way, even when it holds the values expected.
      const claimed = await running();
      expect(await rejection(markOperationFailed(suite.ogm, claimed, 'late', { expectQueued: {} }))).toBeInstanceOf(
        TransitionConflictError,
      );
      expect(await readOperation(suite.ogm, claimed)).toMatchObject({ status: 'running' });
      const expectQueued = { [sm.deadline]: [deadline], [cfc.implementsCapability]: [capability] };
      await markOperationFailed(suite.ogm, op, 'late', { kind: FailureKind.DEADLINE, expectQueued });
      const failed = await readOperation(suite.ogm, op);
      expect(failed).toMatchObject({ status: 'failed', failureKind: 'deadline', result: 'late' });
      expect(failed?.claimedAt).toBeUndefined();
    },
  );

  onStore(
    `should end a cancel racing a claim in exactly one outcome, ${ROUNDS} rounds`,
    async () => {
      await setup();
      const counts = { cancelled: 0, requested: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const op = await create();
        const [cancel, claim] = await Promise.allSettled([
          cancelOperation(ogm(), op, { by: BY }),
          setOperationStatus(ogm(), { operationIri: op, status: 'running' }),
        ]);
        expect(cancel.status).toBe('fulfilled');
        const outcome = (cancel as PromiseFulfilledResult<Awaited<ReturnType<typeof cancelOperation>>>).value.outcome;
        const snapshot = await readOperation(suite.ogm, op);
        if (outcome === 'cancelled') {
          // The cancel won: the claim lost, and nothing runs.
          expect(claim.status).toBe('rejected');
          expect(snapshot).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: BY });
          expect(snapshot?.cancelRequested).toBeUndefined();
        } else {
          // The claim won: the cancel is pending for the receiver to complete.
          expect(claim.status).toBe('fulfilled');
          expect(snapshot).toMatchObject({ status: 'running', cancelledBy: BY });
          expect(snapshot?.cancelRequested).toBeInstanceOf(Date);
          expect(snapshot?.failureKind).toBeUndefined();
        }
        counts[outcome] += 1;
      }
      expect(counts.cancelled + counts.requested).toBe(ROUNDS);
    },
    600_000,
  );

  onStore(
    `should end a cancel racing the terminal write in exactly one outcome, ${ROUNDS} rounds`,
    async () => {
      await setup();
      const counts = { done: 0, cancelled: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const op = await running();
        const [cancel, terminal] = await Promise.allSettled([cancelOperation(ogm(), op, { by: BY }), done(op, ogm())]);
        if (terminal.status === 'fulfilled') {
          // done won: the cancel is refused, and the Operation stays done.
          expect(cancel.status).toBe('rejected');
          expect((cancel as PromiseRejectedResult).reason).toBeInstanceOf(TransitionConflictError);
          expect(await readOperation(suite.ogm, op)).toMatchObject({ status: 'done', result: 'opened' });
          expect((await readOperation(suite.ogm, op))?.cancelRequested).toBeUndefined();
          counts.done += 1;
        } else {
          // The cancel won: done lost, and the receiver completes the cancel.
          expect(cancel.status).toBe('fulfilled');
          expect((cancel as PromiseFulfilledResult<{ outcome: string }>).value.outcome).toBe('requested');
          expect(terminal.reason).toBeInstanceOf(TransitionConflictError);
          const workflowIri = door.workflows[0]!.workflowIri;
          await recordTerminalStatus(suite.ogm, {
            operationIri: op,
            workflowIri,
            status: 'failed',
            result: 'stopped',
            failureKind: 'cancelled',
          });
          expect(await readOperation(suite.ogm, op)).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: BY });
          counts.cancelled += 1;
        }
      }
      expect(counts.done + counts.cancelled).toBe(ROUNDS);
    },
    600_000,
  );
});
