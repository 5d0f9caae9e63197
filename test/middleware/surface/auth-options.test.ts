/**
 * The security options of SemanticMiddleware (httpToken, outgoingTokens, tls) as the constructor
 * validates them, the choice of the outgoing token, and what counts as loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ValueError } from '../../../src/errors.js';
import { isLoopbackHost } from '../../../src/http/loopback.js';
import { outgoingTokenFor } from '../../../src/middleware/surface/security-options.js';
import { resolveOptions } from '../../../src/middleware/resolve-options.js';
import type { SemanticMiddlewareOptions } from '../../../src/middleware/options.js';
import { OGM } from '../../../src/ogm/index.js';
import { openEmbeddedStore } from '../../../src/store/embedded-store.js';
import type { TripleStore } from '../../../src/store/triple-store.js';
import { silent } from '../support/harness.js';
import { selfSigned, type SelfSigned } from './support/self-signed.js';

const TOKEN = 'plant-token-0123456789abcdef';
const ROBOT = 'robot-token-fedcba9876543210';

describe('security options of SemanticMiddleware', () => {
  let store: TripleStore;
  let ogm: OGM;
  let tls: SelfSigned;
  let other: SelfSigned;
  beforeAll(async () => {
    store = await openEmbeddedStore({});
    ogm = new OGM({ store });
    [tls, other] = await Promise.all([selfSigned(), selfSigned()]);
  });
  afterAll(async () => {
    await store.close();
    await tls.remove();
    await other.remove();
  });

  const resolve = (extra: Partial<SemanticMiddlewareOptions>) => resolveOptions({ mode: 'watchdog', ogm, logger: silent, ...extra });
  /** The ValueError `extra` makes the constructor throw; its message must hold no secret. */
  const refusal = (extra: Partial<SemanticMiddlewareOptions>, secrets: string[] = []): string => {
    let error: unknown;
    try {
      resolve(extra);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValueError);
    const message = (error as Error).message;
    for (const secret of secrets) expect(message).not.toContain(secret);
    return message;
  };

  it('should default to no token, no outgoing tokens and plain HTTP', () => {
    const options = resolve({});
    expect([options.httpToken, options.outgoingTokens, options.tls]).toEqual([undefined, undefined, undefined]);
    expect(resolve({ httpToken: null, outgoingTokens: null, tls: null }).httpToken).toBeUndefined();
  });

  it('should accept a good httpToken and refuse weak ones without quoting them', () => {
    expect(resolve({ httpToken: TOKEN }).httpToken).toBe(TOKEN);
    expect(refusal({ httpToken: 'tiny-token' }, ['tiny-token'])).toBe('httpToken is 10 characters long; use at least 16');
    expect(refusal({ httpToken: `${TOKEN} two` }, [TOKEN])).toMatch(/^httpToken must hold only visible ASCII/u);
    expect(refusal({ httpToken: 42 as unknown as string })).toBe('httpToken must be a string, got number');
  });

  it('should normalize outgoingTokens.byAddress keys and keep the default', () => {
    const { outgoingTokens } = resolve({ outgoingTokens: { default: TOKEN, byAddress: { 'HTTPS://Robot1.Plant.local:8443/': ROBOT } } });
    expect(outgoingTokens?.default).toBe(TOKEN);
    expect([...outgoingTokens!.byAddress]).toEqual([['https://robot1.plant.local:8443', ROBOT]]);
    expect(resolve({ outgoingTokens: { byAddress: { 'http://a:1': ROBOT, 'HTTP://A:1/': ROBOT } } }).outgoingTokens?.byAddress.size).toBe(
      1,
    );
  });

  it('should refuse bad outgoingTokens, naming the key but never the token', () => {
    expect(refusal({ outgoingTokens: TOKEN as never }, [TOKEN])).toBe(
      'outgoingTokens must be an object { default?, byAddress? }, got a string',
    );
    expect(refusal({ outgoingTokens: { default: 'short' } })).toBe('outgoingTokens.default is 5 characters long; use at least 16');
    expect(refusal({ outgoingTokens: { byAddress: ROBOT as never } }, [ROBOT])).toBe(
      'outgoingTokens.byAddress must be an object keyed by address, got a string',
    );
    expect(refusal({ outgoingTokens: { byAddress: { 'ftp://robot1': ROBOT } } }, [ROBOT])).toMatch(
      /^outgoingTokens\.byAddress key "ftp:\/\/robot1" is not an absolute http\(s\) URL/u,
    );
    expect(refusal({ outgoingTokens: { byAddress: { 'http://robot1:1': 'short' } } })).toBe(
      'outgoingTokens.byAddress["http://robot1:1"] is 5 characters long; use at least 16',
    );
    expect(refusal({ outgoingTokens: { byAddress: { 'http://r:1': ROBOT, 'http://R:1/': TOKEN } } }, [ROBOT, TOKEN])).toBe(
      'outgoingTokens.byAddress names "http://r:1" twice with different tokens',
    );
    expect(refusal({ outgoingTokens: { defualt: TOKEN } as never }, [TOKEN])).toBe(
      'outgoingTokens has the unknown key "defualt" (expected default, byAddress)',
    );
  });

  it('should accept a certificate and its key, and refuse what cannot serve TLS without showing the key', () => {
    expect(resolve({ tls: { cert: tls.cert, key: tls.key } }).tls).toEqual({ cert: tls.cert, key: tls.key });
    const keyLine = tls.key.split('\n')[1]!;
    expect(refusal({ tls: tls.key as never }, [keyLine])).toBe('tls must be an object { cert, key } of PEM text, got a string');
    expect(refusal({ tls: { cert: tls.cert, key: 'secret' } }, ['secret'])).toBe(
      'tls.key must be PEM text (-----BEGIN ...), got text without a PEM block',
    );
    expect(refusal({ tls: { cert: tls.cert } as never })).toBe('tls.key must be PEM text (-----BEGIN ...), got nothing');
    expect(refusal({ tls: { cert: tls.cert, key: other.key } }, [keyLine, other.key.split('\n')[1]!])).toMatch(
      /^tls\.cert and tls\.key are not a usable certificate and private key: .*key values mismatch/u,
    );
  });
});

describe('outgoingTokenFor', () => {
  const tokens = { default: TOKEN, byAddress: new Map([['https://robot1.plant.local:8443', ROBOT]]) };

  it("should pick the receiver's own token by normalized address, else the default", () => {
    expect(outgoingTokenFor(tokens, 'https://robot1.plant.local:8443')).toBe(ROBOT);
    expect(outgoingTokenFor(tokens, 'HTTPS://Robot1.plant.local:8443/')).toBe(ROBOT);
    expect(outgoingTokenFor(tokens, 'https://robot1.plant.local:8444')).toBe(TOKEN);
    expect(outgoingTokenFor(tokens, 'not a url')).toBe(TOKEN);
  });

  it('should give nothing without tokens or without a default for an unknown receiver', () => {
    expect(outgoingTokenFor(undefined, 'https://robot1.plant.local:8443')).toBeUndefined();
    expect(outgoingTokenFor({ default: undefined, byAddress: tokens.byAddress }, 'https://door1:1')).toBeUndefined();
  });
});

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    'should take %s for loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each([
    '0.0.0.0',
    '::',
    '10.0.0.5',
    '192.168.1.10',
    'door1.plant.local',
    '128.0.0.1',
    '::ffff:10.0.0.1',
    'fe80::1',
    'localhost.example.com',
  ])('should take %s for exposed', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
