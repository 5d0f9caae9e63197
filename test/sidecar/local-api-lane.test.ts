import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { OperationResolutionError, ValueError } from '../../src/errors.js';
import type { OperationSnapshot } from '../../src/middleware/operations/operation-watch.js';
import type { SemanticMiddleware } from '../../src/middleware/semantic-middleware.js';
import { withLocalApiLane } from '../../src/sidecar/local-api-lane.js';
import type { LocalApiTarget } from '../../src/sidecar/local-api-routes.js';
import { localApiApp } from '../../src/sidecar/local-api.js';
import { HandoverSessions } from '../../src/sidecar/handover-sessions.js';
import { rawHttp, rawRequest } from '../fuzz/support/raw-http.js';
import { laneComparison } from '../support/lane-comparison.js';

const TOKEN = 'local-api-lane-token-0123456789';
const OTHER = 'local-api-lane-other-0123456789';
const TOKENS = [
  { name: 'bridge', token: TOKEN },
  { name: 'plc', token: OTHER },
];
const LIMIT = 512;
const DONE: OperationSnapshot = {
  operationIri: 'urn:op:done',
  status: 'done',
  result: '"opened"',
  createdAt: new Date('2026-11-29T10:00:00.000Z'),
  finishedAt: new Date('2026-11-29T10:00:01.000Z'),
};

const auth = `Authorization: Bearer ${TOKEN}`;

function post(path: string, body: Buffer | string, headers: string[] = ['Content-Type: application/json', auth]): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return rawHttp('POST', path, [...headers, `Content-Length: ${bytes.length}`], bytes);
}

const REQUEST = JSON.stringify({ capabilityClass: 'urn:x:Opening', operationClass: 'urn:x:OpenDoor' });
const FULL_REQUEST = JSON.stringify({
  capabilityClass: 'urn:x:Opening',
  operationClass: 'urn:x:OpenDoor',
  operationIri: 'urn:op:mine',
  targetResource: 'urn:x:door1',
  deadline: '2099-01-01T00:00:00Z',
  data: { speed: 2 },
  wait: true,
});

/** Requests the lane serves itself. */
const LANE_CASES: [string, Buffer][] = [
  ['a request', post('/operations', REQUEST)],
  ['a request with every field', post('/operations', FULL_REQUEST)],
  ['a request with a query string', post('/operations?x=1', REQUEST)],
  [
    'a request by the other named token',
    post('/operations', REQUEST, ['Content-Type: application/json', `Authorization: Bearer ${OTHER}`]),
  ],
  ['a request without a Content-Type', post('/operations', REQUEST, [auth])],
  ['a request with a byte-order mark', post('/operations', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(REQUEST)]))],
  [
    'a request the middleware refuses',
    post('/operations', JSON.stringify({ capabilityClass: 'urn:x:Nobody', operationClass: 'urn:x:OpenDoor' })),
  ],
  [
    'a request the middleware fails',
    post('/operations', JSON.stringify({ capabilityClass: 'urn:x:Broken', operationClass: 'urn:x:OpenDoor' })),
  ],
  ['a request without capabilityClass', post('/operations', JSON.stringify({ operationClass: 'urn:x:OpenDoor' }))],
  ['a request with a relative IRI', post('/operations', JSON.stringify({ capabilityClass: 'x', operationClass: 'urn:x:OpenDoor' }))],
  [
    'a request with a bad deadline',
    post('/operations', JSON.stringify({ capabilityClass: 'urn:x:Opening', operationClass: 'urn:x:OpenDoor', deadline: 'soon' })),
  ],
  [
    'a request with data not an object',
    post('/operations', JSON.stringify({ capabilityClass: 'urn:x:Opening', operationClass: 'urn:x:OpenDoor', data: [1] })),
  ],
  ['a request that is an array', post('/operations', '[1]')],
  ['a request with no body', rawHttp('POST', '/operations', [auth])],
  ['a request of malformed JSON', post('/operations', '{"capabilityClass":')],
  ['a request of invalid UTF-8', post('/operations', Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]))],
  ['a status', rawHttp('GET', '/operations/status?iri=urn:op:done', [auth])],
  ['a status waited for', rawHttp('GET', '/operations/status?iri=urn:op:done&waitMs=1000', [auth])],
  ['a status of an unknown Operation', rawHttp('GET', '/operations/status?iri=urn:op:unknown', [auth])],
  ['a status waited for in vain', rawHttp('GET', '/operations/status?iri=urn:op:unknown&waitMs=20', [auth])],
  ['a status without an IRI', rawHttp('GET', '/operations/status', [auth])],
  ['a status of a relative IRI', rawHttp('GET', '/operations/status?iri=op', [auth])],
  ['a status with two IRIs', rawHttp('GET', '/operations/status?iri=urn:op:done&iri=urn:op:other', [auth])],
  ['a status with a bad waitMs', rawHttp('GET', '/operations/status?iri=urn:op:done&waitMs=-1', [auth])],
  ['a status with an escaped IRI', rawHttp('GET', '/operations/status?iri=urn%3Aop%3Adone', [auth])],
  [
    'a request with a __proto__ data key',
    post(
      '/operations',
      JSON.stringify({
        capabilityClass: 'urn:x:Opening',
        operationClass: 'urn:x:OpenDoor',
        data: JSON.parse('{"__proto__":{"admin":true}}') as unknown,
      }),
    ),
  ],
];

