import { afterAll, afterEach, describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { OUTCOME_STREAM_TYPE } from '../../src/middleware/operations/outcome-channel.js';
import { startLocalApi, type LocalApi } from '../../src/sidecar/local-api.js';
import type { StoreRequestKind } from '../../src/store/measured-store.js';
import { unixRequest } from '../e2e/support/unix-http.js';
import type { SemanticMiddleware } from '../../src/middleware/index.js';
import { middlewareSuite, OPEN_REQUEST, recordedPair, silent, until, type RecordedTrigger } from '../middleware/support/harness.js';

/**
 * The `wait` and `waitMs` fields of the local API's `POST /operations`, in process on a Unix
 * socket: with `wait` the receiver is asked to announce the outcome and the status long-poll is
 * answered without a store read; without it the trigger is plain JSON and the long-poll reads the
 * store; with `waitMs` the request itself answers with the outcome, or with the status it has
 * when `waitMs` ran out; a malformed one, or one beside `wait: false`, is a 400 that writes nothing.
 */

const G = 'urn:test:sidecar:local-api-wait';

describe.each(['embedded', 'remote'] as const)('the wait field of the local API on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const dir = mkdtempSync(join(tmpdir(), 'sm-local-wait-'));
  let api: LocalApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A door1 receiver and a robot1 caller behind a local API; the caller's trigger answers and store reads are recorded. */
  async function started(
    work?: () => unknown,
  ): Promise<{ socket: string; triggers: RecordedTrigger[]; reads: StoreRequestKind[]; robot: SemanticMiddleware }> {
    const { robot, triggers, reads } = await recordedPair(suite, work === undefined ? {} : { work });
    const socket = join(dir, `api-${randomUUID().slice(0, 8)}.sock`);
    api = await startLocalApi({ middleware: robot, listen: { socket }, logger: silent });
    return { socket, triggers, reads, robot };
  }

  async function longPoll(socket: string, operation: string): Promise<Record<string, unknown>> {
    const path = `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=10000`;
    return (await unixRequest(socket, 'GET', path, { timeoutMs: 15_000 })).json as Record<string, unknown>;
  }

  suite.onStore('should answer the long-poll of a waiting request from the announced outcome, with no store read', async () => {
    const { socket, triggers, reads } = await started();
    const created = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, wait: true } });
    expect(created.status).toBe(201);
    expect(triggers).toHaveLength(1);
    expect(triggers[0]!.contentType).toMatch(new RegExp(`^${OUTCOME_STREAM_TYPE}`, 'u'));
    reads.length = 0;
    const { operation } = created.json as { operation: string };
    expect(await longPoll(socket, operation)).toMatchObject({ status: 'done', result: 'opened' });
    expect(reads).toEqual([]);
  });

  suite.onStore('should send a plain trigger without wait, and answer the long-poll from the store', async () => {
    const { socket, triggers, reads } = await started();
    const created = await unixRequest(socket, 'POST', '/operations', { body: OPEN_REQUEST });
    expect(created.status).toBe(201);
    expect(triggers).toHaveLength(1);
    expect(triggers[0]!.contentType).toMatch(/^application\/json/u);
    reads.length = 0;
    const { operation } = created.json as { operation: string };
    expect(await longPoll(socket, operation)).toMatchObject({ status: 'done', result: 'opened' });
    expect(reads.length).toBeGreaterThanOrEqual(1);
  });

  suite.onStore('should refuse a wait that is not a boolean with a 400 that writes nothing', async () => {
    const { socket, triggers } = await started();
    const before = await suite.dump();
    for (const wait of ['true', 1, { at: 1 }, [true]]) {
      const answer = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, wait } });
      expect(answer.status).toBe(400);
      expect((answer.json as { detail: string }).detail).toContain('wait');
    }
    expect(triggers).toEqual([]);
    expect(await suite.dump()).toBe(before);
  });

  suite.onStore('should answer a request with waitMs once its Operation ended, with the outcome and no status read', async () => {
    const { socket, triggers, reads } = await started();
    // A first request fills the caller's discovery cache, so the second reads nothing but what waiting would.
    expect((await unixRequest(socket, 'POST', '/operations', { body: OPEN_REQUEST })).status).toBe(201);
    triggers.length = 0;
    reads.length = 0;
    const answer = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, waitMs: 10_000 }, timeoutMs: 15_000 });
    expect(answer.status).toBe(201);
    const outcome = answer.json as Record<string, unknown>;
    expect(outcome).toMatchObject({ status: 'done', result: 'opened', operationIri: outcome.operation });
    expect(typeof outcome.finishedAt).toBe('string');
    expect(triggers).toHaveLength(1);
    expect(triggers[0]!.contentType).toMatch(new RegExp(`^${OUTCOME_STREAM_TYPE}`, 'u'));
    expect(reads).toEqual([]);
    expect(await longPoll(socket, outcome.operation as string)).toMatchObject({ status: 'done', result: 'opened' });
  });

  suite.onStore('should answer a request with the status it has when waitMs runs out, and finish its work all the same', async () => {
    const { socket } = await started(() => new Promise((resolve) => setTimeout(() => resolve('opened'), 800)));
    const t0 = performance.now();
    const answer = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, waitMs: 100 } });
    expect(performance.now() - t0).toBeLessThan(700);
    expect(answer.status).toBe(201);
    const { operation, status } = answer.json as { operation: string; status: string };
    expect(['queued', 'running']).toContain(status);
    expect(await longPoll(socket, operation)).toMatchObject({ status: 'done', result: 'opened' });
  });

  suite.onStore('should end a long-poll whose client went away, and abort no wait that was answered', async () => {
    let release!: () => void;
    const released = new Promise<string>((resolve) => (release = () => resolve('opened')));
    const { socket, robot } = await started(() => released);
    // The signal each wait of the local API runs under.
    const signals: (AbortSignal | undefined)[] = [];
    const waitFor = robot.waitForOperation.bind(robot);
    robot.waitForOperation = (iri, options) => (signals.push(options?.signal), waitFor(iri, options));
    const created = await unixRequest(socket, 'POST', '/operations', { body: OPEN_REQUEST });
    const { operation } = created.json as { operation: string };
    const path = `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=10000`;
    const poll = request({ socketPath: socket, method: 'GET', path, agent: false });
    poll.on('error', () => undefined);
    poll.end();
    await until(() => signals.length === 1, 'the long-poll waiting');
    expect(signals[0]!.aborted).toBe(false);
    poll.destroy();
    await until(() => signals[0]!.aborted, 'the long-poll ended with its client', 2_000);
    release();
    const answered = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, waitMs: 10_000 } });
    expect(answered.json).toMatchObject({ status: 'done', result: 'opened' });
    // The answered response closes too: its wait is over, so that close aborts nothing.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signals.map((signal) => signal?.aborted)).toEqual([true, false]);
  });

  suite.onStore('should refuse a malformed waitMs, or one beside wait: false, with a 400 that writes nothing', async () => {
    const { socket, triggers } = await started();
    const before = await suite.dump();
    const cases: [Record<string, unknown>, string][] = [
      ...['100', -1, 1.5, true, { ms: 1 }, [100], 2 ** 60].map((waitMs): [Record<string, unknown>, string] => [
        { waitMs },
        'waitMs must be a whole number',
      ]),
      [{ waitMs: 100, wait: false }, 'cannot go with wait: false'],
    ];
    for (const [fields, detail] of cases) {
      const answer = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, ...fields } });
      expect([answer.status, (answer.json as { detail: string }).detail]).toEqual([400, expect.stringContaining(detail)]);
    }
    expect(triggers).toEqual([]);
    expect(await suite.dump()).toBe(before);
  });
});
