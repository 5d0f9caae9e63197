import { afterEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KeepAliveClient } from '../../src/lib/keep-alive-client.js';
import { Pool, POOL_OPTIONS, RequestCut } from '../../src/lib/undici-pool.js';
import { exchangeWhole, type WholeRequest } from '../../src/lib/whole-exchange.js';
import { loopback, waitFor, type Loopback } from '../support/http-loopback.js';

const post = (body: string, cut = new RequestCut(), extra: Partial<WholeRequest> = {}): WholeRequest => ({
  method: 'POST',
  path: '/x',
  headers: { 'content-type': 'text/plain' },
  body,
  cut,
  ...extra,
});

describe('exchangeWhole', () => {
  let server: Loopback | undefined;
  let pool: InstanceType<typeof Pool> | undefined;
  afterEach(async () => {
    await pool?.destroy();
    await server?.close();
    pool = undefined;
    server = undefined;
  });
  const open = async (handler: (req: IncomingMessage, res: ServerResponse) => void, connections?: number) => {
    server = await loopback(handler);
    pool = new Pool(server.url, { ...POOL_OPTIONS, ...(connections !== undefined && { connections }) });
    return pool;
  };

  it('should read the whole answer: status, reason phrase, headers by name and the body, on a kept-alive connection', async () => {
    const p = await open((req, res) => {
      res.statusMessage = 'Fine Thanks';
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('X-Twice', ['a', 'b']);
      res.write('{"echo":');
      setTimeout(() => res.end(`${JSON.stringify(`${req.method} ${req.url}`)}}`), 5);
    });
    let heads = 0;
    for (const body of ['one', 'two']) {
      const answer = await exchangeWhole(p, post(body, undefined, { onHead: () => (heads += 1) }), 1000);
      expect(answer.statusCode).toBe(200);
      expect(answer.statusMessage).toBe('Fine Thanks');
      expect([answer.header('content-type'), answer.header('x-twice'), answer.header('location')]).toEqual([
        'application/json',
        'a, b',
        undefined,
      ]);
      expect([JSON.parse(answer.body.bytes.toString()), answer.body.complete]).toEqual([{ echo: 'POST /x' }, true]);
    }
    expect(server!.requests.map((r) => r.body)).toEqual(['one', 'two']);
    expect([heads, server!.opened]).toEqual([2, 1]);
  });

  it('should give an empty body as empty bytes, and a status other than 2xx as it is', async () => {
    const p = await open((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    const answer = await exchangeWhole(p, post(''), 10);
    expect([answer.statusCode, answer.body.bytes.length, answer.body.complete]).toEqual([503, 0, true]);
  });

  it('should refuse a body from its declared length without reading it, closing the connection', async () => {
    const p = await open((_req, res) => res.end('x'.repeat(5000)));
    const answer = await exchangeWhole(p, post('a'), 100);
    expect([answer.statusCode, answer.body.bytes.length, answer.body.complete]).toEqual([200, 0, false]);
    await waitFor(() => server!.requests[0]!.socket.destroyed);
  });

  it('should keep the first maxBytes of a longer body that declared no length, and close the connection', async () => {
    const p = await open((_req, res) => {
      res.write('abcdef');
      setTimeout(() => res.write('ghijkl'), 5);
      setTimeout(() => res.end('mnop'), 10);
    });
    const answer = await exchangeWhole(p, post('a'), 8);
    expect([answer.body.bytes.toString(), answer.body.complete]).toEqual(['abcdefgh', false]);
    await waitFor(() => server!.requests[0]!.socket.destroyed);
  });

  it('should skip an informational answer and read the one after it', async () => {
    const p = await open((_req, res) => {
      res.writeProcessing();
      setTimeout(() => res.end('done'), 5);
    });
    const answer = await exchangeWhole(p, post('a'), 100);
    expect([answer.statusCode, answer.body.bytes.toString()]).toEqual([200, 'done']);
  });

  it("should reject with the connection's error when the server goes away in the middle of the body", async () => {
    const p = await open((_req, res) => {
      res.setHeader('content-length', '100');
      res.write('partial');
      setTimeout(() => res.socket!.destroy(), 10);
    });
    await expect(exchangeWhole(p, post('a'), 1000)).rejects.toMatchObject({
      code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET)$/u),
    });
  });

  it("should reject with the cut's reason before the head, during the body, or at once when cut before it was sent", async () => {
    const p = await open((req, res) => {
      if (req.url === '/slow-head') return; // never answered
      res.write('start');
    });
    const reason = new Error('stopped waiting');
    const beforeHead = new RequestCut();
    const waiting = exchangeWhole(p, post('a', beforeHead, { path: '/slow-head' }), 100);
    await waitFor(() => server!.requests.length === 1);
    beforeHead.cut(reason);
    await expect(waiting).rejects.toBe(reason);

    const duringBody = new RequestCut();
    let head = false;
    const reading = exchangeWhole(p, post('b', duringBody, { onHead: () => (head = true) }), 100);
    await waitFor(() => head);
    duringBody.cut(reason);
    await expect(reading).rejects.toBe(reason);

    const early = new RequestCut();
    early.cut(reason);
    await expect(exchangeWhole(p, post('c', early), 100)).rejects.toBe(reason);
    expect(server!.requests.map((r) => r.body)).toEqual(['a', 'b']);
  });

  it('should reject a cut request at once while it waits for a connection, and never send it', async () => {
    let held: ServerResponse | undefined;
    const p = await open((req, res) => (req.url === '/held' ? (held = res) : res.end('ok')), 1);
    const first = exchangeWhole(p, post('first', undefined, { path: '/held' }), 100);
    await waitFor(() => held !== undefined);
    const cut = new RequestCut();
    const queued = exchangeWhole(p, post('queued', cut), 100);
    const reason = new Error('gave up');
    cut.cut(reason);
    await expect(queued).rejects.toBe(reason);
    held!.end('ok');
    expect((await first).body.bytes.toString()).toBe('ok');
    // When the connection came free the queued request was dropped, not written.
    expect((await exchangeWhole(p, post('after'), 100)).statusCode).toBe(200);
    expect(server!.requests.map((r) => r.body)).toEqual(['first', 'after']);
  });
});

