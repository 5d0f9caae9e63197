/**
 * `semantic-sidecar console` and the watchdog's `--console-port`, run in process: they print
 * where the console listens, read every store given, want the token given, and refuse bad flags.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runConsole, type ConsoleFlags } from '../../src/cli/console-command.js';
import type { CliIo } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { runWatchdog } from '../../src/cli/watchdog-command.js';
import { fetch as undiciFetch } from 'undici';
import { selfSigned, trustingFetch } from '../middleware/surface/support/self-signed.js';

const TOKEN = 'console-command-test-token-0123456789';
let dir: string | undefined;
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function memoryIo(env: NodeJS.ProcessEnv = {}): CliIo & { firstLine: () => Promise<Record<string, string>> } {
  const stdout = new PassThrough();
  let text = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const firstLine = async (): Promise<Record<string, string>> => {
    for (let i = 0; i < 300 && !text.includes('\n'); i++) await new Promise((r) => setTimeout(r, 50));
    return JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, string>;
  };
  return { stdout, stderr: new PassThrough(), env, firstLine };
}

const FLAGS: ConsoleFlags = { host: '127.0.0.1', port: '0', stalenessThreshold: '90', refresh: '60', logLevel: 'silent' };

describe('semantic-sidecar console', () => {
  it('should serve the console over its --store (given twice, read once), behind the token of --token-file, until stopped', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sm-console-command-'));
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    const io = memoryIo();
    const stop = new AbortController();
    const running = runConsole({ ...FLAGS, store: ['memory', 'memory'], tokenFile }, io, stop.signal);
    const { console: url } = await io.firstLine();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/$/u);
    expect((await fetch(`${url}state`)).status).toBe(401);
    const state = (await (await fetch(`${url}state`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as {
      view: { stores: string[] };
    };
    expect(state.view.stores).toEqual(['memory']);
    stop.abort();
    await running;
  }, 30_000);

  it('should read several stores only as SPARQL endpoints (they are read together), and say so', async () => {
    const run = runConsole({ ...FLAGS, store: ['memory', 'http://127.0.0.1:1/sparql'] }, memoryIo(), new AbortController().signal);
    await expect(run).rejects.toThrow('reading across several stores takes SPARQL endpoints (http(s) URLs) only');
  });

  it.each([
    [['--port', '70000'], '--port'],
    [['--refresh', '0'], '--refresh'],
    [['--staleness-threshold', 'soon'], '--staleness-threshold'],
    [['--token-file', '/nonexistent/token'], '--token-file'],
  ])('should refuse %j as a usage error', async (args, flag) => {
    const io = memoryIo();
    let stderr = '';
    io.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await run(['node', 'semantic-sidecar', 'console', '--store', 'memory', ...args], io)).toBe(2);
    expect(stderr).toContain(flag);
  });
});

describe('semantic-sidecar watchdog --console-port', () => {
  it('should serve the console beside its own surface and print where', async () => {
    const io = memoryIo();
    const stop = new AbortController();
    const running = runWatchdog({ store: 'memory', port: '0', consolePort: '0', logLevel: 'silent' }, io, stop.signal);
    const ready = await io.firstLine();
    expect(ready.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/u);
    expect(ready.console).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/$/u);
    const state = (await (await fetch(`${ready.console}state`)).json()) as { view?: { stores: string[] } };
    expect(state.view?.stores).toEqual(['memory']);
    stop.abort();
    await running;
  }, 30_000);

  it('should serve the console over the TLS of its surface, its session cookie then Secure', async () => {
    const tls = await selfSigned();
    const { agent } = trustingFetch(tls.cert);
    const tokenFile = join(tls.dir, 'token');
    await writeFile(tokenFile, 'watchdog-console-tls-token-0123456789\n');
    const io = memoryIo();
    const stop = new AbortController();
    const flags = { store: 'memory', port: '0', consolePort: '0', logLevel: 'silent', httpTokenFile: tokenFile };
    const running = runWatchdog({ ...flags, httpTlsCertFile: tls.certFile, httpTlsKeyFile: tls.keyFile }, io, stop.signal);
    try {
      const ready = await io.firstLine();
      expect(ready.address).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/u);
      expect(ready.console).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/console\/$/u);
      const signIn = await undiciFetch(`${ready.console}login`, {
        method: 'POST',
        body: new URLSearchParams({ token: 'watchdog-console-tls-token-0123456789' }),
        redirect: 'manual',
        dispatcher: agent,
      });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('set-cookie')).toMatch(/; Secure$/u);
    } finally {
      stop.abort();
      await running;
      await agent.close();
      await tls.remove();
    }
  }, 30_000);
});
