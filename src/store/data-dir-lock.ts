import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { StoreError } from '../errors.js';
import type { StoreLogger } from './store-logger.js';

interface LockHolder {
  pid: number;
  hostname: string;
  /** When the holding process started (Linux: jiffies since boot), to tell this process from one that had its pid. */
  started?: string;
}

// Directories this process holds, so a second open in the same process is refused even though
// the lock's pid is alive, and a stale lock that carries our own (reused) pid is taken over.
const heldDirs = new Set<string>();

/**
 * An exclusive lock on a data directory: a `LOCK` file naming the holder's pid and host, made
 * atomically with link(2) so that no reader ever sees a half-written lock. A lock left by a
 * process that no longer runs on this host is taken over with a warning.
 */
export class DataDirLock {
  private constructor(
    private readonly dir: string,
    private readonly path: string,
  ) {}

  /** Takes the lock on `dir` (a real path), or throws a StoreError naming the holder. */
  static async acquire(dir: string, logger: StoreLogger): Promise<DataDirLock> {
    if (heldDirs.has(dir)) throw lockedError(dir, { pid: process.pid, hostname: hostname() });
    const path = join(dir, 'LOCK');
    const tmp = `${path}.${process.pid}.tmp`;
    const started = processStart();
    await writeFile(tmp, JSON.stringify({ pid: process.pid, hostname: hostname(), ...(started !== undefined && { started }) }));
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

  /** Releases the lock; the file is removed only while it still names this process. Repeat calls do nothing. */
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
  // Our pid, not in heldDirs: another thread of this process (a store on a worker thread) holds
  // it when the start times agree; else the pid was reused (a container restart) and it is stale.
  if (holder.pid === process.pid) return holder.started !== undefined && holder.started === processStart();
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(holder.pid);
}

/** This process's start time from /proc (field 22 of its stat line), where there is one. */
function processStart(): string | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
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
