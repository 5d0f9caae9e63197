import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from '../errors.js';
import { journalName, listGenerations, snapshotName } from './generation-files.js';
import { decodeJournal, type JournalEntry, type JournalTarget } from './journal-format.js';
import type { StoreLogger } from './store-logger.js';

/** What {@link recover} reads from and replays into. */
export interface RecoveryOptions {
  /** The data directory, already locked. */
  dir: string;
  target: JournalTarget;
  logger: StoreLogger;
}

/** Where recovery left off: the generation to append to, its valid size, and how many journals were replayed. */
export interface Recovered {
  gen: number;
  bytes: number;
  journals: number;
}

/**
 * Loads the newest snapshot and replays the journals after it. Replay stops at the first bad
 * entry (what follows it never happened as far as the store is concerned): a torn last line
 * from a crash is dropped with a warning, anything more is kept aside as `*.damaged-<time>`.
 */
export async function recover(options: RecoveryOptions): Promise<Recovered> {
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
    logger.warn(
      { file: path, bytes: tail.length, laterJournals: later.length },
      'journal is damaged; replay stopped at the first bad entry, the rest is kept aside as *.damaged-*',
    );
  }
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(validBytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
