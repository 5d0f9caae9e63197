import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the per-store harness', () => {
  it('should report the tests of an unconfigured store as skipped, not passed, and print nothing about them', () => {
    const env = { ...process.env };
    delete env.SPARQL_ENDPOINT;
    const result = spawnSync(
      process.execPath,
      [
        '--experimental-vm-modules',
        '--no-warnings=ExperimentalWarning',
        'node_modules/jest/bin/jest.js',
        '--json',
        '--testMatch',
        '<rootDir>/test/unit/fixtures/remote-only.suite.ts',
      ],
      { cwd: root, env, encoding: 'utf8', timeout: 120_000 },
    );
    const report = JSON.parse(result.stdout) as { numPassedTests: number; numPendingTests: number; numFailedTests: number };
    expect([report.numPassedTests, report.numPendingTests, report.numFailedTests]).toEqual([3, 3, 0]);
    expect(result.stderr).not.toMatch(/SKIPPED|console\.warn/u);
  }, 120_000);
});
