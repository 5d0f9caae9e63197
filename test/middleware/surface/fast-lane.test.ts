import { once } from 'node:events';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { DeviceTimeoutError } from '../../../src/device/errors.js';
import { INVALID_UTF8_DETAIL } from '../../../src/http/json-body.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import { withWorkflowFastLane } from '../../../src/middleware/surface/workflow-fast-lane.js';
import { rawHttp, rawRequest } from '../../fuzz/support/raw-http.js';
import { laneComparison } from '../../support/lane-comparison.js';
import { fakeSurface, logSink } from './support/serve.js';

const TOKEN = 'fast-lane-token-0123456789';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function post(path: string, body: Buffer | string, headers: string[] = ['Content-Type: application/json']): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return rawHttp('POST', path, [...headers, `Content-Length: ${bytes.length}`], bytes);
}

const auth = `Authorization: Bearer ${TOKEN}`;

/** Requests the lane serves itself, each with what it checks. */
const LANE_CASES: [string, Buffer][] = [
  ['an object body', post('/workflows/echo/execute', '{"speed":2}', ['Content-Type: application/json', auth])],
  ['query arguments merged under the body', post('/workflows/echo/execute?speed=1&side=left', '{"speed":3}', [auth])],
  ['no body at all', rawHttp('POST', '/workflows/echo/execute?x=1', [auth])],
  ['an empty body', post('/workflows/echo/execute', '', [auth])],
  [
    'a body with a byte-order mark',
    post('/workflows/echo/execute', Buffer.concat([BOM, Buffer.from('{"a":"ä"}')]), [
      'Content-Type: application/json; charset=utf-8',
      auth,
    ]),
  ],
  ['a body that is only a byte-order mark', post('/workflows/echo/execute', BOM, [auth])],
  ['malformed JSON', post('/workflows/echo/execute', '{"a":', ['Content-Type: application/json', auth])],
  [
    'a body of invalid UTF-8',
    post('/workflows/echo/execute', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), [auth]),
  ],
  ['a JSON array', post('/workflows/echo/execute', '[1,2]', [auth])],
  ['a handler returning nothing', post('/workflows/nothing/execute', '{}', [auth])],
  ['a handler returning a string', post('/workflows/text/execute', '{}', [auth])],
  ['a device timeout', post('/workflows/slow/execute', '{}', [auth])],
  ['a plain error', post('/workflows/broken/execute', '{}', [auth])],
  ['an escaped workflow name', post('/workflows/t%65xt/execute', '{}', [auth])],
  ['a state read', rawHttp('GET', '/state/door', [auth])],
  ['a state read with a query', rawHttp('GET', '/state/door?verbose=1', [auth])],
  ['an escaped state name', rawHttp('GET', '/state/d%6For', [auth])],
  ['a state getter that throws', rawHttp('GET', '/state/jammed', [auth])],
  ['a state getter that times out', rawHttp('GET', '/state/slow', [auth])],
  ['the event trigger', post('/workflows/event_trigger/execute', '{"operation_iri":"urn:op:1"}', [auth])],
  [
    'the event trigger with a query',
    post('/workflows/event_trigger/execute?operation_iri=urn:op:2', '{"operation_iri":"urn:op:3"}', [auth]),
  ],
  ['the event trigger without operation_iri', post('/workflows/event_trigger/execute', '{}', [auth])],
  ['the event trigger with a relative IRI', post('/workflows/event_trigger/execute', '{"operation_iri":"op/1"}', [auth])],
  ['the event trigger with no body', rawHttp('POST', '/workflows/event_trigger/execute', [auth])],
  ['the event trigger with malformed JSON', post('/workflows/event_trigger/execute', '{"operation_iri":', [auth])],
  ['a body with a __proto__ key', post('/workflows/echo/execute?__proto__=q&side=left', '{"__proto__":{"admin":true},"a":1}', [auth])],
];

/** Requests the lane must hand to express. */
const EXPRESS_CASES: [string, Buffer][] = [
  ['no token', post('/workflows/echo/execute', '{}')],
  ['a wrong token', post('/workflows/echo/execute', '{}', ['Authorization: Bearer not-the-token-at-all'])],
  ['an unknown workflow', post('/workflows/missing/execute', '{}', [auth])],
  [
    'the event trigger with a gzip body',
    post('/workflows/event_trigger/execute', gzipSync('{"operation_iri":"urn:op:1"}'), ['Content-Encoding: gzip', auth]),
  ],
  ['the event trigger under an escaped name', post('/workflows/event%5Ftrigger/execute', '{"operation_iri":"urn:op:1"}', [auth])],
  ['the event trigger without a token', post('/workflows/event_trigger/execute', '{"operation_iri":"urn:op:1"}')],
  ['a body over the limit', post('/workflows/echo/execute', `{"pad":"${'x'.repeat(300)}"}`, [auth])],
  [
    'a gzip body',
    post('/workflows/echo/execute', gzipSync('{"zipped":true}'), ['Content-Type: application/json', 'Content-Encoding: gzip', auth]),
  ],
  ['a chunked body', rawHttp('POST', '/workflows/echo/execute', ['Transfer-Encoding: chunked', auth], '7\r\n{"a":1}\r\n0\r\n\r\n')],
  ['a text body', post('/workflows/echo/execute', 'hello', ['Content-Type: text/plain', auth])],
  ['a latin-1 charset', post('/workflows/echo/execute', '{}', ['Content-Type: application/json; charset=latin1', auth])],
  ['a GET', rawHttp('GET', '/workflows/echo/execute', [auth])],
  ['a trailing slash', post('/workflows/echo/execute/', '{}', [auth])],
  ['an upper-case path', post('/Workflows/echo/execute', '{}', [auth])],
  ['a bad escape in the name', post('/workflows/%E0%A4%A/execute', '{}', [auth])],
  ['a state read without a token', rawHttp('GET', '/state/door')],
  ['an unknown state', rawHttp('GET', '/state/missing', [auth])],
  ['a HEAD of a state', rawHttp('HEAD', '/state/door', [auth])],
  ['a POST to a state', post('/state/door', '{}', [auth])],
  ['a state path with a trailing slash', rawHttp('GET', '/state/door/', [auth])],
];

