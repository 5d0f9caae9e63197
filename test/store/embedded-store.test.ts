import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store } from 'oxigraph';
import { pino } from 'pino';
import { StoreError } from '../../src/errors.js';
import { LIMITS } from '../../src/limits.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { encodeEntry } from '../../src/store/journal-format.js';
import { captureStoreLogger, describeTripleStore } from '../support/store-suite.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-store-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const insert = (id: string | number): string => `INSERT DATA { GRAPH <urn:test:g> { <urn:test:s:${id}> <urn:test:p> "v${id}" } }`;
/** A compare-and-set: the value `v<from>` becomes `v<to>` wherever it is. */
const swap = (from: string | number, to: string | number): string =>
  `DELETE { GRAPH <urn:test:g> { ?s <urn:test:p> "v${from}" } } INSERT { GRAPH <urn:test:g> { ?s <urn:test:p> "v${to}" } } WHERE { GRAPH <urn:test:g> { ?s <urn:test:p> "v${from}" } }`;
const has = (id: string | number): string => `ASK { GRAPH <urn:test:g> { <urn:test:s:${id}> <urn:test:p> "v${id}" } }`;

async function countIn(dataDir: string, logger = captureStoreLogger()): Promise<number> {
  const store = await openEmbeddedStore({ dataDir, logger });
  try {
    const rows = await store.select('SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:test:g> { ?s ?p ?o } }');
    return Number(rows[0]?.['n']?.value);
  } finally {
    await store.close();
  }
}

describeTripleStore('embedded (memory)', () => openEmbeddedStore());
const suiteDir = mkdtempSync(join(tmpdir(), 'embedded-suite-'));
describeTripleStore(
  'embedded (data dir)',
  () => openEmbeddedStore({ dataDir: suiteDir }),
  () => rmSync(suiteDir, { recursive: true, force: true }),
);

