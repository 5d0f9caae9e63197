/**
 * Event-trigger delivery with bearer tokens and TLS, against real receivers on 127.0.0.1: the
 * surface's own app (with a token, over HTTP and HTTPS) and a raw server that echoes headers.
 * Through the middleware's default (the keep-alive fetch) and through Node's fetch alike.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { TriggerDeliveryError } from '../../../src/errors.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import type { FetchFunction } from '../../../src/middleware/options.js';
import { deliverTrigger } from '../../../src/middleware/operations/trigger-delivery.js';
import { OUTCOME_STREAM_TYPE, outcomeLine } from '../../../src/middleware/operations/outcome-channel.js';
import { createKeepAliveFetch } from '../../../src/lib/keep-alive-fetch.js';
import { selfSigned, trustingFetch, type SelfSigned } from './support/self-signed.js';
import { fakeSurface, type FakeSurface } from './support/serve.js';

const TOKEN = 'receiver-token-5f3a9c1e7b2d4086';
const OPERATION = 'https://example.org/plant#OpenDoorOperation_op_00000000abcd';
const globalFetch = globalThis.fetch as unknown as FetchFunction;
const keepAliveFetch = createKeepAliveFetch();
afterAll(() => keepAliveFetch.close());

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function failure(promise: Promise<unknown>): Promise<TriggerDeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TriggerDeliveryError);
  return error as TriggerDeliveryError;
}

// What each says when the receiver's certificate is not trusted: fetch names no reason but in its cause.
// Node's own reason comes first; Node 24's adds a hint of its own ("try running Node.js with --use-system-ca").
const UNTRUSTED_CODE = '[A-Z_]*(CERT|SELF_SIGNED|UNABLE_TO_VERIFY)[A-Z_]*';
describe.each([
  [
    'the keep-alive fetch',
    keepAliveFetch as FetchFunction,
    new RegExp(
      `was not delivered: [^()]+ \\(${UNTRUSTED_CODE}\\); this process does not trust the receiver's certificate .*NODE_EXTRA_CA_CERTS`,
      'u',
    ),
  ],
  [
    "Node's fetch",
    globalFetch,
    new RegExp(
      `was not delivered: fetch failed \\(${UNTRUSTED_CODE}\\); this process does not trust the receiver's certificate .*NODE_EXTRA_CA_CERTS`,
      'u',
    ),
  ],
])('deliverTrigger with tokens through %s', (_name, send, untrusted) => {
  let tls: SelfSigned;
  const servers: Server[] = [];
  beforeAll(async () => {
    tls = await selfSigned();
  });
  afterAll(async () => tls.remove());
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  /** The surface's app requiring TOKEN, over HTTPS when `secure`. */
  async function receiver(secure = false): Promise<{ address: string; surface: FakeSurface }> {
    const surface = fakeSurface({ token: TOKEN });
    const app = createApp(surface);
    const server = secure ? createHttpsServer({ cert: tls.cert, key: tls.key }, app) : createHttpServer(app);
    servers.push(server);
    return { address: `${secure ? 'https' : 'http'}://127.0.0.1:${await listen(server)}`, surface };
  }

  /** A server answering `status` with the request's headers as its body. */
  async function echo(status: number): Promise<{ address: string; seen: IncomingHttpHeaders[] }> {
    const seen: IncomingHttpHeaders[] = [];
    const server = createHttpServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: `echo ${JSON.stringify(req.headers)}` }));
    });
    servers.push(server);
    return { address: `http://127.0.0.1:${await listen(server)}`, seen };
  }

  it('should send the token as a Bearer header and be let in', async () => {
    const { address, surface } = await receiver();
    await deliverTrigger(send, address, OPERATION, { token: TOKEN });
    expect(surface.triggered).toEqual([OPERATION]);
  });

  it('should send no Authorization header without a token', async () => {
    const { address, seen } = await echo(200);
    await deliverTrigger(send, address, OPERATION);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.authorization).toBeUndefined();
  });

  it('should say the receiver refused the token, and what to configure, without the token', async () => {
    const { address, surface } = await receiver();
    const wrong = 'some-other-token-0000000000';
    const refused = await failure(deliverTrigger(send, address, OPERATION, { token: wrong }));
    expect(refused.message).toBe(
      `event trigger of the receiver at ${address}/workflows/event_trigger/execute answered 401: the receiver refused the token sent; configure the receiver's token for ${address} in outgoingTokens.byAddress, or the plant token in outgoingTokens.default (a sidecar: outgoingTokens.byAddressFiles / defaultFile, or SIDECAR_OUTGOING_TOKEN_FILE)`,
    );
    expect(refused.status).toBe(502);
    const missing = await failure(deliverTrigger(send, address, OPERATION));
    expect(missing.message).toContain('answered 401: the receiver requires a bearer token and none is configured for it;');
    expect(surface.triggered).toEqual([]);
  });

  it("should not quote the token when a receiver's error body echoes it", async () => {
    const { address, seen } = await echo(500);
    const error = await failure(deliverTrigger(send, address, OPERATION, { token: TOKEN }));
    expect(seen[0]!.authorization).toBe(`Bearer ${TOKEN}`);
    expect(error.message).toContain('answered 500: {"detail":"echo');
    expect(error.message).toContain('Bearer [redacted]');
    expect(error.message).not.toContain(TOKEN);
  });

  // An undici Agent can be given the CA in this process. The keep-alive fetch trusts what the
  // process trusts: NODE_EXTRA_CA_CERTS, read at start (test/e2e/auth.test.ts runs sidecars so).
  if (send === globalFetch) {
    it('should deliver over HTTPS to a receiver whose certificate it trusts', async () => {
      const { address, surface } = await receiver(true);
      const { fetch, agent } = trustingFetch(tls.cert);
      try {
        await deliverTrigger(fetch, address, OPERATION, { token: TOKEN });
      } finally {
        await agent.close();
      }
      expect(address.startsWith('https://')).toBe(true);
      expect(surface.triggered).toEqual([OPERATION]);
    });
  }

  it('should name the untrusted certificate and how to trust it', async () => {
    const { address, surface } = await receiver(true);
    const error = await failure(deliverTrigger(send, address, OPERATION, { token: TOKEN }));
    expect(error.message).toMatch(untrusted);
    expect(surface.triggered).toEqual([]);
  });
});

