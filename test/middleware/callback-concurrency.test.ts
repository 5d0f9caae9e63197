/**
 * Opt-in concurrency of `registerCallback`: up to `concurrency` Operations run at once, each
 * exactly once, started in the order they were enqueued; the default stays one at a time. A
 * runner whose callback succeeded takes the next Operation while the `done` is written; a failure
 * is written first.
 */
import { describe, expect } from '@jest/globals';
import { buildEventTriggerUrl } from '../../src/iri/index.js';
import { readOperation, ValueError } from '../../src/middleware/index.js';
import type { ConditionalUpdateCheck } from '../../src/store/triple-store.js';
import { FlakyStore, gate, middlewareSuite, postJson, until } from './support/harness.js';

/** A store that holds the updates `holding` picks until `release()`, and counts those it held. */
class HeldStore extends FlakyStore {
  holding: ((update: string) => boolean) | undefined;
  held = 0;
  private opened = gate();
  release(): void {
    this.holding = undefined;
    this.opened.open();
  }
  private async hold(update: string): Promise<void> {
    if (!this.holding?.(update)) return;
    this.held += 1;
    await this.opened.promise;
  }
  override async update(update: string): Promise<void> {
    await this.hold(update);
    return super.update(update);
  }
  override async conditionalUpdate(update: string, condition: ConditionalUpdateCheck): Promise<boolean> {
    await this.hold(update);
    return super.conditionalUpdate(update, condition);
  }
}

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

  onStore("should claim the next Operation while the last one's done is written, and stop() waits for that write", async () => {
    const store = new HeldStore(suite.store!);
    store.holding = (update) => update.includes('"done"');
    const door = suite.controller({ heartbeatInterval: null, ogm: suite.newOgm(store) });
    const started: string[] = [];
    door.registerCallback(({ operationIri }) => (started.push(operationIri), 'opened'));
    await door.start();
    const [first, second] = [await suite.queuedOp(), await suite.queuedOp()];
    for (const op of [first, second]) expect((await postJson(buildEventTriggerUrl(door.address!), { operation_iri: op })).status).toBe(200);
    await until(() => started.length === 2 && store.held === 2, 'both callbacks run, both done writes held');
    const ogm = suite.newOgm();
    // The second ran while the first's outcome was still being written.
    expect((await readOperation(ogm, first))?.status).toBe('running');
    let stopped = false;
    const stopping = door.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stopped).toBe(false);
    store.release();
    await stopping;
    expect((await Promise.all([first, second].map((op) => readOperation(ogm, op)))).map((s) => s?.status)).toEqual(['done', 'done']);
  });

  onStore('should write a failure before it claims the next Operation', async () => {
    const store = new HeldStore(suite.store!);
    store.holding = (update) => update.includes('"failed"');
    const door = suite.controller({ heartbeatInterval: null, ogm: suite.newOgm(store) });
    const started: string[] = [];
    door.registerCallback(({ operationIri }) => {
      started.push(operationIri);
      if (started.length === 1) throw new Error('jammed');
      return 'opened';
    });
    await door.start();
    const [first, second] = [await suite.queuedOp(), await suite.queuedOp()];
    for (const op of [first, second]) expect((await postJson(buildEventTriggerUrl(door.address!), { operation_iri: op })).status).toBe(200);
    await until(() => store.held === 1, "the first's failure write held");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).toEqual([first]);
    store.release();
    const ogm = suite.newOgm();
    await until(async () => (await readOperation(ogm, second))?.status === 'done', 'the second done');
    expect(started).toEqual([first, second]);
    expect((await readOperation(ogm, first))?.status).toBe('failed');
  });

  onStore('should refuse a concurrency that is not a positive integer in range', () => {
    const door = suite.controller({ heartbeatInterval: null });
    for (const concurrency of [0, 1.5, -1, 10_000, Number.NaN])
      expect(() => door.registerCallback(() => 'x', null, { concurrency })).toThrow(ValueError);
  });
});
