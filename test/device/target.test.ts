import { describe, expect, it } from '@jest/globals';
import { assertDevicePath, openDeviceTransport, parseDeviceTarget, resolveTarget, type DeviceTarget } from '../../src/device/index.js';
import { ValueError } from '../../src/errors.js';
import { startTinyServer } from './support/tiny-server.js';

describe('resolveTarget', () => {
  it('should accept http(s) URLs and describe them without a trailing slash', () => {
    expect(resolveTarget({ url: 'http://127.0.0.1:9000/' })).toEqual({
      origin: 'http://127.0.0.1:9000',
      basePath: '',
      description: 'http://127.0.0.1:9000',
    });
    expect(resolveTarget({ url: 'https://plc.local/api/v1/' })).toMatchObject({
      origin: 'https://plc.local',
      basePath: '/api/v1',
      description: 'https://plc.local/api/v1',
    });
  });

  it('should accept a socket path and describe it as unix:<path>', () => {
    expect(resolveTarget({ socketPath: '/run/door.sock' })).toEqual({
      origin: 'http://localhost',
      basePath: '',
      socketPath: '/run/door.sock',
      description: 'unix:/run/door.sock',
    });
  });

  it.each([
    [
      { url: 'ftp://127.0.0.1/x' },
      'device url "ftp://127.0.0.1/x" has scheme "ftp:" (expected an http(s) URL such as "http://127.0.0.1:9000")',
    ],
    [{ url: 'not a url' }, 'device url "not a url" is not a URL'],
    [{ url: 'unix:/run/door.sock' }, 'device url "unix:/run/door.sock" has scheme "unix:"'],
    [{ url: 'http://user:pw@127.0.0.1:9000' }, 'may not carry credentials, a query or a fragment'],
    [{ url: 'http://127.0.0.1:9000/?a=1' }, 'may not carry credentials, a query or a fragment'],
    [{ url: 42 }, 'device url 42 is not a URL'],
    [{ socketPath: '' }, 'device socketPath "" is not a file path (expected e.g. "/run/door-bridge.sock")'],
    [{ socketPath: '/tmp/a\u0000b' }, 'is not a file path'],
    [{ socketPath: `/tmp/${'s'.repeat(120)}.sock` }, 'is longer than 107 bytes, the most a Unix socket address holds'],
    [{}, 'must have exactly one of "url" and "socketPath"'],
    [{ url: 'http://127.0.0.1', socketPath: '/run/x.sock' }, 'must have exactly one of "url" and "socketPath"'],
  ])('should refuse %j with a ValueError naming the value', (target, message) => {
    expect(() => openDeviceTransport(target as DeviceTarget)).toThrow(ValueError);
    expect(() => openDeviceTransport(target as DeviceTarget)).toThrow(message);
  });

  it('should refuse a bad reply limit', () => {
    expect(() => openDeviceTransport({ url: 'http://127.0.0.1:9000' }, { maxReplyBytes: -1 })).toThrow(
      'maxReplyBytes -1 is not a positive whole number of bytes',
    );
  });

  it('should put a base URL path in front of every request path', async () => {
    const server = await startTinyServer((req, res) => res.end(JSON.stringify(req.url)));
    const device = openDeviceTransport({ url: `${(server.target as { url: string }).url}/bridge/` });
    await expect(device.request({ method: 'GET', path: '/state/door?x=1', timeoutMs: 2000 })).resolves.toBe('/bridge/state/door?x=1');
    await device.close();
    await server.close();
  });
});

describe('parseDeviceTarget', () => {
  it('should read unix:<path> as a socket and anything else as a URL', () => {
    expect(parseDeviceTarget('unix:/run/door.sock')).toEqual({ socketPath: '/run/door.sock' });
    expect(parseDeviceTarget('http://127.0.0.1:9000')).toEqual({ url: 'http://127.0.0.1:9000' });
  });

  it.each([
    ['unix:', 'device socketPath "" is not a file path'],
    ['/run/door.sock', 'device url "/run/door.sock" is not a URL'],
    ['tcp://127.0.0.1:9000', 'has scheme "tcp:"'],
  ])('should refuse %j with a ValueError naming it', (text, message) => {
    expect(() => parseDeviceTarget(text)).toThrow(message);
  });
});

describe('assertDevicePath', () => {
  it.each(['/open', '/state/door', '/a/b-c_d.e?x=1&y=%20'])('should accept %s', (path) => {
    expect(assertDevicePath(path)).toBe(path);
  });

  it.each(['open', '', '//host/x', '/a b', '/a#frag', '/a\nb', 'http://x/open'])('should refuse %j', (path) => {
    expect(() => assertDevicePath(path, 'workflow "open" path')).toThrow(
      `workflow "open" path ${JSON.stringify(path)} is not an absolute path`,
    );
  });
});
