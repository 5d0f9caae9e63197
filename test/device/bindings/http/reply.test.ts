import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DeviceAnswerError,
  DeviceReplyError,
  DeviceTimeoutError,
  DeviceUnreachableError,
  openDevice,
  type DeviceClient,
} from '../../../../src/device/index.js';
import { LIMITS } from '../../../../src/limits.js';
import { socketDir } from '../../support/bridge.js';
import { get, post } from '../../support/calls.js';
import { bodyText, startTinyServer, type TinyServer } from '../../support/tiny-server.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let sockets: Awaited<ReturnType<typeof socketDir>>;
beforeAll(async () => {
  sockets = await socketDir();
});
afterAll(async () => {
  await sockets.cleanup();
});

describe.each(['unix socket', 'tcp'] as const)('device replies over %s', (kind) => {
  let server: TinyServer | undefined;
  let device: DeviceClient | undefined;
  let count = 0;

  async function serve(handler: Handler, maxReplyBytes?: number): Promise<DeviceClient> {
    count += 1;
    server = await startTinyServer(handler, kind === 'tcp' ? undefined : sockets.path(`reply-${count}.sock`));
    device = openDevice(server.target, maxReplyBytes === undefined ? {} : { maxReplyBytes });
    return device;
  }

  afterEach(async () => {
    await device?.close();
    await server?.close();
    device = undefined;
    server = undefined;
  });

  async function failure(d: DeviceClient, method: 'GET' | 'POST' = 'GET', timeoutMs = 3000): Promise<unknown> {
    return (method === 'GET' ? get(d, '/state/x', timeoutMs) : post(d, '/state/x', {}, timeoutMs)).catch((e: unknown) => e);
  }

  it('should send the body as JSON with JSON headers and return the echoed value', async () => {
    const d = await serve((req, res) => {
      void bodyText(req).then((text) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ type: req.headers['content-type'], accept: req.headers.accept, got: JSON.parse(text) as unknown }));
      });
    });
    const body = { a: 1, s: 'ü "q"', nested: [true, null] };
    await expect(post(d, '/echo', body, 3000)).resolves.toEqual({
      type: 'application/json',
      accept: 'application/json',
      got: body,
    });
  });

  it('should reject a 2xx reply that is not JSON with DeviceReplyError naming its content type', async () => {
    const d = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
    const err = (await failure(d)) as DeviceReplyError;
    expect(err).toBeInstanceOf(DeviceReplyError);
    expect([err.status, err.code]).toEqual([502, 'SM_DEVICE_REPLY']);
    expect(err.message).toBe(
      `GET /state/x on device ${d.description} sent a reply that is not JSON (content-type "text/html"): "<html>hello</html>"; a device bridge must answer JSON`,
    );
  });

  it('should accept JSON whatever the content type says, and null for an empty 200', async () => {
    const d = await serve((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(req.url === '/empty' ? '' : '"closed"'));
    await expect(get(d, '/state/door', 3000)).resolves.toBe('closed');
    await expect(get(d, '/empty', 3000)).resolves.toBeNull();
  });

  it('should reject a reply declared larger than the limit without reading it', async () => {
    const d = await serve((_req, res) => res.writeHead(200, { 'content-length': 2000 }).end(`"${'x'.repeat(1998)}"`), 1024);
    const err = (await failure(d)) as DeviceReplyError;
    expect(err).toBeInstanceOf(DeviceReplyError);
    expect(err.message).toBe(`GET /state/x on device ${d.description} sent a reply larger than 1024 bytes (the limit for device replies)`);
  });

  it('should reject a chunked reply that grows past the limit', async () => {
    const d = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('"');
      res.write('y'.repeat(800));
      res.end(`${'y'.repeat(800)}"`);
    }, 1024);
    await expect(failure(d)).resolves.toBeInstanceOf(DeviceReplyError);
  });

  it('should hold the default limit at LIMITS.deviceReplyMaxBytes', async () => {
    const big = `"${'z'.repeat(LIMITS.deviceReplyMaxBytes)}"`;
    const fits = `"${'z'.repeat(LIMITS.deviceReplyMaxBytes - 2)}"`;
    const d = await serve((req, res) => res.end(req.url === '/fits' ? fits : big));
    await expect(failure(d)).resolves.toBeInstanceOf(DeviceReplyError);
    await expect(get(d, '/fits', 5000)).resolves.toHaveLength(LIMITS.deviceReplyMaxBytes - 2);
  });

  it('should keep the status and a preview of a non-JSON error body', async () => {
    const page = `<h1>Bad Gateway</h1>${'.'.repeat(400)}`;
    const d = await serve((_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end(page));
    const err = (await failure(d, 'POST')) as DeviceAnswerError;
    expect(err).toBeInstanceOf(DeviceAnswerError);
    expect(err.deviceStatus).toBe(503);
    expect(err.detail).toBeUndefined();
    expect(err.bodyPreview).toBe(`${page.slice(0, LIMITS.deviceErrorBodyPreview)}...`);
    expect(err.message).toContain(`POST /state/x on device ${d.description} answered HTTP 503: <h1>Bad Gateway</h1>`);
  });

  it('should keep a structured FastAPI detail and say so for an empty error body', async () => {
    const detail = [{ loc: ['body', 'speed'], msg: 'field required' }];
    const d = await serve((req, res) =>
      req.url === '/state/x' ? res.writeHead(422).end(JSON.stringify({ detail })) : res.writeHead(409).end(),
    );
    const err = (await failure(d)) as DeviceAnswerError;
    expect(err.detail).toEqual(detail);
    expect(err.message).toContain(`answered HTTP 422: ${JSON.stringify(detail)}`);
    const empty = (await post(d, '/y', {}, 3000).catch((e: unknown) => e)) as DeviceAnswerError;
    expect([empty.deviceStatus, empty.bodyPreview]).toEqual([409, '']);
    expect(empty.message).toContain('answered HTTP 409: (empty body)');
  });

  it('should treat a redirect as an answer, not follow it', async () => {
    const d = await serve((_req, res) => res.writeHead(302, { location: 'http://example.com/' }).end());
    await expect(failure(d)).resolves.toMatchObject({ deviceStatus: 302 });
  });

  it('should time out a reply whose body stalls after the headers', async () => {
    const d = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const started = Date.now();
    const err = (await failure(d, 'GET', 250)) as DeviceTimeoutError;
    expect(err).toBeInstanceOf(DeviceTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('should fail at once, not at the timeout, when the device closes the connection in the middle of a reply', async () => {
    const d = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":', () => res.socket?.destroy());
    });
    const started = Date.now();
    const err = await failure(d, 'GET', 5000);
    expect(err).toBeInstanceOf(DeviceUnreachableError);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
