import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreError } from '../../src/errors.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../src/store/embedded-store.js';
import { serveSparql } from '../../src/store/sparql-server.js';

/**
 * A write becomes visible only once it is durable: while the journal's fsync of a write is held
 * back, no reader (in process, or over `store serve`) gets an answer that shows it, and a failed
 * fsync is never shown at all. The fsync is instrumented by wrapping FileHandle's `datasync`,
 * the call the journal acknowledges a batch of writes after.
 */

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'durable-visibility-'));
  dirs.push(dir);
  return dir;
};

type Datasync = FileHandle['datasync'];
let proto: { datasync: Datasync };
let original: Datasync;
/** While set, every journal fsync waits for this promise (and fails when it rejects). */
let gate: Promise<void> | undefined;

beforeAll(async () => {
  const probe = await open(join(tempDir(), 'probe'), 'w');
  proto = Object.getPrototypeOf(probe) as { datasync: Datasync };
  await probe.close();
  original = proto.datasync;
  proto.datasync = async function (this: FileHandle): Promise<void> {
    if (gate !== undefined) await gate;
    return original.call(this);
  };
});
afterEach(() => {
  gate = undefined;
});
afterAll(() => {
  proto.datasync = original;
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A gate the next fsyncs wait at; `open()` lets them through, `fail()` makes them throw. */
function holdSyncs(): { open: () => void; fail: (error: Error) => void } {
  let open!: () => void;
  let fail!: (error: Error) => void;
  gate = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  gate.catch(() => undefined);
  return { open, fail };
}

/** Whether `promise` has settled by the time the event loop has turned `turns` times. */
async function settledWithin<T>(promise: Promise<T>, ms = 100): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}

const INSERT = 'INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "written" } }';
const ASK = 'ASK { GRAPH <urn:g> { <urn:s> <urn:p> "written" } }';

describe('embedded store: visible only once durable', () => {
  let store: EmbeddedStore;
  beforeAll(async () => {
    store = await openEmbeddedStore({ dataDir: tempDir() });
  });
  afterAll(async () => {
    await store.close();
  });

  it('should hold a reader racing a write until the write is on disk', async () => {
    const before = await store.ask(ASK);
    expect(before).toBe(false);
    const sync = holdSyncs();
    const write = store.update(INSERT);
    const read = store.ask(ASK);
    const select = store.select('SELECT ?o WHERE { GRAPH <urn:g> { <urn:s> <urn:p> ?o } }');
    const dump = store.dump({ graph: 'urn:g' });
    expect(await settledWithin(Promise.race([write, read, select, dump]))).toBe(false);
    sync.open();
    await write;
    expect(await read).toBe(true);
    expect((await select).map((row) => row['o']?.value)).toEqual(['written']);
    expect(await dump).toContain('"written"');
  });

  it('should hold a compare-and-set that lost to an undurable write, and answer once it is durable', async () => {
    const sync = holdSyncs();
    const write = store.update('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:status> "running" } }');
    const check = 'ASK { GRAPH <urn:g> { <urn:s> <urn:status> "queued" } }';
    const cas = store.conditionalUpdate('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:claimed> true } }', { before: check, after: check });
    expect(await settledWithin(cas)).toBe(false);
    sync.open();
    await write;
    expect(await cas).toBe(false);
  });

  it('should never show a write whose fsync failed, and refuse every request afterwards', async () => {
    const failing = await openEmbeddedStore({
      dataDir: tempDir(),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    const sync = holdSyncs();
    const write = failing.update(INSERT);
    const read = failing.ask(ASK);
    sync.fail(new Error('EIO: disk gone'));
    await expect(write).rejects.toThrow('journal write failed');
    await expect(read).rejects.toBeInstanceOf(StoreError);
    gate = undefined;
    await expect(failing.ask(ASK)).rejects.toThrow('requests are refused until the store is reopened');
    await failing.close();
  });
});

describe('store serve: visible only once durable', () => {
  it('should not answer a reader with a write before the writer is acknowledged', async () => {
    const store = await openEmbeddedStore({ dataDir: tempDir() });
    const server = await serveSparql(store);
    const sync = holdSyncs();
    const counted = store.requestCount;
    const write = fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: INSERT }).then(
      (res) => res.status,
    );
    // The reader is sent once the server has applied the write in memory (the store counted it).
    while (store.requestCount === counted) await new Promise((resolve) => setTimeout(resolve, 5));
    const read = fetch(`${server.url}?query=${encodeURIComponent(ASK.replace('GRAPH <urn:g> ', ''))}`).then(
      async (res) => (await res.json()) as { boolean: boolean },
    );
    expect(await settledWithin(Promise.race([write, read]))).toBe(false);
    sync.open();
    expect(await write).toBe(204);
    expect(await read).toEqual({ head: {}, boolean: true });
    await server.close();
    await store.close();
  });
});
