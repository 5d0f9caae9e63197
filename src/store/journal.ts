import { mkdir, open, realpath, rename, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { StoreError } from '../errors.js';
import { DataDirLock } from './data-dir-lock.js';
import { journalName, removeGenerationsBefore, snapshotName, syncDir } from './generation-files.js';
import { encodeEntry, type JournalEntry, type JournalTarget } from './journal-format.js';
import { recover } from './journal-recovery.js';
import type { StoreLogger } from './store-logger.js';

/**
 * Durability for the embedded store: an exclusive lock on the data directory, N-Quads snapshots
 * and an append-only journal of committed writes.
 *
 * Files: `snapshot-<g>.nq` is the whole store as it was when `journal-<g>.log` was started, so
 * the state is the newest snapshot plus every journal of that generation or later, replayed in
 * order. Compaction starts journal g+1 first and writes snapshot g+1 afterwards (temp file,
 * fsync, rename, fsync of the directory), so a crash at any step leaves a snapshot and journals
 * that replay to the same state. No generation is ever rewritten in place.
 *
 * The pieces: `data-dir-lock.ts` (the lock), `journal-format.ts` (entries and their framing),
 * `generation-files.ts` (the files of each generation), `journal-recovery.ts` (replay at open).
 */

/** Options of {@link Journal.open}. */
export interface JournalOptions {
  dir: string;
  target: JournalTarget;
  logger: StoreLogger;
  /** Journal size that triggers compaction. */
  compactAfterBytes: number;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}
interface PendingEntry extends Waiter {
  bytes: Buffer;
}

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

  /** Throws if an earlier journal write failed: then memory is ahead of disk and requests must stop. */
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
          'requests are refused until the store is reopened',
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
