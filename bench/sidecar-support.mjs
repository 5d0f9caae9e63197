// Pieces of the sidecar benchmark that are not measurements: child processes (spawned, awaited
// and always killed), JSON over undici clients (Unix socket or loopback), the door's activity
// stream as the signal that an Operation is terminal, and RSS read from /proc.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, Pool } from 'undici';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const CLI = join(ROOT, 'bin', 'semantic-sidecar.js');
export const BRIDGE = join(ROOT, 'examples', 'mock-plc-bridge', 'bridge.mjs');
export const BARE_PROXY = join(ROOT, 'bench', 'sidecar-bare-proxy.mjs');
// BENCH_CPU_PROF=<dir>: every child writes a V8 CPU profile there when it exits (NODE_OPTIONS
// refuses --cpu-prof), to see where a figure's CPU goes.
const PROFILE_ARGS = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

/**
 * The child processes of one run, each with its stderr in `<dir>/<name>.log`. `stopAll` ends
 * them with SIGTERM, then SIGKILL after `graceMs`. Until then, this process exiting or being
 * interrupted kills what is left, so no daemon outlives a failed run.
 */
export class Children {
  #all = [];
  #closed = false;
  #killAll = () => this.#all.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL'));
  #onSignal = (signal) => {
    this.#killAll();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