describe('KeepAliveClient.sendWhole', () => {
  let server: Loopback | undefined;
  let client: KeepAliveClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
  });

  it('should send a read again when its kept-alive connection was closed before the answer, and an update not', async () => {
    server = await loopback((_req, res) => res.end('ok'));
    client = new KeepAliveClient();
    const target = client.target(`${server.url}/q`);
    const send = (body: string, idempotent: boolean) => client!.sendWhole(target, { method: 'POST', headers: {}, body, idempotent }, 100);
    expect((await send('warm', false)).body.bytes.toString()).toBe('ok');
    const opened = server.opened;
    server.sockets.forEach((socket) => socket.destroy());
    expect((await send('read', true)).body.bytes.toString()).toBe('ok');
    expect(server.opened).toBe(opened + 1);

    server.sockets.forEach((socket) => socket.destroy());
    await expect(send('update', false)).rejects.toMatchObject({ code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/u) });
    expect(server.requests.map((r) => r.body)).toEqual(['warm', 'read']);
  });

  it('should not send a read again when its kept-alive connection closed after the head came', async () => {
    server = await loopback((req, res) => {
      if (req.url === '/warm') return res.end('ok');
      res.setHeader('content-length', '100');
      res.write('partial');
      setTimeout(() => res.socket!.destroy(), 10);
    });
    client = new KeepAliveClient();
    const send = (path: string) =>
      client!.sendWhole(client!.target(`${server!.url}${path}`), { method: 'GET', headers: {}, idempotent: true }, 1000);
    await send('/warm');
    await expect(send('/partial')).rejects.toMatchObject({ code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET)$/u) });
    expect(server.requests).toHaveLength(2);
    expect(server.opened).toBe(1);
  });

  it('should fail an exchange that outlives its time with a TimeoutError, and close() should wait for one in flight', async () => {
    let answer: ServerResponse | undefined;
    server = await loopback((req, res) => {
      if (req.url === '/late') answer = res;
    });
    client = new KeepAliveClient();
    await expect(
      client.sendWhole(client.target(`${server.url}/never`), { method: 'GET', headers: {}, timeoutMs: 50 }, 100),
    ).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    const late = client.sendWhole(client.target(`${server.url}/late`), { method: 'GET', headers: {} }, 100);
    await waitFor(() => answer !== undefined);
    let closed = false;
    const closing = client.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(false);
    answer!.end('late');
    expect((await late).body.bytes.toString()).toBe('late');
    await closing;
    await expect(client.sendWhole(client.target(server.url), { method: 'GET', headers: {} }, 100)).rejects.toThrow(/closed/u);
  });
});
