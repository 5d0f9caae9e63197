/**
 * Spawns the example mock PLC bridge as a real child process and waits for its listening line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Path of the bridge script. */
export const BRIDGE = fileURLToPath(new URL('../../../examples/mock-plc-bridge/bridge.mjs', import.meta.url));

/** A running bridge. */
export interface Bridge {
  child: ChildProcess;
  /** The device target: `unix:<socket>` or the bridge's URL. */
  target: string;
  /** Every JSON line the bridge printed so far. */
  lines: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string | null>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string | null>;
}

/** Options of {@link spawnBridge}: `socket` for a Unix socket, otherwise TCP on port 0. */
export interface BridgeOptions {
  kind?: 'door' | 'robot' | 'conveyor';
  socket?: string;
  args?: string[];
}

/** Starts `node bridge.mjs` and resolves once it printed its listening line. */
export async function spawnBridge(options: BridgeOptions = {}): Promise<Bridge> {
  const where = options.socket === undefined ? ['--port', '0'] : ['--socket', options.socket];
  const args = [BRIDGE, '--kind', options.kind ?? 'door', ...where, '--delay-ms', '5', ...(options.args ?? [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      lines.push(parsed);
      if (parsed.event === 'listening') resolve(parsed);
    });
    void exited.then((code) => reject(new Error(`bridge exited (${String(code)}) before listening`)));
  });
  const ready = await listening;
  const target = typeof ready.socket === 'string' ? `unix:${ready.socket}` : String(ready.url);
  return {
    child,
    target,
    lines,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A fresh temporary directory for socket files; `cleanup` removes it. */
export async function socketDir(): Promise<{ path(name: string): string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'sm-dev-'));
  return { path: (name) => join(dir, name), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Requests the bridge has logged as finished (or abandoned). */
export function requestLines(bridge: Bridge): Array<Record<string, unknown>> {
  return bridge.lines.filter((line) => line.event === 'request');
}
