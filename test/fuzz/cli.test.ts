/**
 * A few spawned `semantic-sidecar start` runs with hostile flags and files: each exits 2 with a
 * `semantic-sidecar: error:` message naming the bad value, and no stack trace. Kept to a handful
 * of spawns (about half a second each).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../support/build.js';
import { runCli } from '../support/sidecar-process.js';
import { fuzzReport } from './support/runs.js';

const report = fuzzReport('test/fuzz/cli.test.ts', 'none');
const dir = mkdtempSync(join(tmpdir(), 'sm-fuzz-cli-'));

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('semantic-sidecar start with hostile flags', () => {
  const badYaml = join(dir, 'bad.yaml');
  writeFileSync(badYaml, 'resource: [unclosed\nport: {\n');
  const cases: [string, string[], string][] = [
    [
      'an IRI that breaks out of a term',
      ['--resource', 'urn:x> } ; DROP ALL ; <urn:y', '--store', 'memory'],
      'urn:x> } ; DROP ALL ; <urn:y',
    ],
    ['a port that is no number', ['--resource', 'plant:door1', '--port', '80; rm -rf /', '--store', 'memory'], '80; rm -rf /'],
    ['an address with a control character', ['--resource', 'plant:door1', '--address', 'http://h\u0001/x', '--store', 'memory'], 'address'],
    [
      'an unknown CURIE prefix and a bad heartbeat',
      ['--resource', 'evil:"door"', '--heartbeat-interval', 'NaN', '--store', 'memory'],
      'evil:',
    ],
    ['a malformed config file', ['--config', badYaml], badYaml],
  ];

  it.each(cases)(
    'should exit 2 with a one-problem-per-line error and no stack for %s',
    async (_what, args, names) => {
      const result = await runCli(['start', ...args, '--log-level', 'silent'], {
        cwd: dir,
        env: { STATE_DIRECTORY: join(dir, 'state') },
        timeoutMs: 30_000,
      });
      report.count('hostile start flags', 1);
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^semantic-sidecar: error: /u);
      for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}- /u);
      expect(result.stderr).not.toMatch(/^\s+at /mu);
      expect(result.stderr).toContain(names);
    },
    40_000,
  );
});
