import { afterEach, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { createKeepAliveFetch, type KeepAliveFetch } from '../../src/lib/keep-alive-fetch.js';
import { LIMITS } from '../../src/limits.js';
import { loopback, waitFor, type Loopback } from '../support/http-loopback.js';

const never = new AbortController().signal;

describe('the keep-alive fetch', () => {
  let server: Loopback | undefined;
  let send: KeepAliveFetch | undefined;
  afterEach(async () => {
    await send?.close();
    await server?.close();
    send = server = undefined;
  });

  it('should send method, headers and body, and give status, headers and text back, on one connection', async () => {
    server = await loopback((req, res) => {
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'x-twice': ['a', 'b'] });
      res.end(JSON.stringify({ echoed: req.headers['x-test'] }));
    });
    send = createKeepAliveFetch();
    const res = await send(`${server.url}/trigger`, { method: 'POST', headers: { 'x-test': 'yes' }, body: '{"é":1}', signal: never });
    expect([res.ok, res.status, res.headers.get('Content-Type'), res.headers.get('x-twice'), res.headers.get('x-none')]).toEqual([
      true,
      200,
      'application/json',
      'a, b',
      null,
    ]);
    expect(await res.text()).toBe('{"echoed":"yes"}');
    const missing = await send(`${server.url}/missing`, { method: 'GET', headers: {}, signal: never });
    expect([missing.ok, missing.status]).toEqual([false, 404]);
    await missing.text();
    expect(server.requests.map((r) => [r.method, r.body, r.headers['content-length']])).toEqual([
      ['POST', '{"é":1}', '8'],
      ['GET', '', undefined],
    ]);
    expect(server.opened).toBe(1);
  });

  it('should give the body as chunks while it is coming', async () => {
    let finish: (() => void) | undefined;
    server = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"first":1}\n');
      finish = () => res.end('{"second":2}\n');
    });
    send = createKeepAliveFetch();
    const res = await send(server.url, { method: 'POST', headers: {}, signal: never });
    const chunks = res.body[Symbol.asyncIterator]();
    expect(Buffer.from((await chunks.next()).value as Uint8Array).toString()).toBe('{"first":1}\n');
    finish!();
    expect(Buffer.from((await chunks.next()).value as Uint8Array).toString()).toBe('{"second":2}\n');
    expect((await chunks.next()).done).toBe(true);
  });

  it("should end with the signal's reason before the answer, and end the body after it", async () => {
    server = await loopback((req, res) => {
      if (req.url === '/head') res.writeHead(200).write('partial');
    });
    send = createKeepAliveFetch();
    const early = new AbortController();
    const pending = send(server.url, { method: 'GET', headers: {}, signal: early.signal });
    setTimeout(() => early.abort(new DOMException('no answer within 50 ms', 'TimeoutError')), 50);
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
    const late = new AbortController();
    const res = await send(`${server.url}/head`, { method: 'GET', headers: {}, signal: late.signal });
    const reading = res.text();
    late.abort(new Error('caller closed the channel'));
    await expect(reading).rejects.toThrow('caller closed the channel');
    // Each connection a cut request went out on is closed.
    expect(server.requests).toHaveLength(2);
    await waitFor(() => server!.requests.every((r) => r.socket.destroyed));
  });

  it('should refuse to read a text longer than LIMITS.httpBodyLimitBytes', async () => {
    server = await loopback((_req, res) => res.end('x'.repeat(LIMITS.httpBodyLimitBytes + 1)));
    send = createKeepAliveFetch();
    const res = await send(server.url, { method: 'GET', headers: {}, signal: never });
    await expect(res.text()).rejects.toThrow(`the answer is longer than ${LIMITS.httpBodyLimitBytes} bytes`);
  });

  it('should let close() wait for the requests in flight, then close its connections and refuse more', async () => {
    server = await loopback((_req, res) => setTimeout(() => res.end('late'), 200));
    send = createKeepAliveFetch();
    const answered = send(server.url, { method: 'GET', headers: {}, signal: never }).then((res) => res.text());
    await waitFor(() => server!.requests.length === 1);
    let closed = false;
    const closing = send.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    expect(await answered).toBe('late');
    await closing;
    await waitFor(() => server!.open === 0);
    await expect(send(server.url, { method: 'GET', headers: {}, signal: never })).rejects.toThrow(/closed/u);
  });

  it('should send an idempotent request again on a new connection when the server closed every kept-alive one, and another request not', async () => {
    // Requests are answered `batch` at a time: three answered together leave three idle connections in the pool.
    let batch = 3;
    const waiting: ServerResponse[] = [];
    server = await loopback((_req, res) => {
      waiting.push(res);
      if (waiting.length >= batch) for (const r of waiting.splice(0)) r.end('ok');
    });
    send = createKeepAliveFetch();
    const post = (body: string, idempotent?: boolean) =>
      send!(server!.url, { method: 'POST', headers: {}, body, signal: never, ...(idempotent !== undefined && { idempotent }) });
    const fillPool = async (): Promise<void> => {
      batch = 3;
      const answers = await Promise.all(['a', 'b', 'c'].map((body) => post(body)));
      expect(await Promise.all(answers.map((a) => a.text()))).toEqual(['ok', 'ok', 'ok']);
      expect(server!.sockets.size).toBe(3);
      batch = 1;
      server!.requests.length = 0;
    };
    // The server closes them all in the same tick as the request goes out: the client cannot have seen it.
    const closeEvery = (): void => server!.sockets.forEach((socket) => socket.destroy());

    await fillPool();
    const opened = server.opened;
    closeEvery();
    const resent = post('once', true);
    expect(await (await resent).text()).toBe('ok');
    expect(server.requests.map((r) => r.body)).toEqual(['once']);
    expect(server.opened).toBe(opened + 1);

    await fillPool();
    closeEvery();
    await expect(post('never again')).rejects.toMatchObject({ code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/u) });
    expect(server.requests).toEqual([]);
  });
});
