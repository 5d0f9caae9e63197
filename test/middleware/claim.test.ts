import { describe, expect } from '@jest/globals';
import { buildEventTriggerUrl, mintCapabilityIri } from '../../src/iri/index.js';
import { OperationQueueEmpty, StoreError, ValueError } from '../../src/middleware/index.js';
import { markOperationFailed } from '../../src/registration/index.js';
import { cfc, plant, svc } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { ANGLE, FlakyStore, logSink, middlewareSuite, NOTE, postJson } from './support/harness.js';

const G = 'urn:test:middleware:claim';

describe.each(['embedded', 'remote'] as const)('claimNext on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const { queuedOp } = suite;
  const trigger = (address: string, op: string) => postJson(buildEventTriggerUrl(address), { operation_iri: op });

  onStore('should hand the body the fetched Operation under the scope and store the result', async () => {
    const door = suite.controller();
    await door.start();
    const a = await queuedOp({ data: { testAngle: 30, [NOTE]: 'a' } });
    const b = await queuedOp();
    const c = await queuedOp();
    for (const op of [a, b, c]) await trigger(door.address!, op);
    const result = await door.claimNext(
      (claimed) => {
        expect(claimed.data).toEqual({ testAngle: 30, testNote: 'a' });
        expect(claimed.operation.properties[ANGLE]).toEqual([expect.objectContaining({ value: '30' })]);
        expect(claimed.operation.linked[cfc.implementsCapability]).toEqual([
          expect.objectContaining({ iri: mintCapabilityIri(plant.door1, 'open') }),
        ]);
        claimed.result = 'opened';
        return 'ignored: result was set';
      },
      { follow: [[cfc.implementsCapability]] },
    );
    expect(result).toBe('opened');
    expect(await door.readOperation(a)).toMatchObject({ status: 'done', result: 'opened' });
    expect(await door.claimNext(() => ({ angle: 90, ok: true }))).toEqual({ angle: 90, ok: true });
    expect(await door.readOperation(b)).toMatchObject({ status: 'done', result: '{"angle":90,"ok":true}' });
    expect(await door.claimNext(() => undefined)).toBeUndefined();
    const snap = await door.readOperation(c);
    expect(snap?.status).toBe('done');
    expect(snap?.result).toBeUndefined();
    expect((await suite.dump()).includes(`<${c}> <${svc.executedByWorkflow}>`)).toBe(true);
  });

  onStore('should drop a head that lost and claim the next one; a store error keeps the head', async () => {
    const sink = logSink();
    const flaky = new FlakyStore(suite.store!);
    const door = suite.controller({ ogm: suite.newOgm(flaky), logger: sink.logger });
    await door.start();
    const lost = await queuedOp();
    const next = await queuedOp();
    for (const op of [lost, next]) await trigger(door.address!, op);
    await markOperationFailed(suite.newOgm(), lost, 'cancelled by the planner');
    flaky.failing = (k) => k === 'update';
    expect(await rejection(door.claimNext(() => 'x'))).toBeInstanceOf(StoreError);
    expect(door.queued).toEqual([lost, next]);
    flaky.failing = undefined;
    const ran: string[] = [];
    await door.claimNext((c) => void ran.push(c.operationIri));
    expect(ran).toEqual([next]);
    expect(await door.readOperation(lost)).toMatchObject({ status: 'failed', result: 'cancelled by the planner' });
    expect(sink.lines().some((l) => l.msg === 'queue entry dropped: it cannot be claimed' && l.operation === lost)).toBe(true);
    expect(await rejection(door.claimNext(() => 'x'))).toBeInstanceOf(OperationQueueEmpty);
  });

  onStore('should fail an Operation whose result cannot be stored, and refuse a missing body', async () => {
    const door = suite.controller();
    await door.start();
    const op = await queuedOp();
    await trigger(door.address!, op);
    expect(await rejection(door.claimNext(undefined as never))).toBeInstanceOf(ValueError);
    expect(door.queued).toEqual([op]);
    const error = await rejection(door.claimNext(() => 10n));
    expect(error).toBeInstanceOf(ValueError);
    expect(await door.readOperation(op)).toMatchObject({ status: 'failed', result: expect.stringContaining('not JSON-serializable') });
  });

  onStore('should keep the callback worker alive through claim store errors', async () => {
    const flaky = new FlakyStore(suite.store!);
    const door = suite.controller({ ogm: suite.newOgm(flaky) });
    door.registerCallback(() => 'done by callback');
    await door.start();
    const op = await queuedOp();
    flaky.failing = (k, text) => k === 'update' && text.includes('"running"');
    await trigger(door.address!, op);
    await new Promise((r) => setTimeout(r, 300));
    expect(flaky.failures).toBeGreaterThan(0);
    expect((await door.readOperation(op))?.status).toBe('queued');
    flaky.failing = undefined;
    expect(await door.waitForOperation(op, { timeoutMs: 10_000 })).toMatchObject({ status: 'done', result: 'done by callback' });
  });
});
