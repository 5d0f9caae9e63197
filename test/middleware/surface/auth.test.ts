import { afterEach, describe, expect, it } from '@jest/globals';
import { ValueError } from '../../../src/errors.js';
import { LIMITS } from '../../../src/limits.js';
import { ActivityFeed } from '../../../src/middleware/runtime/activity-feed.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import { BEARER_REALM, presentedToken, tokenProblem } from '../../../src/http/bearer-auth.js';
import { bearerAuth } from '../../../src/http/token-callers.js';
import type { HttpSurface } from '../../../src/middleware/surface/contract.js';
import { fakeSurface, jsonOf, logSink, post, serve, type FakeSurface, type Served } from './support/serve.js';
import { openSse } from './support/sse-client.js';

const TOKEN = 'door1-http-token-Q7w2e9r4t6y8';
const WRONG = 'not-the-token-X1c3v5b7n9m2';
const TRIGGER = '/workflows/event_trigger/execute';
const OPERATION = 'https://example.org/plant#OpenDoorOperation_op_0123456789ab';
const CHALLENGE = `Bearer realm="${BEARER_REALM}"`;
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

describe('createApp with a bearer token', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });
  const start = async (
    parts: Partial<HttpSurface> = {},
    logger = logSink(),
  ): Promise<{ url: string; surface: FakeSurface; lines: Record<string, unknown>[] }> => {
    const surface = fakeSurface({ token: TOKEN, activity: new ActivityFeed(10), ...parts }, logger.logger);
    surface.workflows.set('open', (args) => ({ opened: args.angle ?? null }));
    surface.states.set('door', () => 'closed');
    served = await serve(createApp(surface));
    return { url: served.url, surface, lines: logger.lines };
  };

  /** Every protected request, with `headers`. */
  const protectedCalls = (url: string, headers: Record<string, string>): [string, Promise<Response>][] => [
    [`POST ${TRIGGER}`, post(`${url}${TRIGGER}`, { operation_iri: OPERATION }, headers)],
    ['POST /workflows/open/execute', post(`${url}/workflows/open/execute`, { angle: 90 }, headers)],
    ['POST /workflows/nobody/execute', post(`${url}/workflows/nobody/execute`, undefined, headers)],
    ['GET /state/door', fetch(`${url}/state/door`, { headers })],
    ['GET /activity', fetch(`${url}/activity`, { headers })],
    ['GET /activity/stream', fetch(`${url}/activity/stream`, { headers })],
    ['GET /nope', fetch(`${url}/nope`, { headers })],
    ['POST /healthz', fetch(`${url}/healthz`, { method: 'POST', headers })],
  ];

  it('should keep the root, the favicon and the probes open', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/`)).status).toBe(200);
    expect((await fetch(`${url}/favicon.ico`)).status).toBe(204);
    expect(await jsonOf(await fetch(`${url}/healthz`))).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await jsonOf(await fetch(`${url}/readyz`))).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await fetch(`${url}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });

  it('should answer 401 JSON with a Bearer challenge to every other request without a token', async () => {
    const { url, surface } = await start();
    for (const [name, call] of protectedCalls(url, {})) {
      const res = await call;
      expect([name, res.status, res.headers.get('www-authenticate')]).toEqual([name, 401, CHALLENGE]);
      const { body } = await jsonOf(res);
      expect((body as { detail: string }).detail).toContain('Authorization: Bearer <token>');
    }
    // Nothing behind the check ran: no trigger, not even a workflow lookup.
    expect(surface.triggered).toEqual([]);
    expect(surface.workflowLookups).toEqual([]);
  });

  it('should answer a wrong token with error="invalid_token" and never echo it', async () => {
    const { url, surface, lines } = await start();
    for (const token of [WRONG, `${TOKEN}x`, TOKEN.slice(0, -1), TOKEN.toUpperCase()]) {
      for (const [name, call] of protectedCalls(url, bearer(token))) {
        const res = await call;
        expect([name, res.status, res.headers.get('www-authenticate')]).toEqual([name, 401, `${CHALLENGE}, error="invalid_token"`]);
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({ detail: expect.stringMatching(/^the bearer token was not accepted/u) });
        expect(text).not.toContain(token);
      }
    }
    expect(surface.triggered).toEqual([]);
    const logged = JSON.stringify(lines);
    expect(lines.length).toBeGreaterThan(0);
    expect(logged).not.toContain(WRONG);
    expect(logged).not.toContain(TOKEN.slice(0, -1));
  });

  it('should treat another scheme or a malformed header as no token', async () => {
    const { url } = await start();
    for (const authorization of [
      `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}`,
      TOKEN,
      `Bearer`,
      `Bearer ${TOKEN} extra`,
      `Token ${TOKEN}`,
    ]) {
      const res = await fetch(`${url}/state/door`, { headers: { authorization } });
      expect([authorization, res.status, res.headers.get('www-authenticate')]).toEqual([authorization, 401, CHALLENGE]);
      expect(await res.text()).not.toContain(TOKEN);
    }
  });

  it('should serve every route to the right token, whatever the case of the scheme', async () => {
    const { url, surface } = await start();
    expect(await jsonOf(await post(`${url}${TRIGGER}`, { operation_iri: OPERATION }, bearer(TOKEN)))).toEqual({
      status: 200,
      body: { operation: OPERATION, status: 'queued' },
    });
    expect(surface.triggered).toEqual([OPERATION]);
    expect(await jsonOf(await post(`${url}/workflows/open/execute`, { angle: 90 }, { authorization: `bearer ${TOKEN}` }))).toEqual({
      status: 200,
      body: { opened: 90 },
    });
    expect(await jsonOf(await fetch(`${url}/state/door`, { headers: { authorization: `BEARER  ${TOKEN} ` } }))).toEqual({
      status: 200,
      body: 'closed',
    });
    expect((await jsonOf(await fetch(`${url}/activity`, { headers: bearer(TOKEN) }))).status).toBe(200);
    expect(await jsonOf(await fetch(`${url}/nope`, { headers: bearer(TOKEN) }))).toEqual({
      status: 404,
      body: { detail: 'no route for GET "/nope"' },
    });
    const stream = await openSse(`${url}/activity/stream`, bearer(TOKEN));
    expect(stream.response.status).toBe(200);
    stream.close();
  });

  it('should refuse before reading the body: no 400 for bad JSON, no 413 for an oversized body', async () => {
    const { url, surface } = await start({ bodyLimitBytes: 64 });
    const oversized = JSON.stringify({ operation_iri: OPERATION, pad: 'x'.repeat(10_000) });
    for (const headers of [{}, bearer(WRONG)]) {
      expect((await post(`${url}${TRIGGER}`, '{not json', headers)).status).toBe(401);
      expect((await post(`${url}${TRIGGER}`, oversized, headers)).status).toBe(401);
      expect((await post(`${url}/workflows/open/execute`, '{not json', headers)).status).toBe(401);
    }
    expect(surface.triggered).toEqual([]);
    expect(surface.workflowLookups).toEqual([]);
    // With the token the same bodies reach the parser, which refuses them as before.
    expect((await post(`${url}${TRIGGER}`, '{not json', bearer(TOKEN))).status).toBe(400);
    expect((await post(`${url}${TRIGGER}`, oversized, bearer(TOKEN))).status).toBe(413);
  });

  it('should leave every route open when no token is set', async () => {
    const { url, surface } = await start({ token: undefined });
    expect((await post(`${url}${TRIGGER}`, { operation_iri: OPERATION })).status).toBe(200);
    expect(surface.triggered).toEqual([OPERATION]);
    expect((await fetch(`${url}/state/door`)).status).toBe(200);
  });
});

