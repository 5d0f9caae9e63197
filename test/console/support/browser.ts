/**
 * Headless Chromium for the console's browser tests: Debian's `chromium` (installed by
 * `scripts/chromium.sh` when missing), driven by playwright-core, with a fresh profile per launch.
 * When no Chromium is there and none can be installed, {@link chromiumPath} says why, and the
 * suites skip with that reason rather than pass.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { ROOT } from '../../support/sidecar-process.js';

/** Where Debian puts it; `CHROMIUM_PATH` (set by `.ci/run` from `scripts/chromium.sh`) overrides. */
const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Flags for a quiet, offline, reproducible headless run. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The Chromium to drive, installing it with `scripts/chromium.sh` when missing; or why there is none. */
export function chromiumPath(): { path: string } | { missing: string } {
  const wanted = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  if (existsSync(wanted)) return { path: wanted };
  const install = spawnSync('bash', [join(ROOT, 'scripts', 'chromium.sh')], { encoding: 'utf8', timeout: 300_000 });
  const printed = install.stdout.trim();
  if (install.status === 0 && printed !== '' && existsSync(printed)) return { path: printed };
  const why = (install.stderr || install.error?.message || '').trim().split('\n').slice(-3).join(' ');
  return { missing: `no Chromium at ${wanted}, and scripts/chromium.sh could not install it (${why || `exit ${install.status}`})` };
}

/** A headless Chromium on a fresh profile; `close` ends it and removes the profile. */
export async function launchChromium(executablePath: string): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'sm-chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1400, height: 1000 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