/** Requests the lane must hand to express. */
const EXPRESS_CASES: [string, Buffer][] = [
  ['a request without a token', post('/operations', REQUEST, ['Content-Type: application/json'])],
  ['a request with a wrong token', post('/operations', REQUEST, ['Authorization: Bearer not-the-token-at-all-0123'])],
  ['a status without a token', rawHttp('GET', '/operations/status?iri=urn:op:done')],
  ['a request over the limit', post('/operations', JSON.stringify({ pad: 'x'.repeat(LIMIT) }))],
  ['a gzip request', post('/operations', gzipSync(REQUEST), ['Content-Type: application/json', 'Content-Encoding: gzip', auth])],
  [
    'a chunked request',
    rawHttp('POST', '/operations', ['Transfer-Encoding: chunked', auth], `${REQUEST.length.toString(16)}\r\n${REQUEST}\r\n0\r\n\r\n`),
  ],
  ['a text request', post('/operations', REQUEST, ['Content-Type: text/plain', auth])],
  ['a latin-1 request', post('/operations', REQUEST, ['Content-Type: application/json; charset=latin1', auth])],
  ['a request with a trailing slash', post('/operations/', REQUEST)],
  ['a request with an upper-case path', post('/Operations', REQUEST)],
  ['a GET of /operations', rawHttp('GET', '/operations', [auth])],
  ['a HEAD of the status', rawHttp('HEAD', '/operations/status?iri=urn:op:done', [auth])],
  ['a POST to the status', post('/operations/status', '{}')],
  ['a cancel', post('/operations/cancel', '{"operation":"urn:op:done"}')],
];

