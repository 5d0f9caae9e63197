/**
 * The event trigger asks for the outcome channel only when its caller will wait: a plain request
 * gets the receiver's plain JSON answer at once (no response kept open), a waiting one gets the
 * two-line answer and its wait is woken by the announced outcome without a store read. A wait
 * on an Operation requested without `wait` still finds the outcome in the store.
 */
import { describe, expect } from '@jest/globals';
import { ValueError } from '../../src/errors.js';
import { OUTCOME_STREAM_TYPE } from '../../src/middleware/operations/outcome-channel.js';
import { middlewareSuite, OPEN_REQUEST, recordedPair } from './support/harness.js';

const G = 'urn:test:middleware:trigger-outcome';

describe.each(['embedded', 'remote'] as const)('the outcome channel on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  const pair = (options?: { plainReceiver?: boolean }) => recordedPair(suite, options);

  onStore('should send a plain trigger, answered with plain JSON, when nobody waits', async () => {
    const { robot, triggers, reads } = await pair();
    const op = await robot.request(OPEN_REQUEST);
    expect(triggers).toHaveLength(1);
    expect(triggers[0]!.accept).toBe('application/json');
    expect(triggers[0]!.contentType).toMatch(/^application\/json/u);
    // A wait that was not announced finds the outcome in the store, audit fields included.
    reads.length = 0;
    const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
    expect(outcome).toMatchObject({ status: 'done', result: 'opened' });
    expect(outcome.claimedAt).toBeInstanceOf(Date);
    expect(outcome.finishedAt).toBeInstanceOf(Date);
    expect(reads.length).toBeGreaterThanOrEqual(1);
  });

  onStore('should wake a waiting caller with the announced outcome and no status read', async () => {
    const { robot, triggers, reads } = await pair();
    const op = await robot.request({ ...OPEN_REQUEST, wait: true });
    expect(triggers).toHaveLength(1);
    expect(triggers[0]!.accept).toContain(OUTCOME_STREAM_TYPE);
    expect(triggers[0]!.contentType).toMatch(new RegExp(`^${OUTCOME_STREAM_TYPE}`, 'u'));
    reads.length = 0;
    const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
    expect(reads).toEqual([]);
    expect(outcome).toMatchObject({ status: 'done', result: 'opened', requestedBy: robot.serviceIri });
    // The announced outcome is what the store holds, audit fields included.
    expect(await robot.readOperation(op)).toEqual(outcome);
  });

  onStore('should fall back to the store when the receiver of a waiting caller answers plain JSON', async () => {
    const { robot, triggers, reads } = await pair({ plainReceiver: true });
    const op = await robot.request({ ...OPEN_REQUEST, wait: true });
    expect(triggers[0]!.accept).toContain(OUTCOME_STREAM_TYPE);
    expect(triggers[0]!.contentType).toMatch(/^application\/json/u);
    reads.length = 0;
    const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
    expect(outcome).toMatchObject({ status: 'done', result: 'opened', requestedBy: robot.serviceIri });
    expect(outcome.finishedAt).toBeInstanceOf(Date);
    expect(reads.length).toBeGreaterThanOrEqual(1);
  });

  onStore('should refuse a wait option that is not a boolean, before anything is written', async () => {
    const { robot, triggers } = await pair();
    await expect(robot.request({ ...OPEN_REQUEST, wait: 'yes' as unknown as boolean })).rejects.toThrow(ValueError);
    expect(triggers).toEqual([]);
  });
});