describe('the fast lane of workflows, states and the event trigger', () => {
  const surface = fakeSurface({ token: TOKEN, bodyLimitBytes: 256, logger: logSink().logger });
  surface.workflows.set('echo', (args) => args);
  surface.workflows.set('nothing', () => undefined);
  surface.workflows.set('text', () => Promise.resolve('opened'));
  surface.workflows.set('slow', () =>
    Promise.reject(
      new DeviceTimeoutError(
        'device unix:/run/door.sock did not answer POST /open within 10 ms',
        { target: 'unix:/run/door.sock', method: 'POST', path: '/open' },
        10,
      ),
    ),
  );
  let counted = 0;
  surface.workflows.set('count', () => (counted += 1));
  surface.states.set('door', () => 'closed');
  surface.states.set('jammed', () => {
    throw new Error('the sensor is jammed');
  });
  surface.states.set('slow', () => surface.workflows.get('slow')!({}));
  surface.workflows.set('broken', () => {
    throw new Error('the door is jammed');
  });
  const app = createApp(surface);
  const lanes = laneComparison(app, (counted) => withWorkflowFastLane(surface, counted));

  it.each(LANE_CASES)('should serve %s itself, with the bytes express would send', async (_name, request) => {
    expect((await lanes.expectServedByLane(request)).status).toBeDefined();
  });

  it.each(EXPRESS_CASES)('should hand %s to express', async (_name, request) => {
    await lanes.expectHandedToExpress(request);
  });

  it('should answer what the handlers return and refuse what express refuses', async () => {
    const answer = async (request: Buffer) => {
      const { status, body } = await rawRequest({ port: lanes.lanePort }, request);
      return { status, body: JSON.parse(body) as unknown };
    };
    expect(await answer(LANE_CASES[1]![1])).toEqual({ status: 200, body: { speed: 3, side: 'left' } });
    expect(await answer(LANE_CASES[4]![1])).toEqual({ status: 200, body: { a: 'ä' } });
    expect(await answer(LANE_CASES[5]![1])).toEqual({ status: 200, body: {} });
    expect(await answer(LANE_CASES[9]![1])).toEqual({ status: 200, body: null });
    expect((await answer(LANE_CASES[6]![1])).status).toBe(400);
    expect(await answer(LANE_CASES[7]![1])).toEqual({ status: 400, body: { detail: INVALID_UTF8_DETAIL } });
    expect((await answer(LANE_CASES[8]![1])).status).toBe(422);
    expect(await answer(LANE_CASES[11]![1])).toEqual({ status: 504, body: { detail: expect.stringContaining('did not answer') } });
    expect(await answer(LANE_CASES[12]![1])).toEqual({ status: 500, body: { detail: 'Internal Server Error' } });
    expect(await answer(LANE_CASES[14]![1])).toEqual({ status: 200, body: 'closed' });
    expect(await answer(LANE_CASES[16]![1])).toEqual({ status: 200, body: 'closed' });
    expect((await answer(LANE_CASES[17]![1])).status).toBe(500);
    expect((await answer(LANE_CASES[18]![1])).status).toBe(504);
    const triggered = surface.triggered.length;
    expect(await answer(LANE_CASES[19]![1])).toEqual({ status: 200, body: { operation: 'urn:op:1', status: 'queued' } });
    expect(await answer(LANE_CASES[20]![1])).toEqual({ status: 200, body: { operation: 'urn:op:3', status: 'queued' } });
    expect(surface.triggered.slice(triggered)).toEqual(['urn:op:1', 'urn:op:3']);
    for (const refused of [21, 22, 23]) expect((await answer(LANE_CASES[refused]![1])).status).toBe(422);
    expect((await answer(LANE_CASES[24]![1])).status).toBe(400);
    // A "__proto__" key of the query or the body is an argument like any other.
    const proto = await rawRequest({ port: lanes.lanePort }, LANE_CASES[25]![1]);
    expect(proto.status).toBe(200);
    expect(proto.body).toBe('{"__proto__":{"admin":true},"side":"left","a":1}');
  });

  it('should not run a workflow whose caller closed the connection before sending the whole body, and serve the next caller', async () => {
    const socket = connect(lanes.lanePort, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      rawHttp('POST', '/workflows/count/execute', [auth, 'Content-Type: application/json', 'Content-Length: 100'], Buffer.from('{"a":')),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await once(socket, 'close');
    const after = await rawRequest({ port: lanes.lanePort }, post('/workflows/count/execute', '{}', [auth]));
    expect(after.status).toBe(200);
    expect(counted).toBe(1);
  });
});
