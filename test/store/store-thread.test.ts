import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Worker } from 'node:worker_threads';
import { encodeEntry } from '../../src/store/journal-format.js';
import type * as StoreThread from '../../src/store/store-thread.js';
import { ensureBuilt } from '../support/build.js';
import { ROOT } from '../support/sidecar-process.js';
import { captureStoreLogger, describeTripleStore } from '../support/store-suite.js';

// The worker thread runs JavaScript, so these tests open the store of the build (dist/).
const MODULE = join(ROOT, 'dist/store/store-thread.js');
const ERRORS = join(ROOT, 'dist/errors.js');
let loaded: typeof StoreThread | undefined;
// Before every suite's own beforeAll; a build of a stale dist/ takes longer than a test may.
beforeAll(async () => {
  await ensureBuilt();
  loaded = (await import(MODULE)) as typeof StoreThread;
}, 300_000);
const open = (options: Parameters<typeof StoreThread.openEmbeddedStoreThread>[0] = {}): Promise<StoreThread.EmbeddedStoreThread> =>
  loaded!.openEmbeddedStoreThread(options);
const errorClasses = async (): Promise<typeof import('../../src/errors.js')> =>
  (await import(ERRORS)) as typeof import('../../src/errors.js');

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'store-thread-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const insert = (id: number): string => `INSERT DATA { GRAPH <urn:test:g> { <urn:test:s:${id}> <urn:test:p> "v${id}" } }`;
const has = (id: number): string => `ASK { GRAPH <urn:test:g> { <urn:test:s:${id}> <urn:test:p> "v${id}" } }`;
const COUNT = 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:test:g> { ?s ?p ?o } }';

describeTripleStore('embedded on its own thread (memory)', () => open());
const suiteDir = mkdtempSync(join(tmpdir(), 'store-thread-suite-'));
describeTripleStore(
  'embedded on its own thread (data dir)',
  () => open({ dataDir: suiteDir }),
  () => rmSync(suiteDir, { recursive: true, force: true }),
);

