import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StoreError } from '../../src/errors.js';
import { LIMITS } from '../../src/limits.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { ensureBuilt } from '../support/build.js';
import { waitFor } from '../support/http-loopback.js';
import { ROOT } from '../support/sidecar-process.js';
import { selfSigned, type SelfSigned } from '../middleware/surface/support/self-signed.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse, index: number) => void;

interface Loopback {
  url: string;
  /** Requests received, with the connection each came on (numbered from 0 in order of opening). */
  requests: { body: string; connection: number }[];
  /** Connections opened so far, those still open, and those closed (by number). */
  opened: number;
  open: number;
  closed: number[];
  close(): Promise<void>;
}

/** A real HTTP(S) server on a loopback port chosen by the OS, counting connections and requests. */
async function loopback(handler: Handler, tls?: SelfSigned): Promise<Loopback> {
  const ids = new WeakMap<Socket, number>();
  const state: Loopback = { url: '', requests: [], opened: 0, open: 0, closed: [], close: () => Promise.resolve() };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      state.requests.push({ body, connection: ids.get(req.socket) ?? -1 });
      handler(req, body, res, state.requests.length - 1);
    });
  };
  const server: Server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, listener) : createServer(listener);
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    const id = state.opened;
    ids.set(socket, id);
    state.opened += 1;
    state.open += 1;
    socket.once('close', () => {
      state.open -= 1;
      state.closed.push(id);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}/sparql`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

const ASK_TRUE = JSON.stringify({ head: {}, boolean: true });
const answer = (res: ServerResponse, body = ASK_TRUE, status = 200): void => {
  res.writeHead(status, { 'content-type': 'application/sparql-results+json' });
  res.end(body);
};
const UPDATE = 'INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> <urn:c> } }';

async function storeError(promise: Promise<unknown>): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

describe('the remote store transport against loopback servers', () => {
  let server: Loopback | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('should send sequential requests on one kept-alive connection', async () => {
    server = await loopback((_req, _body, res) => answer(res));
    const store = openRemoteStore({ queryUrl: server.url });
    for (let i = 0; i < 5; i++) expect(await store.ask('ASK {}')).toBe(true);
    await store.update(UPDATE);
    expect(server.requests.map((r) => r.connection)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(server.opened).toBe(1);
    await store.close();
  });

  it('should open no more connections than LIMITS.remoteMaxConcurrentRequests', async () => {
    server = await loopback((_req, _body, res) => setTimeout(() => answer(res), 20));
    const store = openRemoteStore({ queryUrl: server.url });
    await Promise.all(Array.from({ length: 3 * LIMITS.remoteMaxConcurrentRequests }, () => store.ask('ASK {}')));
    expect(server.requests).toHaveLength(3 * LIMITS.remoteMaxConcurrentRequests);
    expect(server.opened).toBe(LIMITS.remoteMaxConcurrentRequests);
    await store.close();
  });

  // The server closes the reused connection on receiving the request, as a store closing an idle
  // connection does when the request crosses its close: no byte of an answer came.
  const resetSecond: Handler = (req, _body, res, index) => (index === 1 ? req.socket.destroy() : answer(res));

  it('should send a query again once when its reused connection was reset before the answer', async () => {
    server = await loopback(resetSecond);
    const store = openRemoteStore({ queryUrl: server.url });
    expect(await store.ask('ASK { 1 }')).toBe(true);
    expect(await store.ask('ASK { 2 }')).toBe(true);
    expect(server.requests.map((r) => [new URLSearchParams(r.body).get('query'), r.connection])).toEqual([
      ['ASK { 1 }', 0],
      ['ASK { 2 }', 0],
      ['ASK { 2 }', 1],
    ]);
    expect([store.requestCount, store.failedRequests]).toEqual([2, 0]);
    await store.close();
  });

  it('should never send an update again, even when its reused connection was reset before the answer', async () => {
    server = await loopback(resetSecond);
    const store = openRemoteStore({ queryUrl: server.url });
    await store.update(UPDATE);
    const err = await storeError(store.update(UPDATE));
    expect(err.message).toBe(`request to ${server.url} failed: other side closed (UND_ERR_SOCKET)`);
    expect(server.requests).toHaveLength(2);
    expect(store.failedRequests).toBe(1);
    await store.close();
  });

  it('should not send a query again when a new connection was reset (the store itself failed)', async () => {
    server = await loopback((req) => req.socket.destroy());
    const store = openRemoteStore({ queryUrl: server.url });
    const err = await storeError(store.ask('ASK {}'));
    expect(err.message).toContain('other side closed (UND_ERR_SOCKET)');
    expect(server.requests).toHaveLength(1);
  });

  it('should send a query again only once when its answer broke off before its head was complete', async () => {
    server = await loopback((req, _body, res, index) => {
      if (index === 0) return answer(res);
      // Half a head: the answer began, though no response is complete enough to be read.
      req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/spa');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const store = openRemoteStore({ queryUrl: server.url });
    await store.ask('ASK {}');
    const err = await storeError(store.ask('ASK {}'));
    expect(err.message).toBe(`request to ${server.url} failed: other side closed (UND_ERR_SOCKET)`);
    // Sent on the kept-alive connection, then once more on a new one, which broke off too.
    expect(server.requests.map((r) => r.connection)).toEqual([0, 0, 1]);
    expect([store.requestCount, store.failedRequests]).toEqual([2, 1]);
  });

  it('should cut a body that stalls after timeoutMs and close its connection', async () => {
    server = await loopback((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      res.write('{"head":{"vars":[]},');
    });
    const store = openRemoteStore({ queryUrl: server.url, timeoutMs: 150 });
    const started = Date.now();
    const err = await storeError(store.select('SELECT * {}'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(err.message).toBe(`${server.url} did not answer within 150 ms (timeoutMs)`);
    await waitFor(() => server!.closed.includes(server!.requests[0]!.connection));
  });

  it('should quote the start of an error body without the password or the encoded credentials', async () => {
    server = await loopback((req, _body, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`denied: ${req.headers.authorization ?? ''} for password s3cret-pw\n\n  ${'x'.repeat(5000)}`);
    });
    const store = openRemoteStore({ queryUrl: server.url, user: 'alice', password: 's3cret-pw' });
    const err = await storeError(store.ask('ASK {}'));
    const encoded = Buffer.from('alice:s3cret-pw').toString('base64');
    expect(err.message).toMatch(
      new RegExp(
        `^${server.url} answered HTTP 500 Internal Server Error: denied: Basic \\*\\*\\* for password \\*\\*\\* x+\\.\\.\\.$`,
        'u',
      ),
    );
    expect(err.message).not.toContain(encoded);
    expect(err.message).not.toContain('s3cret-pw');
    expect(err.httpStatus).toBe(500);
  });

  it('should name where a redirect points instead of following it', async () => {
    server = await loopback((_req, _body, res) => res.writeHead(308, { location: 'https://store.example/sparql' }).end());
    const err = await storeError(openRemoteStore({ queryUrl: server.url }).ask('ASK {}'));
    expect(err.message).toContain('answered HTTP 308');
    expect(err.message).toContain('redirected to https://store.example/sparql');
    expect(server.requests).toHaveLength(1);
  });

  it('should refuse an answer that declares more than LIMITS.remoteAnswerMaxBytes without reading it', async () => {
    server = await loopback((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json', 'content-length': LIMITS.remoteAnswerMaxBytes + 1 });
      res.write('{"head":');
    });
    const err = await storeError(openRemoteStore({ queryUrl: server.url }).select('SELECT * {}'));
    expect(err.message).toBe(
      `${server.url} answered more than ${LIMITS.remoteAnswerMaxBytes} bytes (LIMITS.remoteAnswerMaxBytes); the answer was not read`,
    );
    await waitFor(() => server!.closed.includes(server!.requests[0]!.connection));
  });

  it('should stop reading an undeclared answer once it passes LIMITS.remoteAnswerMaxBytes', async () => {
    const chunk = Buffer.alloc(1_048_576, 0x20);
    let sent = 0;
    server = await loopback((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      const more = (): void => {
        while (!res.destroyed && sent < 4 * LIMITS.remoteAnswerMaxBytes) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
      };
      res.on('error', () => undefined);
      more();
    });
    const err = await storeError(openRemoteStore({ queryUrl: server.url }).select('SELECT * {}'));
    expect(err.message).toContain('answered more than');
    await waitFor(() => server!.closed.includes(server!.requests[0]!.connection));
    expect(sent).toBeLessThan(2 * LIMITS.remoteAnswerMaxBytes);
  }, 30_000);

  it('should let close() wait for the requests in flight, then close its connections and refuse more', async () => {
    server = await loopback((_req, _body, res) => setTimeout(() => answer(res), 200));
    const store = openRemoteStore({ queryUrl: server.url });
    const asked = store.ask('ASK {}');
    await waitFor(() => server!.open === 1);
    let closed = false;
    const closing = store.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    expect(await asked).toBe(true);
    await closing;
    await waitFor(() => server!.open === 0);
    await expect(store.ask('ASK {}')).rejects.toThrow(/is closed/u);
    expect(server.requests).toHaveLength(1);
  });

  it('should send through an injected fetch, still within timeoutMs', async () => {
    server = await loopback((_req, body, res) => (body.includes('slow') ? undefined : answer(res)));
    const sent: { url: string; body: unknown; accept: unknown; type: unknown }[] = [];
    const recording: typeof fetch = (input, init) => {
      const headers = init?.headers as Record<string, string>;
      sent.push({ url: input as string, body: init?.body, accept: headers.accept, type: headers['content-type'] });
      return fetch(input, init);
    };
    const store = openRemoteStore({ queryUrl: server.url, fetch: recording, timeoutMs: 200 });
    expect(await store.ask('ASK { ?s ?p "a b+c" }')).toBe(true);
    const form = 'application/x-www-form-urlencoded';
    expect(sent).toEqual([{ url: server.url, body: expect.any(String), accept: 'application/sparql-results+json', type: form }]);
    expect(new URLSearchParams(sent[0]!.body as string).get('query')).toBe('ASK { ?s ?p "a b+c" }');
    await store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> "a b+c" } }');
    expect(sent[1]).toEqual({
      url: server.url,
      body: 'INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> "a b+c" } }',
      accept: 'application/sparql-results+json',
      type: 'application/sparql-update',
    });
    const err = await storeError(store.ask('ASK { "slow" }'));
    expect(err.message).toBe(`${server.url} did not answer within 200 ms (timeoutMs)`);
  });
});

describe('the remote store transport over HTTPS', () => {
  let tls: SelfSigned;
  let server: Loopback;
  beforeAll(async () => {
    tls = await selfSigned();
    server = await loopback((_req, _body, res) => answer(res), tls);
    await ensureBuilt();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await tls?.remove();
  });

  it('should refuse a certificate this process does not trust, and say how to trust it', async () => {
    const err = await storeError(openRemoteStore({ queryUrl: server.url }).ask('ASK {}'));
    expect(err.message).toMatch(
      /^request to https:\/\/127\.0\.0\.1:\d+\/sparql failed: .*\([A-Z_]*(CERT|SELF_SIGNED|UNABLE_TO_VERIFY)[A-Z_]*\); this process does not trust the store's certificate .*NODE_EXTRA_CA_CERTS/u,
    );
  });

  // NODE_EXTRA_CA_CERTS is read when a process starts, hence the child.
  it('should trust a CA given by NODE_EXTRA_CA_CERTS and keep one TLS connection for sequential requests', async () => {
    const before = server.opened;
    const script = `
      const { openRemoteStore } = await import(${JSON.stringify(join(ROOT, 'dist/store/remote-store.js'))});
      const store = openRemoteStore({ queryUrl: process.argv[1] });
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await store.ask('ASK {}'));
      await store.close();
      console.log(JSON.stringify(answers));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, server.url], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.certFile },
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual([true, true, true]);
    expect(server.opened - before).toBe(1);
  }, 60_000);
});
