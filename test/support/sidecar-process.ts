/**
 * Real processes for end-to-end tests: the built CLI (`bin/semantic-sidecar.js`, which runs
 * dist/) and the mock device bridge, spawned with a clean environment, their output captured and
 * parsed, and every one of them killed by {@link ProcessGroup.cleanup} even when a test fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_ENV_VARS } from '../../src/sidecar/config.js';

/** The project root, the CLI launcher and the mock bridge the tests spawn. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'semantic-sidecar.js');
export const BRIDGE = join(ROOT, 'examples', 'mock-plc-bridge', 'bridge.mjs');

// Last resort: a worker that exits with children still running takes them along.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

// Variables the spawned processes must not inherit from whoever runs the tests.
const SCRUBBED = new Set([...CONFIG_ENV_VARS.map((v) => v.name), 'SM_STORE', 'SM_STORE_TOKEN_FILE']);

/** This process's environment without the sidecar's settings, plus `extra`. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!SCRUBBED.has(name)) env[name] = value;
  return { ...env, ...extra };
}

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of a spawn: extra environment (on top of {@link cleanEnv}) and working directory (default ROOT). */
export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Parses the lines of `text` that are JSON objects (log lines); other lines are skipped. */
export function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by a kill -9 mid-write: not a log line
    }
  }
  return out;
}

/** One spawned Node process with its output collected. */
export class Proc {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;

  constructor(
    readonly name: string,
    script: string,
    args: readonly string[],
    options: SpawnOptions = {},
  ) {
    this.child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd ?? ROOT,
      env: cleanEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(this.child);
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        live.delete(this.child);
        resolve({ code, signal });
      });
    });
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The JSON log lines on stderr so far. */
  logs(): Record<string, unknown>[] {
    return jsonLines(this.stderr);
  }

  /** The end of its output, for failure messages. */
  tail(chars = 2000): string {
    return `--- ${this.name} stdout ---\n${this.stdout.slice(-chars)}\n--- ${this.name} stderr ---\n${this.stderr.slice(-chars)}`;
  }

  /**
   * Resolves with the first non-undefined value of `probe` (checked on each output chunk and
   * every 50 ms); rejects when the process exits first or after `timeoutMs`, with its output.
   */
  waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const value = probe();
        if (value === undefined) return false;
        finish();
        resolve(value);
        return true;
      };
      const onExit = (exit: Exit): void => {
        if (check()) return;
        finish();
        reject(new Error(`${this.name} exited (${exit.code ?? exit.signal}) before ${what}\n${this.tail()}`));
      };
      const timer = setInterval(check, 50);
      const deadline = setTimeout(() => {
        if (check()) return;
        finish();
        reject(new Error(`${this.name}: no ${what} within ${timeoutMs} ms\n${this.tail()}`));
      }, timeoutMs);
      const finish = (): void => {
        clearInterval(timer);
        clearTimeout(deadline);
        this.child.stdout!.off('data', check);
        this.child.stderr!.off('data', check);
      };
      this.child.stdout!.on('data', check);
      this.child.stderr!.on('data', check);
      void this.exited.then(onExit);
      check();
    });
  }

  /** The first stdout line, once written. */
  firstLine(timeoutMs?: number): Promise<string> {
    return this.waitFor(
      () => (this.stdout.includes('\n') ? this.stdout.slice(0, this.stdout.indexOf('\n')) : undefined),
      'first stdout line',
      timeoutMs,
    );
  }

  /** Sends `signal` (when still running) and resolves with how it exited; SIGKILL after `graceMs`. */
  async kill(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<Exit> {
    if (this.running) this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The processes of one test file or test, stopped together. */
export class ProcessGroup {
  readonly #procs: Proc[] = [];

  /** Spawns `node script ...args` and keeps it for {@link cleanup}. */
  spawn(name: string, script: string, args: readonly string[], options?: SpawnOptions): Proc {
    const proc = new Proc(name, script, args, options);
    this.#procs.push(proc);
    return proc;
  }

  /** Spawns the CLI. */
  cli(name: string, args: readonly string[], options?: SpawnOptions): Proc {
    return this.spawn(name, BIN, args, options);
  }

  /** Stops every process still running, newest first (SIGTERM, then SIGKILL after `graceMs`). */
  async cleanup(graceMs = 5_000): Promise<void> {
    const running = this.#procs.reverse().filter((p) => p.running);
    this.#procs.length = 0;
    await Promise.all(running.map((p) => p.kill('SIGTERM', graceMs)));
  }
}

/** What a finished CLI run left. */
export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end (asynchronously: the test's event loop keeps running); SIGKILL after `timeoutMs`. */
export async function runCli(args: readonly string[], options: SpawnOptions & { timeoutMs?: number } = {}): Promise<CliResult> {
  const proc = new Proc(`semantic-sidecar ${args[0] ?? ''}`, BIN, args, options);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  try {
    const exit = await proc.exited;
    return { ...exit, stdout: proc.stdout, stderr: proc.stderr };
  } finally {
    clearTimeout(timer);
  }
}
