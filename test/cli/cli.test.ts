import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ONTOLOGY_GRAPHS } from '../../src/vocab/graphs.js';
import { ensureBuilt } from '../support/build.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'semantic-sidecar.js');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

function cli(args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  const { SM_STORE: _store, LOG_LEVEL: _level, ...inherited } = process.env;
  return spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', env: { ...inherited, ...env }, timeout: 20_000 });
}

function logLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

let dir: string;

beforeAll(async () => {
  // The launcher runs the built CLI; built once for all test files, only when older than src/.
  await ensureBuilt();
  expect(existsSync(join(root, 'dist', 'cli', 'main.js'))).toBe(true);
  dir = await mkdtemp(join(tmpdir(), 'sm-cli-'));
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('semantic-sidecar', () => {
  it('should print help with an example and exit 0', () => {
    const result = cli(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: semantic-sidecar');
    expect(result.stdout).toContain('ontology');
    expect(result.stdout).toContain('$ semantic-sidecar ontology load --store memory');
  });

  it('should exit 0 quietly when its reader closes the pipe early (`--help | head -1`)', async () => {
    for (let run = 0; run < 3; run++) {
      const child = spawn(process.execPath, [bin, '--help'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader is gone before the first write: every write meets EPIPE
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    }
  }, 30_000);

  it('should print the help of ontology load with its options', () => {
    const result = cli(['ontology', 'load', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--store <url>');
    expect(result.stdout).toContain('[files...]');
  });

  it('should print the package version and exit 0', () => {
    const result = cli(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('should exit 2 on an unknown command, naming it', () => {
    const result = cli(['frobnicate']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
  });

  it('should exit 2 when no command is given', () => {
    expect(cli([]).status).toBe(2);
  });

  it('should exit 2 when --store is missing or malformed', () => {
    const missing = cli(['ontology', 'load']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--store');
    const malformed = cli(['ontology', 'load', '--store', 'ftp://example.org/x']);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain('unsupported scheme');
  });

  it('should provision the bundled modules into a memory store, one log line per module', () => {
    const result = cli(['ontology', 'load', '--store', 'memory']);
    expect(result.status).toBe(0);
    const lines = logLines(result.stderr);
    expect(lines.filter((l) => l.msg === 'ontology module loaded').map((l) => l.graph)).toEqual([
      ONTOLOGY_GRAPHS.core,
      ONTOLOGY_GRAPHS.service,
      ONTOLOGY_GRAPHS.mes,
      ONTOLOGY_GRAPHS.middleware,
      ONTOLOGY_GRAPHS.shapes,
    ]);
    expect(lines.at(-1)).toMatchObject({ msg: 'ontology load finished', loaded: 5, unchanged: 0 });
  });

  it('should take the store from SM_STORE and skip unchanged modules on a second run', () => {
    const env = { SM_STORE: join(dir, 'store') };
    expect(cli(['ontology', 'load'], env).status).toBe(0);
    const second = cli(['ontology', 'load'], env);
    expect(second.status).toBe(0);
    expect(logLines(second.stderr).at(-1)).toMatchObject({ msg: 'ontology load finished', loaded: 0, unchanged: 5 });
  });

  it('should load a given file into the graph its ontology header names', () => {
    const result = cli(['ontology', 'load', 'ontology/examples/plant.ttl', '--store', 'memory']);
    expect(result.status).toBe(0);
    expect(logLines(result.stderr)[0]).toMatchObject({ msg: 'ontology module loaded', graph: ONTOLOGY_GRAPHS.plant });
  });

  it('should exit 1 naming a missing file', () => {
    const result = cli(['ontology', 'load', 'ontology/examples/plant.ttl', 'no/such/file.ttl', '--store', 'memory']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('semantic-sidecar: error: cannot read ontology file "no/such/file.ttl": no such file');
    expect(logLines(result.stderr)).toEqual([]);
  });

  it('should exit 2 when --graph is given with several files', () => {
    const result = cli(['ontology', 'load', 'a.ttl', 'b.ttl', '--graph', 'urn:example:g', '--store', 'memory']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--graph needs exactly one file, got 2');
  });

  it('should honour --log-level', () => {
    const result = cli(['ontology', 'load', '--store', 'memory', '--log-level', 'warn']);
    expect(result.status).toBe(0);
    expect(logLines(result.stderr)).toEqual([]);
    const bad = cli(['ontology', 'load', '--store', 'memory', '--log-level', 'loud']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--log-level: log level "loud" is not one of');
  });
});
