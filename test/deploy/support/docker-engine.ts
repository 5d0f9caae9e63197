/**
 * A private Docker engine for one test file, run by scripts/docker.sh in a temporary directory:
 * started when the file loads (so that the suite can skip, saying why, when none can be started),
 * driven with `docker` and the machine's Compose command, stopped by {@link DockerEngine.stop}.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../support/sidecar-process.js';

const SCRIPT = join(ROOT, 'scripts', 'docker.sh');
// apt-get may run first on a fresh machine.
const START_TIMEOUT_MS = 600_000;

/** The output of a finished command. */
export interface Output {
  stdout: string;
  stderr: string;
}

/** Runs `command` and resolves with its output, or rejects with its stderr in the message. */
export function run(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; timeoutMs: number; cwd?: string },
): Promise<Output> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { env: options.env, cwd: options.cwd ?? ROOT, timeout: options.timeoutMs, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} failed (${error.message.split('\n')[0]}):\n${stderr.slice(-4000)}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** A running engine, or why none runs. */
export type EngineStart = { engine: DockerEngine } | { skip: string };

/** The engine of a temporary directory, and the environment that reaches it. */
export class DockerEngine {
  /** Environment of `docker` and Compose commands: DOCKER_HOST on the engine's socket. */
  readonly env: NodeJS.ProcessEnv;

  private constructor(readonly dir: string) {
    this.env = { ...process.env, DOCKER_DIR: dir, DOCKER_HOST: `unix://${join(dir, 'docker.sock')}`, DOCKER_BUILDKIT: '0' };
  }

  /** Starts an engine with `scripts/docker.sh start`, or says why it could not. */
  static start(): EngineStart {
    const dir = mkdtempSync(join(tmpdir(), 'sm-docker-'));
    const started = spawnSync('bash', [SCRIPT, 'start'], {
      env: { ...process.env, DOCKER_DIR: dir },
      encoding: 'utf8',
      timeout: START_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (started.status === 0) return { engine: new DockerEngine(dir) };
    spawnSync('bash', [SCRIPT, 'stop'], { env: { ...process.env, DOCKER_DIR: dir }, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
    const why = `${started.stderr ?? ''}`.trim().split('\n').slice(-3).join(' / ') || String(started.error ?? `exit ${started.status}`);
    return { skip: `no Docker engine could be started: ${why}` };
  }

  /** The pid of dockerd, while its pid file is there. */
  pid(): number | undefined {
    const file = join(this.dir, 'docker.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
  }

  /** Runs `scripts/docker.sh <command>` for this engine. */
  script(command: 'images' | 'stop', timeoutMs: number): Promise<Output> {
    return run('bash', [SCRIPT, command], { env: this.env, timeoutMs });
  }

  /** Runs `docker <args>` against this engine. */
  docker(args: string[], timeoutMs = 60_000): Promise<Output> {
    return run('docker', args, { env: this.env, timeoutMs });
  }
}
