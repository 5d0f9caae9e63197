/**
 * Opt-in concurrency of `registerCallback`: up to `concurrency` Operations run at once, each
 * exactly once, started in the order they were enqueued; the default stays one at a time.
 */
import { describe, expect } from '@jest/globals';
import { buildEventTriggerUrl } from '../../src/iri/index.js';
import { readOperation, ValueError } from '../../src/middleware/index.js';
import { gate, middlewareSuite, postJson, until } from './support/harness.js';

const G = 'urn:test:middleware:callback-concurrency';
const OPERATIONS = 6;

describe.each(['embedded', 'remote'] as const)('callback concurrency on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  /** Runs OPERATIONS Operations through a gated callback; returns the most that ran at once and the start order. */
  async function run(concurrency?: number): Promise<{ most: number; started: string[]; ops: string[] }> {
    const door = suite.controller({ heartbeatInterval: null });
    const release = gate();
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const runs = new Map<string, number>();
    door.registerCallback(
      async ({ operationIri }) => {
        started.push(operationIri);
        runs.set(operationIri, (runs.get(operationIri) ?? 0) + 1);
        most = Math.max(most, ++running);
        await release.promise;
        running -= 1;
        return 'opened';
      },
      null,
      concurrency === undefined ? undefined : { concurrency },
    );
    await door.start();
    const ops: string[] = [];
    for (let i = 0; i < OPERATIONS; i++) ops.push(await suite.queuedOp());
    for (const op of ops) expect((await postJson(buildEventTriggerUrl(door.address!), { operation_iri: op })).status).toBe(200);
    await until(() => started.length >= Math.min(concurrency ?? 1, OPERATIONS), 'the first Operations to start');
    release.open();
    const ogm = suite.newOgm();
    await until(
      async () => (await Promise.all(ops.map((op) => readOperation(ogm, op)))).every((s) => s?.status === 'done'),
      'every Operation done',
    );
    expect([...runs.values()]).toEqual(ops.map(() => 1));
    return { most, started, ops };
  }

  onStore('should run one Operation at a time by default', async () => {
    const { most, started, ops } = await run();
    expect(most).toBe(1);
    expect(started).toEqual(ops);
  });

  onStore('should run up to its concurrency at once, each exactly once, started in the order enqueued', async () => {
    const { most, started, ops } = await run(3);
    expect(most).toBe(3);
    expect(started).toEqual(ops);
  });

  onStore('should refuse a concurrency that is not a positive integer in range', () => {
    const door = suite.controller({ heartbeatInterval: null });
    for (const concurrency of [0, 1.5, -1, 10_000, Number.NaN])
      expect(() => door.registerCallback(() => 'x', null, { concurrency })).toThrow(ValueError);
  });
});