describe('the embedded store on its own thread', () => {
  it('should say where its data lives and that it runs on a thread of its own', async () => {
    const dir = tempDir();
    const [memory, durable] = await Promise.all([open(), open({ dataDir: dir })]);
    expect(memory.description).toBe('embedded store (memory) on its own thread');
    expect(durable.description).toBe(`embedded store at ${dir} on its own thread`);
    await Promise.all([memory.close(), durable.close()]);
  });

  it('should be what openStore opens for memory and embedded specs with ownThread, and only for those', async () => {
    const { openStore } = (await import(join(ROOT, 'dist/store/open-store.js'))) as typeof import('../../src/store/open-store.js');
    const dir = tempDir();
    const stores = await Promise.all([
      openStore({ kind: 'memory', ownThread: true }),
      openStore({ kind: 'embedded', dataDir: dir, ownThread: true }),
      openStore({ kind: 'memory' }),
      openStore({ kind: 'memory', ownThread: false }),
    ]);
    expect(stores.map((s) => s.description)).toEqual([
      'embedded store (memory) on its own thread',
      `embedded store at ${dir} on its own thread`,
      'embedded store (memory)',
      'embedded store (memory)',
    ]);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('should keep what it wrote across a reopen, count its requests and call onProgress once with the triples loaded', async () => {
    const dir = tempDir();
    const store = await open({ dataDir: dir });
    for (let id = 1; id <= 3; id++) await store.update(insert(id));
    const progress: number[] = [];
    await store.load('<urn:test:s:9> <urn:test:p> "v9" .\n<urn:test:s:8> <urn:test:p> "v8" .', {
      graph: 'urn:test:g',
      format: 'application/n-triples',
      onProgress: (n) => progress.push(n),
    });
    expect(progress).toEqual([2]);
    expect(store.requestCount).toBe(4);
    await store.close();
    const again = await open({ dataDir: dir });
    expect(Number((await again.select(COUNT))[0]?.['n']?.value)).toBe(5);
    expect(await again.ask(has(9))).toBe(true);
    await again.close();
  });

  it('should apply exactly one of many compare-and-sets made at once on the same value', async () => {
    const store = await open();
    await store.update(insert(1));
    const swap = (to: number): string =>
      `DELETE { GRAPH <urn:test:g> { ?s <urn:test:p> "v1" } } INSERT { GRAPH <urn:test:g> { ?s <urn:test:p> "w${to}" } } WHERE { GRAPH <urn:test:g> { ?s <urn:test:p> "v1" } }`;
    const check = { before: 'ASK { GRAPH <urn:test:g> { ?s <urn:test:p> "v1" } }', after: 'ASK {}' };
    const verdicts = await Promise.all(Array.from({ length: 40 }, (_, i) => store.conditionalUpdate(swap(i), check)));
    expect(verdicts.filter(Boolean)).toHaveLength(1);
    const winner = verdicts.indexOf(true);
    expect(await store.ask(`ASK { GRAPH <urn:test:g> { <urn:test:s:1> <urn:test:p> "w${winner}" } }`)).toBe(true);
    expect(Number((await store.select(COUNT))[0]?.['n']?.value)).toBe(1);
    await store.close();
  });

  it('should give errors their own classes, name the store, and refuse requests once closed', async () => {
    const { StoreError, ValueError } = await errorClasses();
    const store = await open();
    const malformed = await store.update('INSERT DATA { broken').catch((e: unknown) => e);
    expect(malformed).toBeInstanceOf(StoreError);
    expect((malformed as Error).message).toMatch(/^embedded store \(memory\): /u);
    const badGraph = await store
      .load('<urn:a> <urn:b> <urn:c> .', { graph: 'not an iri', format: 'application/n-triples' })
      .catch((e: unknown) => e);
    expect(badGraph).toBeInstanceOf(ValueError);
    expect((badGraph as Error).message).toContain('not an iri');
    expect(await store.ask('ASK {}')).toBe(true); // a refused request leaves the store working
    await store.close();
    await store.close();
    const closed = await store.ask('ASK {}').catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(StoreError);
    expect((closed as Error).message).toBe('embedded store (memory) on its own thread is closed');
  });

  it('should refuse to open a data directory another store holds, with the lock error, and leave no thread behind', async () => {
    const dir = tempDir();
    const holder = await open({ dataDir: dir });
    const { openEmbeddedStore } = (await import(
      join(ROOT, 'dist/store/embedded-store.js')
    )) as typeof import('../../src/store/embedded-store.js');
    // Another thread, and this one (whose own record of held dirs knows nothing of the worker's).
    for (const second of [() => open({ dataDir: dir }), () => openEmbeddedStore({ dataDir: dir })]) {
      const refused = await second().catch((e: unknown) => e);
      expect(refused).toMatchObject({ name: 'StoreError', code: 'SM_STORE' });
      expect((refused as Error).message).toContain(`embedded store data dir ${dir} is in use by this process`);
    }
    await holder.close();
    await (await open({ dataDir: dir })).close(); // released
  });

  it("should hand the store's recovery warnings to the logger it was given", async () => {
    const dir = tempDir();
    const entry = (id: number): Buffer => encodeEntry({ op: 'update', sparql: insert(id) });
    writeFileSync(join(dir, 'journal-0.log'), Buffer.concat([entry(1), entry(2), entry(3).subarray(0, 40)]));
    const logger = captureStoreLogger();
    const store = await open({ dataDir: dir, logger });
    expect(logger.warnings.join('\n')).toMatch(/torn last journal entry/u);
    expect(await store.ask(has(2))).toBe(true);
    expect(await store.ask(has(3))).toBe(false);
    await store.close();
  });

  it('should fail the requests in flight and refuse later ones when its thread stops', async () => {
    const { StoreError } = await errorClasses();
    const store = await open();
    const lines = Array.from({ length: 50_000 }, (_, i) => `<urn:test:s:${i}> <urn:test:p> "v${i}" .`).join('\n');
    const inFlight = store.load(lines, { graph: 'urn:test:g', format: 'application/n-triples' }).catch((e: unknown) => e);
    await (store as unknown as { worker: Worker }).worker.terminate();
    const failed = await inFlight;
    expect(failed).toBeInstanceOf(StoreError);
    expect((failed as Error).message).toMatch(/its thread exited/u);
    const later = await store.ask('ASK {}').catch((e: unknown) => e);
    expect(later).toBe(failed);
    await store.close(); // nothing left to close; does not throw
  });

  it('should not keep a process alive once idle, even unclosed', () => {
    const script = `
      const { openEmbeddedStoreThread } = await import(${JSON.stringify(MODULE)});
      const store = await openEmbeddedStoreThread();
      await store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> "c" } }');
      console.log(await store.ask('ASK { GRAPH <urn:g> { <urn:a> <urn:b> "c" } }'));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('true');
    expect(child.status).toBe(0); // ended on its own: the timeout would have killed it (status null)
  });
});
