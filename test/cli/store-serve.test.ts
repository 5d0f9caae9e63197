import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { svc, w3 } from '../../src/vocab/index.js';
import { buildCli, cli, logLines, serve } from './support/cli-process.js';

let dir: string;

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  dir = await mkdtemp(join(tmpdir(), 'sm-serve-'));
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const INSERT = 'INSERT DATA { GRAPH <urn:test:g> { <urn:test:s> <urn:test:p> "kept" } }';
const KEPT = 'ASK { GRAPH <urn:test:g> { <urn:test:s> <urn:test:p> "kept" } }';

describe('semantic-sidecar store serve', () => {
  it('should print its help with examples and exit codes', () => {
    const result = cli(['store', 'serve', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('$ semantic-sidecar store serve --data-dir /var/lib/semantic-sidecar --provision');
    expect(result.stdout).toContain('Exit codes: 0 stopped by a signal');
    expect(result.stdout).toContain("A query's default graph is\nthe union of all graphs");
  });

  it('should serve a provisioned data dir, and on SIGTERM flush it and release the lock', async () => {
    const dataDir = join(dir, 'store');
    const server = await serve(['--data-dir', dataDir, '--port', '0', '--provision', '--log-level', 'debug']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sparql$/u);
    const client = openRemoteStore({ queryUrl: server.url });
    expect(await client.ask(`ASK { GRAPH ?g { <${svc.Service}> <${w3.type}> ?t } }`)).toBe(true);
    await client.update(INSERT);
    // A stock client's GRAPH-less CONSTRUCT reads the union of the provisioned graphs and the data.
    const construct = `CONSTRUCT { ?s <${w3.type}> ?t } WHERE { VALUES ?s { <${svc.Service}> } ?s <${w3.type}> ?t }`;
    const turtle = await fetch(`${server.url}?query=${encodeURIComponent(construct)}`, { headers: { accept: 'text/turtle' } });
    expect(turtle.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    expect(await turtle.text()).toContain(`<${svc.Service}> a <http://www.w3.org/2002/07/owl#Class>`);
    const union = await fetch(`${server.url}?query=${encodeURIComponent(KEPT.replace('GRAPH <urn:test:g> ', ''))}`);
    expect(await union.json()).toEqual({ head: {}, boolean: true });
    // The data dir is locked while served: a second server on it fails and says why.
    const second = cli(['store', 'serve', '--data-dir', dataDir, '--port', '0']);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`embedded store data dir ${dataDir} is in use by process ${server.child.pid}`);
    const { code, stdout, stderr } = await server.stop('SIGTERM');
    expect(code).toBe(0);
    expect(stdout).toBe(`${server.url}\n`);
    const lines = logLines(stderr);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'sparql request', kind: 'update', status: 204 }));
    const messages = lines.map((l) => l.msg);
    expect(messages.at(-1)).toBe('store stopped');
    expect(messages.indexOf('store stopping')).toBeGreaterThan(messages.lastIndexOf('sparql request'));
    const reopened = await openEmbeddedStore({ dataDir });
    expect(await reopened.ask(KEPT)).toBe(true);
    await reopened.close();
  });

  it('should stop on SIGINT too, and keep nothing with --memory', async () => {
    const server = await serve(['--memory', '--port', '0']);
    await openRemoteStore({ queryUrl: server.url }).update(INSERT);
    const { code, stderr } = await server.stop('SIGINT');
    expect(code).toBe(0);
    expect(logLines(stderr)).toContainEqual(expect.objectContaining({ msg: 'store stopping', reason: 'SIGINT' }));
  });

  it('should serve on a Unix socket with --socket, at the http+unix URL it prints, which a remote store takes', async () => {
    const socket = join(dir, 'store.sock');
    const server = await serve(['--memory', '--socket', socket]);
    expect(server.url).toBe(`http+unix://${encodeURIComponent(socket)}/sparql`);
    const client = openRemoteStore({ queryUrl: server.url });
    expect(client.description).toBe(`SPARQL endpoint ${server.url}`);
    expect(await client.ask(KEPT)).toBe(false);
    await client.update(INSERT);
    expect(await client.ask(KEPT)).toBe(true);
    await client.close();
    // The command line takes it as a store too.
    const found = cli(['discover', '--capability', 'urn:test:Nothing', '--store', server.url]);
    expect([found.status, found.stderr]).toEqual([
      1,
      expect.stringContaining('no reachable Service realizes a Capability of class <urn:test:Nothing>'),
    ]);
    expect((await server.stop()).code).toBe(0);
  });

  it('should refuse an http+unix URL that names no socket path, and one given with a fetch of its own', () => {
    for (const queryUrl of ['http+unix:///sparql', 'http+unix://store.sock/sparql', 'http+unix://%E0%A4%A/sparql']) {
      expect(() => openRemoteStore({ queryUrl })).toThrow('an http+unix URL names its socket as its host, percent-encoded');
    }
    expect(() => openRemoteStore({ queryUrl: `http+unix://${encodeURIComponent(join(dir, 's.sock'))}/sparql`, fetch })).toThrow(
      'a given fetch cannot send to a Unix socket',
    );
  });

  it('should require the token from --token-file when one is given', async () => {
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'a-long-enough-token\n');
    const server = await serve(['--memory', '--port', '0', '--host', '0.0.0.0', '--token-file', tokenFile]);
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${url}?query=ASK%7B%7D`)).status).toBe(401);
    expect(await openRemoteStore({ queryUrl: url, user: 'sidecar', password: 'a-long-enough-token' }).ask('ASK {}')).toBe(true);
    expect((await server.stop()).code).toBe(0);
  });

  it('should exit 1 naming a port in use', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    const result = cli(['store', 'serve', '--memory', '--port', String(port)]);
    holder.close();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`127.0.0.1:${port} is already in use`);
    expect(result.stdout).toBe('');
  });

  it('should exit 2 on usage errors, naming the flag', () => {
    const cases: [string[], string][] = [
      [[], 'needs exactly one of --data-dir <dir> (durable) or --memory (ephemeral)'],
      [['--memory', '--data-dir', dir], "option '--data-dir <dir>' cannot be used with option '--memory'"],
      [['--memory', '--port', 'http'], '--port must be a whole number from 0 to 65535, got "http"'],
      [['--memory', '--host', 'example.org'], '--host must be an IP address or localhost'],
      [['--memory', '--host', '0.0.0.0'], 'is not loopback: serving the store beyond this machine needs --token-file'],
      [['--memory', '--token-file', join(dir, 'missing')], 'cannot be read: ENOENT'],
    ];
    for (const [args, message] of cases) {
      const result = cli(['store', 'serve', ...args]);
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 2, stderr: expect.stringContaining(message) });
    }
  });
});
