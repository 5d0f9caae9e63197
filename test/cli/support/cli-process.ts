import { spawn, spawnSync, type ChildProcessWithoutNullStreams, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../../support/build.js';

/** The project root and the CLI launcher the tests spawn. */
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'semantic-sidecar.js');

/**
 * Makes sure dist/ is built for the launcher (rebuilt only when older than src/, once for all
 * test files, so no test file rewrites dist/ while another one runs the CLI).
 */
export async function buildCli(): Promise<boolean> {
  await ensureBuilt();
  return existsSync(join(ROOT, 'dist', 'cli', 'main.js'));
}

/** The environment a spawned CLI gets: this one without the settings the tests pass explicitly. */
function cleanEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const {
    SM_STORE: _store,
    LOG_LEVEL: _level,
    SM_STORE_TOKEN_FILE: _token,
    SPARQL_USER: _user,
    SPARQL_PASSWORD: _password,
    ...inherited
  } = process.env;
  return { ...inherited, ...env };
}

/** Runs the CLI to its end. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: cleanEnv(env), timeout: 30_000 });
}

/** The JSON log lines of a CLI's stderr. */
export function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A running `semantic-sidecar store serve`. */
export interface ServeProcess {
  /** The endpoint URL, the first stdout line. */
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** Sends `signal` and resolves to the exit code and everything written to stdout and stderr. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/**
 * Spawns `store serve` with `args` and resolves once it printed its URL; rejects with its
 * output when it exits first.
 */
export function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'store', 'serve', ...args], { cwd: ROOT, env: cleanEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null) child.kill(signal);
    return { code: await exited, stdout, stderr };
  };
  return new Promise((resolve, reject) => {
    const onData = (): void => {
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      child.stdout.off('data', onData);
      resolve({ url: stdout.slice(0, newline), child, stop });
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`store serve exited with ${code} before printing its URL:\n${stderr}`)));
  });
}