  constructor(dir) {
    this.dir = dir;
    process.once('exit', this.#killAll);
    process.once('SIGINT', this.#onSignal);
    process.once('SIGTERM', this.#onSignal);
  }

  #spawn(args, env, command = undefined) {
    // A run that timed out may still be starting things; once stopping began, nothing new starts.
    if (this.#closed) throw new Error(`not starting ${args.join(' ')}: the run is stopping`);
    const child = spawn(command ?? process.execPath, command ? args : [...PROFILE_ARGS, ...args], {
      cwd: ROOT,
      env: env ? { ...process.env, ...env } : process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#all.push(child);
    return child;
  }

  /**
   * Spawns `script args`; resolves with the child, its first stdout line and the ms that line
   * took. `onStderrLine` sees every stderr line, `onStdoutLine` every stdout line after the
   * first; `env` is added to this process's environment.
   */
  async daemon(name, args, { script = CLI, onStderrLine, onStdoutLine = () => undefined, env } = {}) {
    const started = performance.now();
    const child = this.#spawn([script, ...args], env);
    child.stderr.pipe(createWriteStream(join(this.dir, `${name}.log`), { flags: 'a' }));
    if (onStderrLine) createInterface({ input: child.stderr }).on('line', onStderrLine);
    const lines = createInterface({ input: child.stdout });
    const exited = once(child, 'exit').then(([code, signal]) => {
      throw new Error(`${name} exited (${code ?? signal}) before its first stdout line; see ${join(this.dir, `${name}.log`)}`);
    });
    const [first] = await Promise.race([once(lines, 'line'), exited]);
    exited.catch(() => undefined);
    const startMs = performance.now() - started;
    lines.on('line', onStdoutLine); // also keeps the pipe drained (the bridge logs every request)
    return { child, pid: child.pid, first, startMs };
  }

  /**
   * Spawns a program that is not Node's (`command args`), its output in `<name>.log`; stopped
   * with the rest. Resolves with the child once `ready()` resolves true (polled every 50 ms for
   * up to 10 s); rejects when it exits first or never gets ready.
   */
  async program(name, command, args, ready) {
    const child = this.#spawn(args, undefined, command);
    const log = createWriteStream(join(this.dir, `${name}.log`), { flags: 'a' });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const deadline = performance.now() + 10_000;
    while (!(await ready())) {
      if (child.exitCode !== null || child.signalCode !== null || performance.now() > deadline) {
        await this.stop(child);
        throw new Error(`${name} did not get ready; see ${join(this.dir, `${name}.log`)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { child, pid: child.pid };
  }

  /** Runs a CLI command to its end; rejects with its stderr when it exits non-zero. */
  async command(args) {
    const child = this.#spawn([CLI, ...args]);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.resume();
    const [code] = await once(child, 'exit');
    if (code !== 0) throw new Error(`semantic-sidecar ${args[0]} exited ${code}: ${err.trim()}`);
  }

  /** SIGTERM to `child`, SIGKILL after `graceMs`; resolves when it has exited. */
  async stop(child, graceMs = 15_000) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** Stops every child, newest first, and lets signals take their default course again. */
  async stopAll(graceMs) {
    this.#closed = true;
    for (const child of [...this.#all].reverse()) await this.stop(child, graceMs);
    process.off('exit', this.#killAll);
    process.off('SIGINT', this.#onSignal);
    process.off('SIGTERM', this.#onSignal);
  }
}

/**
 * A bare client's POST: Node's http client over `agent`, nothing else, to `target` (`hostname`,
 * `port`, `path`, parsed once by the caller). Resolves with the answer's text; rejects on a
 * status of 300 or more, with it. The floor other clients are measured against.
 */
export function barePost(agent, target, body, contentType) {
  return new Promise((resolve, reject) => {
    const req = request({
      ...target,
      method: 'POST',
      agent,
      headers: { accept: 'application/sparql-results+json', 'content-type': contentType },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode < 300) resolve(text);
        else reject(new Error(`POST ${target.path} -> HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
      });
    });
    req.setHeader('content-length', Buffer.byteLength(body));
    req.end(body);
  });
}

/**
 * An undici client for `address` (http://host:port) or a Unix socket, with JSON helpers. One
 * connection, one request at a time, unless `connections` asks for more: concurrent requesters
 * need one each, or they queue behind each other's long-polls.
 */
export function jsonClient({ address, socketPath, connections = 1 }) {
  const options = socketPath ? { socketPath } : {};
  const origin = address ?? 'http://localhost';
  const client = connections > 1 ? new Pool(origin, { ...options, connections }) : new Client(origin, options);
  const call = async (method, path, body) => {
    const res = await client.request({
      method,
      path,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    const value = text === '' ? undefined : JSON.parse(text);
    if (res.statusCode >= 300) throw new Error(`${method} ${path} -> ${res.statusCode} ${text}`);
    return value;
  };
  return { client, post: (path, body) => call('POST', path, body), get: (path) => call('GET', path), close: () => client.destroy() };
}

/**
 * Follows `GET /activity/stream` of a sidecar and resolves `terminal(operationIri)` when its
 * `done` or `failed` entry arrives: the receiver records it right after the terminal commit,
 * so this sees the outcome without polling the store.
 */
export async function activityWatch(address) {
  const client = new Client(address);
  const waiting = new Map();
  const outcomes = new Map();
  const res = await client.request({ method: 'GET', path: '/activity/stream' });
  if (res.statusCode !== 200)
    throw new Error(`GET ${address}/activity/stream -> ${res.statusCode}; start the sidecar with --activity-feed`);
  const settle = (iri, outcome) => {
    const w = waiting.get(iri);
    if (w) {
      waiting.delete(iri);
      w(outcome);
    } else outcomes.set(iri, outcome);
  };
  (async () => {
    for await (const line of createInterface({ input: res.body })) {
      if (!line.startsWith('data: ')) continue;
      const entry = JSON.parse(line.slice(6));
      if (entry.kind === 'done' || entry.kind === 'failed') settle(entry.operation, { kind: entry.kind, error: entry.error });
    }
  })().catch(() => undefined);
  return {
    /** Resolves with { kind, error } for the Operation; rejects after `timeoutMs`. */
    terminal(iri, timeoutMs = 10_000) {
      const seen = outcomes.get(iri);
      if (seen) return (outcomes.delete(iri), Promise.resolve(seen));
      return new Promise((ok, fail) => {
        const timer = setTimeout(
          () => (waiting.delete(iri), fail(new Error(`no done/failed entry for ${iri} within ${timeoutMs} ms`))),
          timeoutMs,
        );
        waiting.set(iri, (outcome) => (clearTimeout(timer), ok(outcome)));
      });
    },
    close: () => client.destroy(),
  };
}

/** Resident set size of a process in MB (VmRSS of /proc/<pid>/status). */
export async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return kb / 1024;
}

const TICKS_PER_SECOND = 100; // USER_HZ, fixed at 100 by the Linux ABI for /proc

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. Unlike
 * wall time, it barely moves when other work shares the cores.
 */
export async function cpuMs(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** CPU ms of each of `pids` so far; `since(earlier)` gives what each used after `earlier`. */
export async function cpuOf(pids) {
  const now = await Promise.all(pids.map(cpuMs));
  return { now, since: (earlier) => now.map((ms, i) => ms - earlier.now[i]) };
}

/** Samples the RSS of `pids` every `intervalMs` until `stop()`, which resolves with the peak of each. */
export function rssPeaks(pids, intervalMs = 100) {
  const peaks = pids.map(() => 0);
  const timer = setInterval(() => {
    pids.forEach((pid, i) =>
      rssMb(pid).then(
        (mb) => (peaks[i] = Math.max(peaks[i], mb)),
        () => undefined,
      ),
    );
  }, intervalMs);
  return { stop: () => (clearInterval(timer), peaks) };
}

/** A whole number >= `min` from the environment variable `name`, or `fallback` when it is unset. */
export function envInt(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be a whole number >= ${min}, got ${JSON.stringify(raw)}`);
  return value;
}

/** Median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