describe('the lane of the local API', () => {
  const requested: { input: Record<string, unknown>; data: Record<string, unknown> }[] = [];
  const middleware = {
    request: (input: Record<string, unknown>, build?: (draft: { data: Record<string, unknown> }) => void): Promise<string> => {
      if (input.capabilityClass === 'urn:x:Nobody')
        return Promise.reject(new OperationResolutionError('no receiver realizes urn:x:Nobody'));
      if (input.capabilityClass === 'urn:x:Broken') return Promise.reject(new Error('the store fell over'));
      if (typeof input.deadline === 'string' && Number.isNaN(Date.parse(input.deadline)))
        return Promise.reject(new ValueError('bad deadline'));
      const draft = { data: {} };
      build?.(draft);
      requested.push({ input, data: draft.data });
      return Promise.resolve((input.operationIri as string | undefined) ?? 'urn:op:new');
    },
    readOperation: (iri: string): Promise<OperationSnapshot | null> => Promise.resolve(iri === DONE.operationIri ? DONE : null),
    waitForOperation: (iri: string, options: { timeoutMs: number }): Promise<OperationSnapshot> =>
      iri === DONE.operationIri
        ? Promise.resolve(DONE)
        : new Promise((_resolve, reject) => setTimeout(() => reject(new OperationResolutionError(`no ${iri}`)), options.timeoutMs)),
  } as unknown as SemanticMiddleware;
  const logger = pino({ level: 'silent' });
  const handovers = new HandoverSessions(() => Promise.reject(new Error('no handovers here')));
  const target: LocalApiTarget = { middleware, handovers, caller: 'local-api:token' };
  const app = localApiApp({ middleware, listen: { port: 0, token: TOKENS }, logger, bodyLimitBytes: LIMIT }, target);
  const lanes = laneComparison(app, (counted) =>
    withLocalApiLane(target, { bodyLimitBytes: LIMIT, token: TOKENS, what: 'the test token', logger }, counted),
  );

  it.each(LANE_CASES)('should serve %s itself, with the bytes express would send', async (_name, request) => {
    expect((await lanes.expectServedByLane(request)).status).toBeDefined();
  });

  it.each(EXPRESS_CASES)('should hand %s to express', async (_name, request) => {
    await lanes.expectHandedToExpress(request);
  });

  it('should request for the caller its token names, with every field, and answer what express answers', async () => {
    const answer = async (request: Buffer) => {
      const { status, body } = await rawRequest({ port: lanes.lanePort }, request);
      return { status, body: JSON.parse(body) as unknown };
    };
    requested.length = 0;
    expect(await answer(LANE_CASES[1]![1])).toEqual({ status: 201, body: { operation: 'urn:op:mine', status: 'queued' } });
    expect(await answer(LANE_CASES[3]![1])).toEqual({ status: 201, body: { operation: 'urn:op:new', status: 'queued' } });
    expect(requested).toEqual([
      {
        input: expect.objectContaining({
          capabilityClass: 'urn:x:Opening',
          operationClass: 'urn:x:OpenDoor',
          operationIri: 'urn:op:mine',
          targetResource: 'urn:x:door1',
          deadline: '2099-01-01T00:00:00.000Z',
          requestedBy: 'token:bridge',
          wait: true,
        }),
        data: { speed: 2 },
      },
      { input: expect.objectContaining({ requestedBy: 'token:plc' }), data: {} },
    ]);
    expect((await answer(LANE_CASES[6]![1])).status).toBe(404);
    expect(await answer(LANE_CASES[7]![1])).toEqual({ status: 500, body: { detail: 'Internal Server Error' } });
    for (const refused of [8, 9, 10, 11, 12, 13]) expect((await answer(LANE_CASES[refused]![1])).status).toBe(400);
    expect((await answer(LANE_CASES[14]![1])).status).toBe(400);
    expect((await answer(LANE_CASES[15]![1])).status).toBe(400);
    expect(await answer(LANE_CASES[16]![1])).toEqual({
      status: 200,
      body: {
        operationIri: 'urn:op:done',
        status: 'done',
        result: '"opened"',
        createdAt: '2026-11-29T10:00:00.000Z',
        finishedAt: '2026-11-29T10:00:01.000Z',
      },
    });
    expect((await answer(LANE_CASES[18]![1])).status).toBe(404);
    expect((await answer(LANE_CASES[20]![1])).status).toBe(400);
    // A "__proto__" data key reaches the request as a key (which the middleware then judges), not as a prototype.
    requested.length = 0;
    expect((await answer(LANE_CASES[25]![1])).status).toBe(201);
    const { data } = requested[0]!;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__']);
    expect((data as { admin?: unknown }).admin).toBeUndefined();
  });
});
