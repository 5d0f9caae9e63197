/**
 * Dispatch between middleware instances whose surfaces require a token and serve HTTPS, on the
 * embedded store and on Virtuoso (SPARQL_ENDPOINT): the caller sends the receiver's token, a
 * refused token reverts the Operation, and neither logs nor the activity feed hold a secret.
 */
import { describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import { TriggerDeliveryError } from '../../../src/errors.js';
import type { SemanticMiddleware, SemanticMiddlewareOptions } from '../../../src/middleware/index.js';
import { svc } from '../../../src/vocab/index.js';
import { rejection } from '../../support/per-store.js';
import { logSink, middlewareSuite, OPEN_REQUEST } from '../support/harness.js';
import { selfSigned, trustingFetch, type SelfSigned } from './support/self-signed.js';

const G = `urn:test:middleware:auth-dispatch:${randomUUID()}`;
const DOOR_TOKEN = `door-${randomUUID()}`;
const PLANT_TOKEN = `plant-${randomUUID()}`;

describe.each(['embedded', 'remote'] as const)('dispatch with tokens and TLS on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  /** Runs `fn` with a fresh certificate and a fetch that trusts it, and cleans both up. */
  async function withTls(fn: (tls: SelfSigned, fetch: SemanticMiddlewareOptions['fetch']) => Promise<void>): Promise<void> {
    const tls = await selfSigned();
    let agent: Agent | undefined;
    try {
      const trusting = trustingFetch(tls.cert);
      agent = trusting.agent;
      await fn(tls, trusting.fetch);
    } finally {
      await agent?.close();
      await tls.remove();
    }
  }

  /** The door controller over HTTPS with DOOR_TOKEN, started; it answers `opened`. */
  async function secureDoor(tls: SelfSigned, extra: Partial<SemanticMiddlewareOptions> = {}): Promise<SemanticMiddleware> {
    const door = suite.controller({ httpToken: DOOR_TOKEN, tls: { cert: tls.cert, key: tls.key }, ...extra });
    door.registerCallback(() => 'opened');
    await door.start();
    return door;
  }

  onStore(
    "should register an https:// address and run an Operation dispatched with the door's token",
    async () => {
      await withTls(async (tls, fetch) => {
        const door = await secureDoor(tls);
        expect(door.address).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/u);
        const registered = await suite.store!.select(`SELECT ?a WHERE { GRAPH <${G}> { <${door.serviceIri}> <${svc.address}> ?a } }`);
        expect(registered.map((b) => b.a?.value)).toEqual([door.address]);
        // The plant token is wrong for the door: its own entry must win.
        const caller = suite.create({
          mode: 'watchdog',
          fetch,
          outgoingTokens: { default: PLANT_TOKEN, byAddress: { [door.address!]: DOOR_TOKEN } },
        });
        const op = await caller.request(OPEN_REQUEST);
        expect(await caller.waitForOperation(op, { timeoutMs: 15_000 })).toMatchObject({
          operationIri: op,
          status: 'done',
          result: 'opened',
        });
      });
    },
    60_000,
  );

  onStore(
    'should revert the Operation when the door refuses the token, with no secret in the error, logs or feed',
    async () => {
      await withTls(async (tls, fetch) => {
        const door = await secureDoor(tls, { heartbeatInterval: null });
        const sink = logSink();
        const caller = suite.create({
          mode: 'watchdog',
          fetch,
          activityFeed: true,
          logger: sink.logger,
          outgoingTokens: { default: PLANT_TOKEN },
        });
        const before = await suite.dump();
        const refused = await rejection(caller.request(OPEN_REQUEST));
        expect(refused).toBeInstanceOf(TriggerDeliveryError);
        expect((refused as Error).message).toContain('answered 401: the receiver refused the token sent');
        expect(await suite.dump()).toBe(before);
        const none = suite.create({ mode: 'watchdog', fetch, activityFeed: true, logger: sink.logger });
        expect(((await rejection(none.request(OPEN_REQUEST))) as Error).message).toContain(
          'requires a bearer token and none is configured',
        );
        expect(await suite.dump()).toBe(before);
        expect(door.queued).toEqual([]);
        const feed = JSON.stringify([...caller.activity!.entries().entries, ...none.activity!.entries().entries]);
        expect(feed).toContain('"kind":"reverted"');
        const logs = JSON.stringify(sink.lines());
        expect(logs).toContain('event trigger not delivered');
        for (const text of [(refused as Error).message, feed, logs]) {
          expect(text).not.toContain(PLANT_TOKEN);
          expect(text).not.toContain(DOOR_TOKEN);
        }
      });
    },
    60_000,
  );

  onStore(
    'should warn when the surface listens beyond loopback without a token, naming the host',
    async () => {
      const exposed = logSink('warn');
      await suite.create({ mode: 'watchdog', host: '0.0.0.0', address: 'http://door1.plant.local:8000', logger: exposed.logger }).start();
      const warning = exposed.lines().find((l) => typeof l.msg === 'string' && l.msg.includes('without a token'));
      expect(warning).toMatchObject({ level: 40, host: '0.0.0.0' });
      expect(warning!.msg).toContain('listens on 0.0.0.0');
      expect(warning!.msg).toContain('httpToken');
      expect(warning!.msg).toContain('http.tokenFile');
      const guarded = logSink('warn');
      await suite
        .create({
          mode: 'watchdog',
          host: '0.0.0.0',
          address: 'http://door1.plant.local:8000',
          httpToken: DOOR_TOKEN,
          logger: guarded.logger,
        })
        .start();
      const loopback = logSink('warn');
      await suite.create({ mode: 'watchdog', logger: loopback.logger }).start();
      expect([...guarded.lines(), ...loopback.lines()].filter((l) => String(l.msg).includes('without a token'))).toEqual([]);
    },
    60_000,
  );
});