describe('embedded store', () => {
  it('should describe its mode', async () => {
    const memory = await openEmbeddedStore();
    expect(memory.description).toBe('embedded store (memory)');
    const dir = tempDir();
    const durable = await openEmbeddedStore({ dataDir: dir });
    expect(durable.description).toBe(`embedded store at ${dir}`);
    await Promise.all([memory.close(), durable.close()]);
  });

  it('should accept a pino logger', async () => {
    const store = await openEmbeddedStore({ dataDir: tempDir(), logger: pino({ level: 'silent' }) });
    await store.close();
  });

  it('should wrap Oxigraph errors in a StoreError naming the store', async () => {
    const store = await openEmbeddedStore();
    const error = await store.select('SELECT ?x WHERE { ?x ?y }').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/^embedded store \(memory\): .*error/su);
    await store.close();
    await expect(store.ask('ASK {}')).rejects.toThrow('embedded store (memory) is closed');
  });

  it('should keep writes across close and reopen', async () => {
    const dir = tempDir();
    const store = await openEmbeddedStore({ dataDir: dir });
    for (let i = 0; i < 10; i += 1) await store.update(insert(i));
    await store.update(`DELETE DATA { GRAPH <urn:test:g> { <urn:test:s:3> <urn:test:p> "v3" } }`);
    await store.load('<urn:test:s:l> <urn:test:p> "vl" .', { graph: 'urn:test:g', format: 'application/n-triples' });
    expect(await store.conditionalUpdate(insert('c'), { before: has(0), after: has('c') })).toBe(true);
    await store.close();
    const again = await openEmbeddedStore({ dataDir: dir });
    for (const id of [0, 1, 2, 4, 9, 'l', 'c']) expect(await again.ask(has(id))).toBe(true);
    expect(await again.ask(has(3))).toBe(false);
    await again.close();
  });

  it('should judge compare-and-sets rightly across many of them, each leaving no trace', async () => {
    const store = await openEmbeddedStore({});
    await store.update(insert('0'));
    const check = { before: 'ASK {}', after: 'ASK {}' };
    const verdicts: boolean[] = [];
    // Many updates against one witness quad, one applied in three: each verdict is its own.
    for (let i = 0; i < 500; i++) {
      verdicts.push(await store.conditionalUpdate(swap(i, i + 1), check));
      verdicts.push(await store.conditionalUpdate(swap(i, i + 2), check));
      verdicts.push(await store.conditionalUpdate(swap(i, i + 3), check));
    }
    expect(verdicts.flatMap((v, i) => (v === (i % 3 === 0) ? [] : [i]))).toEqual([]);
    const everything = await store.dump();
    expect(everything).not.toContain('urn:uuid:');
    expect(everything.trim().split('\n')).toEqual(['<urn:test:s:0> <urn:test:p> "v500" <urn:test:g> .']);
    await store.close();
  });

  it('should replace its witness after LIMITS.witnessUses applied compare-and-sets, keeping one witness graph at most', async () => {
    const store = await openEmbeddedStore({});
    await store.update(insert('0'));
    const check = { before: 'ASK {}', after: 'ASK {}' };
    // Oxigraph lists a named graph once written, emptied or not.
    const witnessGraphs = async (): Promise<string[]> =>
      (await store.select('SELECT ?g WHERE { GRAPH ?g {} }')).map((row) => row.g!.value).filter((g) => g.startsWith('urn:uuid:'));
    expect(await store.conditionalUpdate(swap(0, 1), check)).toBe(true);
    const first = await witnessGraphs();
    expect(first).toHaveLength(1);
    for (let i = 1; i < LIMITS.witnessUses * 2 + 10; i++) {
      expect(await store.conditionalUpdate(swap(i, i + 1), check)).toBe(true);
      expect(await store.conditionalUpdate(swap(i, i + 2), check)).toBe(false);
    }
    const later = await witnessGraphs();
    expect(later.length).toBeLessThanOrEqual(1);
    expect(later).not.toEqual(first);
    expect((await store.dump()).trim().split('\n')).toEqual([
      `<urn:test:s:0> <urn:test:p> "v${LIMITS.witnessUses * 2 + 10}" <urn:test:g> .`,
    ]);
    await store.close();
  });

  it('should judge a DELETE/INSERT ... WHERE compare-and-set by its own WHERE, once, and leave no trace of how', async () => {
    const dir = tempDir();
    const store = await openEmbeddedStore({ dataDir: dir });
    await store.update(insert(1));
    // `before` says the opposite of the WHERE each time: the verdict comes from the update alone.
    const always = { before: 'ASK {}', after: 'ASK {}' };
    const never = { before: 'ASK { FILTER(false) }', after: 'ASK { FILTER(false) }' };
    expect(await store.conditionalUpdate(swap(1, 2), never)).toBe(true);
    expect(await store.conditionalUpdate(swap(1, 3), always)).toBe(false);
    // No INSERT template: the witness gets an INSERT clause of its own.
    const remove = `DELETE { GRAPH <urn:test:g> { ?s <urn:test:p> "v2" } } WHERE { GRAPH <urn:test:g> { ?s <urn:test:p> "v2" } }`;
    expect(await store.conditionalUpdate(remove, never)).toBe(true);
    expect(await store.conditionalUpdate(remove, always)).toBe(false);
    const everything = await store.dump();
    expect(everything).not.toContain('urn:uuid:');
    expect(await store.ask('ASK { GRAPH <urn:test:g> { ?s ?p ?o } }')).toBe(false);
    await store.update(insert(4));
    expect(await store.conditionalUpdate(swap(4, 5), never)).toBe(true);
    const before = await store.dump();
    await store.close();
    // The journal holds the updates as given: replay makes the same store.
    const again = await openEmbeddedStore({ dataDir: dir });
    expect(await again.dump()).toBe(before);
    expect(before).toContain('"v5"');
    await again.close();
  });

  it('should refuse a compare-and-set Oxigraph cannot run with its own message, writing nothing', async () => {
    const store = await openEmbeddedStore();
    await store.update(insert(1));
    const before = await store.dump();
    const count = store.requestCount;
    // The lexer reads it; Oxigraph refuses it (?s bound twice).
    const refused = 'INSERT { GRAPH <urn:test:g> { ?s <urn:test:p> "x" } } WHERE { BIND(<urn:test:a> AS ?s) BIND(<urn:test:b> AS ?s) }';
    const error = await store.conditionalUpdate(refused, { before: 'ASK {}', after: 'ASK {}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    // The message points into the request's own text, not into the text with the witness added.
    const own = (() => {
      try {
        new Store().update(refused);
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(own).toMatch(/^error at 1:\d+/u);
    expect((error as Error).message).toBe(`embedded store (memory): ${own}`);
    expect(await store.dump()).toBe(before);
    expect(store.requestCount).toBe(count + 1);
    await store.close();
  });

  it('should not journal a failed update', async () => {
    const dir = tempDir();
    const store = await openEmbeddedStore({ dataDir: dir });
    await store.update(insert(1));
    const journal = readdirSync(dir).find((name) => name.startsWith('journal-'))!;
    const size = statSync(join(dir, journal)).size;
    await expect(store.update('INSERT DATA { GRAPH <urn:test:g> { broken')).rejects.toBeInstanceOf(StoreError);
    expect(await store.conditionalUpdate(insert(2), { before: has('none'), after: has(2) })).toBe(false);
    expect(statSync(join(dir, journal)).size).toBe(size);
    await store.close();
  });

  it('should keep everything through compactions', async () => {
    const dir = tempDir();
    const store = await openEmbeddedStore({ dataDir: dir, compactAfterBytes: 1024 });
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.update(insert(i))));
    for (let i = 200; i < 300; i += 1) await store.update(insert(i));
    expect(readdirSync(dir).some((name) => /^snapshot-\d+\.nq$/u.test(name))).toBe(true);
    await store.close();
    const files = readdirSync(dir).sort();
    expect(files.filter((name) => name.startsWith('journal-'))).toHaveLength(1);
    expect(files.filter((name) => name.startsWith('snapshot-'))).toHaveLength(1);
    expect(await countIn(dir)).toBe(300);
  });

  it('should make a load too large for one journal entry durable by a snapshot', async () => {
    const dir = tempDir();
    const store = await openEmbeddedStore({ dataDir: dir });
    const big = 'y'.repeat(LIMITS.maxLiteralLength - 10);
    const lines = Array.from(
      { length: Math.ceil(LIMITS.maxJournalEntryBytes / big.length) + 1 },
      (_, i) => `<urn:test:s:${i}> <urn:test:p> "${big}" .`,
    );
    const progress: number[] = [];
    await store.load(lines.join('\n'), { graph: 'urn:test:g', format: 'application/n-triples', onProgress: (n) => progress.push(n) });
    expect(progress).toEqual([lines.length]);
    await store.close();
    expect(await countIn(dir)).toBe(lines.length);
  });

  it('should ignore a torn last journal entry with a warning', async () => {
    const dir = tempDir();
    const entry = (id: number): Buffer => encodeEntry({ op: 'update', sparql: insert(id) });
    writeFileSync(join(dir, 'journal-0.log'), Buffer.concat([entry(1), entry(2), entry(3).subarray(0, 40)]));
    const logger = captureStoreLogger();
    const store = await openEmbeddedStore({ dataDir: dir, logger });
    expect(logger.warnings.join('\n')).toMatch(/torn last journal entry/u);
    expect(await store.ask(has(2))).toBe(true);
    expect(await store.ask(has(3))).toBe(false);
    await store.update(insert(4)); // appended after the valid prefix, not after the garbage
    await store.close();
    expect(await countIn(dir)).toBe(3);
  });

  it('should stop replay at a damaged entry and keep the rest aside', async () => {
    const dir = tempDir();
    const entry = (id: number): Buffer => encodeEntry({ op: 'update', sparql: insert(id) });
    const corrupt = Buffer.from(entry(2).toString('latin1').replace('v2', 'v9'), 'latin1'); // checksum no longer matches
    writeFileSync(join(dir, 'journal-0.log'), Buffer.concat([entry(1), corrupt, entry(3)]));
    appendFileSync(join(dir, 'journal-1.log'), entry(4));
    const logger = captureStoreLogger();
    const store = await openEmbeddedStore({ dataDir: dir, logger });
    expect(logger.warnings.join('\n')).toMatch(/journal is damaged/u);
    expect(await store.ask(has(1))).toBe(true);
    for (const id of [2, 3, 4, 9]) expect(await store.ask(`ASK { GRAPH ?g { <urn:test:s:${id}> ?p ?o } }`)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes('.damaged-'))).toHaveLength(2);
    await store.close();
    expect(await countIn(dir)).toBe(1);
  });

  it('should refuse a second open of one data dir and name the holder', async () => {
    const dir = tempDir();
    const store = await openEmbeddedStore({ dataDir: dir });
    const error = await openEmbeddedStore({ dataDir: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toContain('in use by this process');
    expect((error as Error).message).toContain(join(dir, 'LOCK'));
    const alias = join(tempDir(), 'alias');
    symlinkSync(dir, alias);
    await expect(openEmbeddedStore({ dataDir: alias })).rejects.toThrow('in use by this process');
    await store.close();
    await (await openEmbeddedStore({ dataDir: dir })).close();
  });

  it('should take over a lock left with its own pid by an earlier process, and refuse one of its own that another thread holds', async () => {
    const dir = tempDir();
    const { hostname } = await import('node:os');
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
    // A container restarted: the same pid, started at another time.
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: process.pid, hostname: hostname(), started: String(Number(started) - 1) }));
    const logger = captureStoreLogger();
    const store = await openEmbeddedStore({ dataDir: dir, logger });
    expect(logger.warnings).toContain('took over the lock of a process that is no longer running');
    expect(JSON.parse(readFileSync(join(dir, 'LOCK'), 'utf8'))).toMatchObject({ pid: process.pid, started });
    await store.close();
    // This very process, as a worker thread's store writes it (the thread's own record of held dirs is not this one's).
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: process.pid, hostname: hostname(), started }));
    await expect(openEmbeddedStore({ dataDir: dir })).rejects.toThrow('in use by this process');
  });

  it('should refuse a lock held by another live process and take over a dead one', async () => {
    const dir = tempDir();
    const { hostname } = await import('node:os');
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: process.ppid, hostname: hostname() }));
    await expect(openEmbeddedStore({ dataDir: dir })).rejects.toThrow(`in use by process ${process.ppid}`);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: dead, hostname: hostname() }));
    const logger = captureStoreLogger();
    const store = await openEmbeddedStore({ dataDir: dir, logger });
    expect(logger.warnings).toContain('took over the lock of a process that is no longer running');
    expect(JSON.parse(readFileSync(join(dir, 'LOCK'), 'utf8'))).toMatchObject({ pid: process.pid });
    await store.close();
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
  });
});

