import { describe, expect } from '@jest/globals';
import { buildEventTriggerUrl, mintCapabilityIri, mintOperationIri } from '../../src/iri/index.js';
import { waitForOperation } from '../../src/middleware/operations/operation-watch.js';
import { StoreError } from '../../src/errors.js';
import { CLAIM_UNKNOWN_REASON } from '../../src/middleware/operations/claim.js';
import { createOperation } from '../../src/registration/index.js';
import type { ConditionalUpdateCheck } from '../../src/store/triple-store.js';
import { plant } from '../../src/vocab/index.js';
import { FlakyStore, logSink, middlewareSuite, postJson, until } from './support/harness.js';

/**
 * How a receiver's work survives a store outage (claim.ts, reconstruct.ts, liveness.ts): the
 * outcome of an Operation the body finished while the store was away is written once it is
 * back, and an Operation whose trigger was refused during the outage is picked up when the
 * store answers again. The real-process variants are in test/faults/store-outage.test.ts.
 */

const G = 'urn:test:middleware:store-outage-recovery';

/**
 * A FlakyStore that reports its injected failures as failed requests, as a remote store does,
 * and can lose the answer of an update that applied (`losing` picks it, once).
 */
class OutageStore extends FlakyStore {
  losing: ((text: string) => boolean) | undefined;
  get failedRequests(): number {
    return this.failures;
  }
  override async conditionalUpdate(update: string, condition: ConditionalUpdateCheck): Promise<boolean> {
    const applied = await super.conditionalUpdate(update, condition);
    if (this.losing?.(update)) {
      this.losing = undefined;
      this.failures += 1;
      throw new StoreError('injected lost answer: the update applied', this.description);
    }
    return applied;
  }
}

describe.each(['embedded', 'remote'] as const)('a receiver through a store outage on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const { queuedOp } = suite;

  // Read past the outage: the test's own view of the graph.
  const outcome = (operationIri: string) => waitForOperation(suite.newOgm(), operationIri, { timeoutMs: 15_000 });

  onStore(
    'should write the outcome of a body that finished while the store was away once it is back, done and failed alike',
    async () => {
      const store = new OutageStore(suite.store!);
      const { logger, lines } = logSink('warn');
      const door = suite.controller({ ogm: suite.newOgm(store), logger });
      door.registerCallback((claimed) => {
        // The store goes away while the device works, for longer than the first retry's wait.
        store.failing = () => true;
        setTimeout(() => (store.failing = undefined), 1200);
        if (claimed.data.testNote === 'jam') throw new Error('door jammed');
        return 'opened while the store was away';
      });
      await door.start();
      const ok = await queuedOp();
      await postJson(buildEventTriggerUrl(door.address!), { operation_iri: ok });
      expect(await outcome(ok)).toMatchObject({
        status: 'done',
        result: 'opened while the store was away',
        workflowIri: `${door.serviceIri}_workflow_open`,
      });
      const retries = lines().filter(
        (l) => l.operation === ok && l.msg === "the 'done' outcome could not be written; retrying until the store answers",
      );
      expect(retries.length).toBeGreaterThan(0);

      const jammed = mintOperationIri(plant.OpenDoorOperation);
      await createOperation(suite.newOgm(), {
        operationIri: jammed,
        operationClass: plant.OpenDoorOperation,
        capabilityIri: mintCapabilityIri(plant.door1, 'open'),
        data: { testNote: 'jam' },
      });
      await until(() => store.failing === undefined, 'the outage to end');
      await postJson(buildEventTriggerUrl(door.address!), { operation_iri: jammed });
      expect(await outcome(jammed)).toMatchObject({ status: 'failed', result: 'door jammed', failureState: expect.any(String) });
    },
    30_000,
  );

  onStore(
    'should run an Operation whose trigger it refused during an outage once the store answers again, once',
    async () => {
      const store = new OutageStore(suite.store!);
      const door = suite.controller({ ogm: suite.newOgm(store) });
      const runs: string[] = [];
      door.registerCallback((claimed) => {
        runs.push(claimed.operationIri);
        return 'opened';
      });
      await door.start();
      // Two heartbeats with the store answering pick nothing up (none failed): the trigger is the way in.
      const early = await queuedOp();
      await new Promise((r) => setTimeout(r, 500));
      expect(door.queued).toEqual([]);
      expect(await door.readOperation(early)).toMatchObject({ status: 'queued' });

      const refused = await queuedOp();
      store.failing = () => true;
      const answer = await postJson(buildEventTriggerUrl(door.address!), { operation_iri: refused });
      expect([answer.status, answer.body.detail]).toEqual([503, 'injected store outage']);
      store.failing = undefined;
      // The caller could not revert it (its store was away too): the receiver picks it up itself,
      // with every other queued Operation of its own.
      expect(await outcome(refused)).toMatchObject({ status: 'done', result: 'opened' });
      expect(await outcome(early)).toMatchObject({ status: 'done' });
      await new Promise((r) => setTimeout(r, 500));
      expect(runs.sort()).toEqual([early, refused].sort());
    },
    30_000,
  );

  onStore(
    'should take a terminal write whose answer was lost for written, and fail, never run, an Operation whose claim answer was lost',
    async () => {
      const store = new OutageStore(suite.store!);
      const { logger, lines } = logSink('debug');
      const door = suite.controller({ ogm: suite.newOgm(store), logger });
      const runs: string[] = [];
      door.registerCallback((claimed) => {
        runs.push(claimed.operationIri);
        return 'opened';
      });
      await door.start();
      const written = await queuedOp();
      store.losing = (update) => update.includes('"done"');
      await postJson(buildEventTriggerUrl(door.address!), { operation_iri: written });
      expect(await outcome(written)).toMatchObject({ status: 'done', result: 'opened' });
      await until(() => lines().some((l) => l.operation === written && l.msg === 'operation done'), 'the claim to finish');
      expect(
        lines().filter((l) => l.operation === written && /could not be recorded|lost its compare-and-set/u.test(String(l.msg))),
      ).toEqual([]);

      const lost = await queuedOp();
      store.losing = (update) => update.includes('"running"');
      await postJson(buildEventTriggerUrl(door.address!), { operation_iri: lost });
      expect(await outcome(lost)).toMatchObject({ status: 'failed', result: CLAIM_UNKNOWN_REASON });
      expect(runs).toEqual([written]);
    },
    30_000,
  );
});
