/**
 * The end-to-end tests spawn `bin/semantic-sidecar.js`, which runs dist/. This makes sure dist/
 * is at least as new as src/, building it once when it is not. Jest runs test files in parallel
 * workers, so the build is guarded by a lock directory: one worker builds, the others wait.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ROOT } from './sidecar-process.js';

// What bin/semantic-sidecar.js runs, written last by the build.
const MAIN = join(ROOT, 'dist', 'cli-bundle', 'main.js');
const LOCK = join(tmpdir(), `semantic-middleware-e2e-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
// A lock older than this was left by a worker that died while building.
const STALE_LOCK_MS = 180_000;

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, (await stat(join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}

async function isFresh(): Promise<boolean> {
  const built = await stat(MAIN).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  return built > 0 && built >= (await newestMtime(join(ROOT, 'src')));
}

async function lock(): Promise<boolean> {
  try {
    await mkdir(LOCK);
    return true;
  } catch {
    const age =
      Date.now() -
      (await stat(LOCK).then(
        (s) => s.mtimeMs,
        () => Date.now(),
      ));
    if (age > STALE_LOCK_MS) await rm(LOCK, { recursive: true, force: true });
    return false;
  }
}

/**
 * Builds dist/ as `npm run build` does unless it is newer than every src/ file. Type
 * errors elsewhere in a tree being edited do not stop tsc from emitting, so only a missing
 * dist/cli-bundle/main.js counts as a failure.
 * @throws Error when dist/cli-bundle/main.js is still missing afterwards.
 */
export async function ensureBuilt(): Promise<void> {
  while (!(await isFresh())) {
    if (!(await lock())) {
      await sleep(500);
      continue;
    }
    try {
      if (await isFresh()) break;
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT }).catch(() => undefined);
      // The rest of `npm run build`: the generated config validator and the CLI bundle.
      await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'build-after-tsc.mjs')], { cwd: ROOT });
      break;
    } finally {
      await rm(LOCK, { recursive: true, force: true });
    }
  }
  await stat(MAIN).catch(() => {
    throw new Error(`${MAIN} is missing: run \`npm run build\` and look at its errors`);
  });
}
