import { link, mkdir, open, readdir, readFile, realpath, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { StoreError } from '../errors.js';

/**
 * Durability for the embedded store: an exclusive lock on the data directory, N-Quads snapshots
 * and an append-only journal of committed writes.
 *
 * Files: `snapshot-<g>.nq` is the whole store as it was when `journal-<g>.log` was started, so
 * the state is the newest snapshot plus every journal of that generation or later, replayed in
 * order. Compaction starts journal g+1 first and writes snapshot g+1 afterwards (temp file,
 * fsync, rename, fsync of the directory), so a crash at any step leaves a snapshot and journals
 * that replay to the same state. No generation is ever rewritten in place.
 */

/** The logging calls the store makes; a pino logger fits. */
export interface StoreLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** One committed write. Loads are journalled as N-Quads so replay never depends on a parser's base IRI. */
export type JournalEntry = { op: 'update'; sparql: string } | { op: 'load'; graph: string; nquads: string };

/** What the journal needs from the store it makes durable. */
export interface JournalTarget {
  loadSnapshot(nquads: string): void;
  replay(entry: JournalEntry): void;
  /** The whole store as N-Quads; called synchronously at the compaction cut. */
  dump(): string;
}

export interface JournalOptions {
  dir: string;
  target: JournalTarget;
  logger: StoreLogger;
  /** Journal size that triggers compaction. */
  compactAfterBytes: number;
}

// Frame: `<byte length> <crc32 hex> <json>\n`. JSON.stringify never emits a raw newline and UTF-8
// continuation bytes never equal 0x0a, so one line is one entry and a torn write is a bad last line.
export function encodeEntry(entry: JournalEntry): Buffer {
  const body = Buffer.from(JSON.stringify(entry), 'utf8');
  const head = Buffer.from(`${body.length} ${crc32(body).toString(16).padStart(8, '0')} `, 'latin1');
  return Buffer.concat([head, body, Buffer.from('\n', 'latin1')]);
}

/** Decodes the longest valid prefix of a journal; `validBytes` is where the first bad entry starts. */
export function decodeJournal(buf: Buffer): { entries: JournalEntry[]; validBytes: number } {
  const entries: JournalEntry[] = [];
  let offset = 0;
  for (let end = buf.indexOf(0x0a, offset); end >= 0; end = buf.indexOf(0x0a, offset)) {
    const entry = decodeLine(buf.subarray(offset, end));
    if (!entry) break;
    entries.push(entry);
    offset = end + 1;
  }
  return { entries, validBytes: offset };
}

function decodeLine(line: Buffer): JournalEntry | undefined {
  const head = /^(\d{1,10}) ([0-9a-f]{8}) /u.exec(line.subarray(0, 24).toString('latin1'));
  if (!head) return undefined;
  const body = line.subarray(head[0].length);
  if (body.length !== Number(head[1]) || crc32(body) !== parseInt(head[2]!, 16)) return undefined;
  try {
    const value = JSON.parse(body.toString('utf8')) as Partial<Record<string, unknown>>;
    if (value.op === 'update' && typeof value.sparql === 'string') return value as JournalEntry;
    if (value.op === 'load' && typeof value.graph === 'string' && typeof value.nquads === 'string') return value as JournalEntry;
  } catch {
    // a checksum collision on garbage; treated as a bad entry below
  }
  return undefined;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}
interface PendingEntry extends Waiter {
  bytes: Buffer;
}

const journalName = (gen: number): string => `journal-${gen}.log`;
const snapshotName = (gen: number): string => `snapshot-${gen}.nq`;

/**
 * The open journal of one data directory. `record` is called right after a write was applied in
 * memory, in apply order; entries waiting while an fsync runs are written together (group
 * commit), so concurrent writers share one fsync.
 */
export class Journal {
  private pending: PendingEntry[] = [];
  private cutWaiters: Waiter[] = [];
  private draining: Promise<void> = Promise.resolve();
  private busy = false;
  private snapshots: Promise<void> = Promise.resolve();
  private snapshotsInFlight = 0;
  private failure: StoreError | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly options: JournalOptions,
    private readonly lock: DataDirLock,
    private gen: number,
    private handle: FileHandle,
    private bytes: number,
  ) {}

  /** Locks the directory, loads the newest snapshot and replays the journals into `target`. */
  static async open(options: JournalOptions): Promise<Journal> {
    await mkdir(options.dir, { recursive: true });
    // The real path, so that one directory reached by two paths is still one lock.
    const dir = await realpath(resolve(options.dir));
    const lock = await DataDirLock.acquire(dir, options.logger);
    try {
      const { gen, bytes, journals } = await recover({ ...options, dir });
      const handle = await open(join(dir, journalName(gen)), 'a');
      await syncDir(dir);
      const journal = new Journal({ ...options, dir }, lock, gen, handle, bytes);
      // Leave one journal per snapshot behind, so the next start replays little.
      if (journals > 1 || bytes >= options.compactAfterBytes) await journal.snapshot();
      return journal;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Throws if an earlier journal write failed: then memory is ahead of disk and writes must stop. */
  assertWritable(): void {
    if (this.failure) throw this.failure;
  }

  /** Appends an entry; resolves once it is on disk. */
  record(entry: JournalEntry): Promise<void> {
    const bytes = encodeEntry(entry);
    return new Promise((resolve, reject) => {
      this.pending.push({ bytes, resolve, reject });
      this.kick();
    });
  }

  /** Resolves once a snapshot holding every write applied so far is on disk. */
  snapshot(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.cutWaiters.push({ resolve, reject });
      this.kick();
    });
  }

  /** Flushes, writes a final snapshot (unless the journal failed) and releases the lock. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.failure) await this.snapshot().catch((err: unknown) => this.logCompactionFailure(err));
      await this.draining;
      await this.snapshots;
      await this.handle.close();
      await this.lock.release();
    })();
    return this.closing;
  }

  private kick(): void {
    if (this.busy) return;
    this.draining = this.drain();
  }

  // One writer at a time keeps entries in apply order. `busy` is set and cleared synchronously
  // with the checks for more work, so an entry pushed at any moment is either seen by the loop
  // or starts a new one.
  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.pending.length > 0 || this.cutWaiters.length > 0) {
        if (this.cutWaiters.length > 0) await this.cut();
        else await this.writeBatch(this.pending.splice(0));
        if (this.bytes >= this.options.compactAfterBytes && this.snapshotsInFlight === 0 && !this.failure) {
          this.cutWaiters.push({ resolve: () => undefined, reject: (err) => this.logCompactionFailure(err) });
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async writeBatch(batch: PendingEntry[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      if (this.failure) throw this.failure;
      const buf = Buffer.concat(batch.map((p) => p.bytes));
      await this.handle.appendFile(buf);
      await this.handle.datasync();
      this.bytes += buf.length;
      for (const p of batch) p.resolve();
    } catch (cause) {
      this.failure ??= new StoreError(
        `embedded store at ${this.options.dir}: journal write failed (${String(cause)}); ` +
          'writes are refused until the store is reopened',
        this.options.dir,
        undefined,
        { cause },
      );
      this.options.logger.error({ err: cause, dir: this.options.dir }, 'journal write failed');
      for (const p of batch) p.reject(this.failure);
    }
  }

  // The cut: the dump and the split of pending entries happen in one synchronous step, so the
  // entries before it go to the old journal and the snapshot holds exactly those writes.
  private async cut(): Promise<void> {
    const waiters = this.cutWaiters.splice(0);
    const nquads = this.options.target.dump();
    const gen = this.gen + 1;
    try {
      await this.writeBatch(this.pending.splice(0));
      this.assertWritable();
      const handle = await open(join(this.options.dir, journalName(gen)), 'a');
      await syncDir(this.options.dir);
      const old = this.handle;
      [this.handle, this.gen, this.bytes] = [handle, gen, 0];
      await old.close();
    } catch (error) {
      for (const w of waiters) w.reject(error);
      return;
    }
    // Writes continue into the new journal while the snapshot is written.
    this.snapshotsInFlight += 1;
    const written = this.snapshots.then(() => this.writeSnapshot(gen, nquads));
    this.snapshots = written.catch(() => undefined).finally(() => (this.snapshotsInFlight -= 1));
    for (const w of waiters) written.then(w.resolve, w.reject);
  }

  // The journals are still complete after a failed compaction, so nothing is lost and the next
  // compaction tries again.
  private logCompactionFailure(err: unknown): void {
    this.options.logger.error({ err, dir: this.options.dir }, 'compaction failed');
  }

  private async writeSnapshot(gen: number, nquads: string): Promise<void> {
    const { dir, logger } = this.options;
    try {
      const tmp = join(dir, `${snapshotName(gen)}.tmp`);
      const handle = await open(tmp, 'w');
      try {
        await handle.writeFile(nquads, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, join(dir, snapshotName(gen)));
      await syncDir(dir);
      await removeGenerationsBefore(dir, gen);
      logger.info({ dir, gen, bytes: Buffer.byteLength(nquads) }, 'embedded store compacted');
    } catch (cause) {
      throw new StoreError(`embedded store at ${dir}: snapshot write failed: ${String(cause)}`, dir, undefined, { cause });
    }
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function listGenerations(dir: string): Promise<{ snapshots: number[]; journals: number[] }> {
  const snapshots: number[] = [];
  const journals: number[] = [];
  for (const name of await readdir(dir)) {
    const match = /^(snapshot|journal)-(\d+)\.(nq|log)(\.tmp)?$/u.exec(name);
    if (!match) continue;
    if (match[4]) await rm(join(dir, name), { force: true }); // a snapshot a crash interrupted
    else (match[1] === 'snapshot' ? snapshots : journals).push(Number(match[2]));
  }
  const ascending = (a: number, b: number): number => a - b;
  return { snapshots: snapshots.sort(ascending), journals: journals.sort(ascending) };
}

async function removeGenerationsBefore(dir: string, gen: number): Promise<void> {
  const { snapshots, journals } = await listGenerations(dir);
  for (const g of snapshots.filter((g) => g < gen)) await rm(join(dir, snapshotName(g)), { force: true });
  for (const g of journals.filter((g) => g < gen)) await rm(join(dir, journalName(g)), { force: true });
}

/**
 * Loads the newest snapshot and replays the journals after it. Replay stops at the first bad
 * entry (what follows it never happened as far as the store is concerned): a torn last line
 * from a crash is dropped with a warning, anything more is kept aside as `*.damaged-<time>`.
 */
async function recover(options: JournalOptions): Promise<{ gen: number; bytes: number; journals: number }> {
  const { dir, target, logger } = options;
  const { snapshots, journals } = await listGenerations(dir);
  const base = snapshots.at(-1) ?? 0;
  if (snapshots.length > 0) loadSnapshot(dir, base, target, await readFile(join(dir, snapshotName(base)), 'utf8'));
  const gens = journals.filter((g) => g >= base);
  let current = { gen: base, bytes: 0 };
  for (const [i, gen] of gens.entries()) {
    const path = join(dir, journalName(gen));
    const buf = await readFile(path);
    const { entries, validBytes } = decodeJournal(buf);
    for (const entry of entries) replayEntry(target, entry, logger, path);
    current = { gen, bytes: validBytes };
    if (validBytes < buf.length) {
      await setAsideDamage({ dir, gen, buf, validBytes, later: gens.slice(i + 1), logger });
      return { ...current, journals: i + 1 };
    }
  }
  return { ...current, journals: gens.length };
}

function loadSnapshot(dir: string, gen: number, target: JournalTarget, nquads: string): void {
  try {
    target.loadSnapshot(nquads);
  } catch (cause) {
    const file = join(dir, snapshotName(gen));
    throw new StoreError(`embedded store at ${dir}: snapshot ${file} cannot be read: ${String(cause)}`, dir, undefined, { cause });
  }
}

function replayEntry(target: JournalTarget, entry: JournalEntry, logger: StoreLogger, file: string): void {
  try {
    target.replay(entry);
  } catch (err) {
    // It applied when it was first made; keep going rather than refuse to start.
    logger.warn({ err, file, op: entry.op }, 'a journal entry failed to replay and was skipped');
  }
}

interface Damage {
  dir: string;
  gen: number;
  buf: Buffer;
  validBytes: number;
  later: number[];
  logger: StoreLogger;
}

async function setAsideDamage({ dir, gen, buf, validBytes, later, logger }: Damage): Promise<void> {
  const path = join(dir, journalName(gen));
  const tail = buf.subarray(validBytes);
  const tornLastLine = later.length === 0 && !tail.includes(0x0a);
  if (tornLastLine) {
    logger.warn({ file: path, bytes: tail.length }, 'ignored a torn last journal entry (a write interrupted by a crash)');
  } else {
    const stamp = Date.now();
    await writeFile(`${path}.damaged-${stamp}`, tail);
    for (const g of later) await rename(join(dir, journalName(g)), join(dir, `${journalName(g)}.damaged-${stamp}`));
    logger.warn({ file: path, bytes: tail.length, laterJournals: later.length }, 'journal is damaged; replay stopped at the first bad entry, the rest is kept aside as *.damaged-*');
  }
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(validBytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

interface LockHolder {
  pid: number;
  hostname: string;
}

// Directories this process holds, so a second open in the same process is refused even though
// the lock's pid is alive, and a stale lock that carries our own (reused) pid is taken over.
const heldDirs = new Set<string>();

/**
 * An exclusive lock on a data directory: a `LOCK` file naming the holder's pid and host, made
 * atomically with link(2) so that no reader ever sees a half-written lock. A lock left by a
 * process that no longer runs on this host is taken over with a warning.
 */
class DataDirLock {
  private constructor(
    private readonly dir: string,
    private readonly path: string,
  ) {}

  static async acquire(dir: string, logger: StoreLogger): Promise<DataDirLock> {
    if (heldDirs.has(dir)) throw lockedError(dir, { pid: process.pid, hostname: hostname() });
    const path = join(dir, 'LOCK');
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ pid: process.pid, hostname: hostname() }));
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          await link(tmp, path);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
          const holder = await readHolder(path);
          if (holder && isAlive(holder)) throw lockedError(dir, holder);
          logger.warn({ dir, holder }, 'took over the lock of a process that is no longer running');
          await rm(path, { force: true });
        }
      }
    } finally {
      await rm(tmp, { force: true });
    }
    heldDirs.add(dir);
    return new DataDirLock(dir, path);
  }

  async release(): Promise<void> {
    if (!heldDirs.delete(this.dir)) return;
    const holder = await readHolder(this.path);
    if (holder?.pid === process.pid && holder.hostname === hostname()) await rm(this.path, { force: true });
  }
}

async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<LockHolder>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string') return value as LockHolder;
  } catch {
    // missing or unreadable: treated as stale
  }
  return undefined;
}

function isAlive(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return true; // cannot tell for another host: assume it runs
  if (holder.pid === process.pid) return false; // not in heldDirs: our pid was reused (container restart)
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(holder.pid);
}

// A killed process stays a zombie until its parent reaps it, and signal 0 still reaches it; in a
// container without an init process that can take a while. Linux shows the state in /proc.
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return /\) [ZX] /u.test(stat);
  } catch {
    return false;
  }
}

function lockedError(dir: string, holder: LockHolder): StoreError {
  const who = holder.pid === process.pid && holder.hostname === hostname() ? 'this process' : `process ${holder.pid} on ${holder.hostname}`;
  return new StoreError(
    `embedded store data dir ${dir} is in use by ${who} (lock file ${join(dir, 'LOCK')}). ` +
      'Stop that process, or point this one at another --data-dir; if that process is certainly gone, delete the lock file.',
    dir,
  );
}