describe('bearer tokens', () => {
  it('should accept tokens of at least LIMITS.minTokenLength visible ASCII characters', () => {
    expect(tokenProblem('x'.repeat(LIMITS.minTokenLength))).toBeUndefined();
    expect(tokenProblem(TOKEN)).toBeUndefined();
    expect(tokenProblem('A+/=~-._!#$%&*^|'.repeat(2))).toBeUndefined();
  });

  it('should name what is wrong with a token without quoting it', () => {
    const cases: [unknown, RegExp][] = [
      ['short-secret', new RegExp(`is 12 characters long; use at least ${LIMITS.minTokenLength}`, 'u')],
      ['secret with spaces inside', /visible ASCII/u],
      ['secret-with-tab\there', /visible ASCII/u],
      ['secret-with-newline\n', /visible ASCII/u],
      ['sécret-non-ascii-value', /visible ASCII/u],
      [1234567890123456, /must be a string, got number/u],
      [null, /must be a string, got null/u],
    ];
    for (const [token, expected] of cases) {
      const problem = tokenProblem(token);
      expect(problem).toMatch(expected);
      if (typeof token === 'string') expect(problem).not.toContain(token.trim());
    }
  });

  it('should refuse to build the check for a bad token', () => {
    expect(() => bearerAuth('short')).toThrow(ValueError);
    expect(() => bearerAuth('short')).toThrow(/^the HTTP token is 5 characters long/u);
  });

  it('should read the token of a Bearer header only', () => {
    expect(presentedToken(`Bearer ${TOKEN}`)).toBe(TOKEN);
    expect(presentedToken(`bEaReR   ${TOKEN}  `)).toBe(TOKEN);
    expect(presentedToken(undefined)).toBeUndefined();
    expect(presentedToken('Bearer')).toBeUndefined();
    expect(presentedToken(`Bearer ${TOKEN} more`)).toBeUndefined();
    expect(presentedToken(`Basic ${TOKEN}`)).toBeUndefined();
  });
});
