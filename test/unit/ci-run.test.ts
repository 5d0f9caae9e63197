import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

// `.ci/run` in a scratch checkout whose npm and scripts/virtuoso.sh are stubs: the stub records
// the VIRTUOSO_DIR it was given, so the test can see what the script kept or removed.
const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sm-ci-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runCi(env: NodeJS.ProcessEnv): { status: number | null; dirSeen: string } {
  const checkout = mkdtempSync(join(scratch, 'checkout-'));
  mkdirSync(join(checkout, '.ci'));
  mkdirSync(join(checkout, 'scripts'));
  mkdirSync(join(checkout, 'bin'));
  copyFileSync(join(root, '.ci', 'run'), join(checkout, '.ci', 'run'));
  const seen = join(checkout, 'dir-seen');
  writeFileSync(
    join(checkout, 'scripts', 'virtuoso.sh'),
    `if [ "$1" = start ]; then printf '%s' "$VIRTUOSO_DIR" > '${seen}'; echo 'export SPARQL_ENDPOINT=http://127.0.0.1:1/sparql'; fi\n`,
  );
  writeFileSync(join(checkout, 'bin', 'npm'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(checkout, 'bin', 'npm'), 0o755);
  const result = spawnSync('bash', [join(checkout, '.ci', 'run')], {
    env: { ...env, PATH: `${join(checkout, 'bin')}:${process.env.PATH ?? ''}` },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, dirSeen: readFileSync(seen, 'utf8') };
}

describe('.ci/run', () => {
  it('should keep a VIRTUOSO_DIR the caller gives', () => {
    const given = mkdtempSync(join(scratch, 'given-'));
    writeFileSync(join(given, 'keep-me'), 'data');
    const { status, dirSeen } = runCi({ VIRTUOSO_DIR: given });
    expect([status, dirSeen]).toEqual([0, given]);
    expect(existsSync(join(given, 'keep-me'))).toBe(true);
  });

  it('should remove the directory it made itself', () => {
    const { status, dirSeen } = runCi({});
    expect(status).toBe(0);
    expect(dirSeen).toMatch(/^\/tmp\/sm-virtuoso-ci\./u);
    expect(existsSync(dirSeen)).toBe(false);
  });
});
