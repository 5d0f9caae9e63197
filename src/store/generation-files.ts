import { open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The files of a data directory's generations: `snapshot-<g>.nq` and `journal-<g>.log`, named,
 * listed, removed and made durable here (see `journal.ts` for how they fit together).
 */

/** File name of generation `gen`'s journal. */
export const journalName = (gen: number): string => `journal-${gen}.log`;
/** File name of generation `gen`'s snapshot. */
export const snapshotName = (gen: number): string => `snapshot-${gen}.nq`;

/** Fsyncs a directory, so that files created or renamed in it survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The generations present, ascending; removes snapshot temp files a crash left behind. */
export async function listGenerations(dir: string): Promise<{ snapshots: number[]; journals: number[] }> {
  const snapshots: number[] = [];
  const journals: number[] = [];
  for (const name of await readdir(dir)) {
    const match = /^(snapshot|journal)-(\d+)\.(nq|log)(\.tmp)?$/u.exec(name);
    if (!match) continue;
    if (match[4])
      await rm(join(dir, name), { force: true }); // a snapshot a crash interrupted
    else (match[1] === 'snapshot' ? snapshots : journals).push(Number(match[2]));
  }
  const ascending = (a: number, b: number): number => a - b;
  return { snapshots: snapshots.sort(ascending), journals: journals.sort(ascending) };
}

/** Removes the snapshots and journals older than generation `gen`. */
export async function removeGenerationsBefore(dir: string, gen: number): Promise<void> {
  const { snapshots, journals } = await listGenerations(dir);
  for (const g of snapshots.filter((g) => g < gen)) await rm(join(dir, snapshotName(g)), { force: true });
  for (const g of journals.filter((g) => g < gen)) await rm(join(dir, journalName(g)), { force: true });
}