describe('deliverTrigger through the keep-alive fetch, without an answer', () => {
  it('should name a refused connection with its code', async () => {
    const server = createHttpServer();
    const port = await listen(server);
    await new Promise((r) => server.close(r));
    const error = await failure(deliverTrigger(keepAliveFetch, `http://127.0.0.1:${port}`, OPERATION));
    expect(error.message).toBe(
      `event trigger of the receiver at http://127.0.0.1:${port}/workflows/event_trigger/execute was not delivered: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('should give up after timeoutMs and close the connection', async () => {
    // The connection the trigger went out on: it must be closed, not kept waiting for an answer.
    const rung: Socket[] = [];
    const server = createHttpServer((req) => void rung.push(req.socket));
    const port = await listen(server);
    try {
      const error = await failure(deliverTrigger(keepAliveFetch, `http://127.0.0.1:${port}`, OPERATION, { timeoutMs: 200 }));
      expect(error.message).toMatch(/was not delivered: no answer within 200 ms$/u);
      expect(rung).toHaveLength(1);
      for (let i = 0; i < 100 && !rung[0]!.destroyed; i++) await new Promise((r) => setTimeout(r, 10));
      expect(rung[0]!.destroyed).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("deliverTrigger's outcome channel through the keep-alive fetch", () => {
  /** A receiver that answers every trigger on the outcome channel; it counts the connections it was opened. */
  async function channelReceiver(tail: string): Promise<{ address: string; connections: () => number; server: Server }> {
    let connections = 0;
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': OUTCOME_STREAM_TYPE });
        res.write(`${JSON.stringify({ operation: OPERATION, status: 'queued' })}\n`);
        setTimeout(
          () =>
            res.end(
              outcomeLine({ operationIri: OPERATION, status: 'done', result: 'opened', claimedAt: new Date(), finishedAt: new Date() }) +
                tail,
            ),
          5,
        );
      });
    });
    server.on('connection', () => (connections += 1));
    return { address: `http://127.0.0.1:${await listen(server)}`, connections: () => connections, server };
  }

  it('should read each outcome to the end of its response, so consecutive triggers reuse their connections', async () => {
    const receiver = await channelReceiver('');
    try {
      for (let i = 0; i < 10; i++) {
        const delivered = await deliverTrigger(keepAliveFetch, receiver.address, OPERATION, { outcome: true });
        expect(await delivered.outcome).toMatchObject({ status: 'done', result: 'opened' });
      }
      // The outcome is told before its response has ended: the next trigger may find that
      // connection still busy and open a second one, but no more.
      expect(receiver.connections()).toBeLessThanOrEqual(2);
    } finally {
      receiver.server.closeAllConnections();
      await new Promise((r) => receiver.server.close(r));
    }
  });

  it('should close the connection of a receiver that sends more than its outcome', async () => {
    const receiver = await channelReceiver('x'.repeat(3 * 1024 * 1024));
    try {
      for (let i = 0; i < 2; i++) {
        const delivered = await deliverTrigger(keepAliveFetch, receiver.address, OPERATION, { outcome: true });
        expect(await delivered.outcome).toMatchObject({ status: 'done' });
      }
      expect(receiver.connections()).toBe(2);
    } finally {
      receiver.server.closeAllConnections();
      await new Promise((r) => receiver.server.close(r));
    }
  });
});