describe('embedded store crash (kill -9)', () => {
  let build: string;

  // A child process runs plain JS, so the store's module closure is compiled for it (emit only).
  beforeAll(() => {
    mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
    build = mkdtempSync(join(ROOT, 'node_modules/.cache/embedded-store-'));
    const tsc = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '--noCheck',
        '--skipLibCheck',
        '--outDir',
        build,
        '--rootDir',
        join(ROOT, 'src'),
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        join(ROOT, 'src/store/embedded-store.ts'),
      ],
      { encoding: 'utf8' },
    );
    if (tsc.status !== 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
    writeFileSync(join(build, 'package.json'), '{"type":"module"}');
  }, 60_000);

  afterAll(() => rmSync(build, { recursive: true, force: true }));

  function crashRun(dataDir: string, round: number, killAfterAcks: number): Promise<string[]> {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'test/support/embedded-crash-writer.mjs'), join(build, 'store/embedded-store.js'), dataDir, String(round), '4'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const acks: string[] = [];
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.startsWith('ack ')) acks.push(line.slice(4));
      if (acks.length >= killAfterAcks) child.kill('SIGKILL');
    });
    return new Promise((resolvePromise, reject) => {
      child.on('error', reject);
      child.on('close', (_code, signal) => {
        if (signal !== 'SIGKILL') reject(new Error(`crash writer exited on its own: ${stderr}`));
        else resolvePromise(acks);
      });
    });
  }

  it('should keep every acknowledged write and open after each kill', async () => {
    const dir = tempDir();
    const acked: string[] = [];
    for (let round = 0; round < 4; round += 1) {
      acked.push(...(await crashRun(dir, round, 150 + Math.floor(Math.random() * 250))));
      const logger = captureStoreLogger();
      const store = await openEmbeddedStore({ dataDir: dir, logger });
      const rows = await store.select('SELECT ?id WHERE { GRAPH <urn:test:crash> { ?w <urn:test:p:id> ?id } }');
      const present = new Set(rows.map((row) => row['id']!.value));
      expect(acked.filter((id) => !present.has(id))).toEqual([]);
      await store.close();
    }
    expect(acked.length).toBeGreaterThanOrEqual(600);
  }, 120_000);
});
