import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeError, ValueError } from '../../src/errors.js';
import { closeServer } from '../../src/http/close.js';
import { listen } from '../../src/http/listen.js';
import { removeStaleSocket } from '../../src/http/stale-socket.js';

const dir = mkdtempSync(join(tmpdir(), 'stale-socket-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const socketPath = (): string => join(dir, `s${(n += 1)}.sock`);

/** Leaves a socket file behind the way a crash does: its listener is killed with SIGKILL. */
async function deadSocket(): Promise<string> {
  const path = socketPath();
  const holder = spawn(process.execPath, ['-e', 'require("net").createServer().listen(process.argv[1], () => console.log("up"))', path]);
  await new Promise((resolve) => holder.stdout.once('data', resolve));
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  return path;
}

async function liveServer(path: string): Promise<Server> {
  const server = createServer((_req, res) => res.end('first'));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

function get(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ socketPath: path, path: '/' }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

const names = { what: 'the test socket', setting: 'test.socket' };

describe('removeStaleSocket', () => {
  it('should remove a socket file left by a dead process, and let a new server listen there', async () => {
    const path = await deadSocket();
    expect(existsSync(path)).toBe(true);
    await removeStaleSocket(path, names);
    expect(existsSync(path)).toBe(false);
    const server = await liveServer(path);
    expect(await get(path)).toBe('first');
    await closeServer(server, 0);
  });

  it('should never take a socket a live process listens on, naming the path and the setting', async () => {
    const path = socketPath();
    const first = await liveServer(path);
    const error = await removeStaleSocket(path, names).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuntimeError);
    expect((error as Error).message).toBe(
      `a process already listens on the test socket ${path}: is another one running with this test.socket?`,
    );
    expect(await get(path)).toBe('first');
    // listen() makes the same check: the second server is refused, the first keeps serving.
    await expect(listen(() => undefined, { socket: path, names })).rejects.toThrow('a process already listens on the test socket');
    expect(await get(path)).toBe('first');
    await closeServer(first, 0);
  });

  it('should refuse to replace a file that is not a socket, and do nothing without a file', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'keep me\n');
    const error = await removeStaleSocket(path, names).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValueError);
    expect((error as Error).message).toContain(`the test socket path ${path} exists and is not a socket`);
    expect(readFileSync(path, 'utf8')).toBe('keep me\n');
    await expect(removeStaleSocket(join(dir, 'absent.sock'))).resolves.toBeUndefined();
  });
});

describe('listen', () => {
  it('should replace a dead socket and create the new one with the mode asked for', async () => {
    const path = await deadSocket();
    const { server } = await listen((_req, res) => res.end('second'), { socket: path, mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await get(path)).toBe('second');
    await closeServer(server, 0);
    expect(existsSync(path)).toBe(false);
  });

  it('should name a TCP address in use', async () => {
    const { server, port } = await listen(() => undefined, { host: '127.0.0.1', port: 0 });
    const error = await listen(() => undefined, { host: '127.0.0.1', port }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuntimeError);
    expect((error as Error).message).toBe(
      `127.0.0.1:${port} is already in use: stop the process listening there, or pick another port (0 picks a free one)`,
    );
    await closeServer(server, 0);
  });
});
