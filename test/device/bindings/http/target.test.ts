import { describe, expect, it } from '@jest/globals';
import { openDevice, parseDeviceTarget } from '../../../../src/device/index.js';
import { assertDevicePath } from '../../../../src/device/bindings/http/target.js';
import { ValueError } from '../../../../src/errors.js';
import { get } from '../../support/calls.js';
import { startTinyServer } from '../../support/tiny-server.js';

describe('HTTP binding targets', () => {
  it('should describe http(s) URLs without a trailing slash, and sockets as written', () => {
    expect(openDevice('http://127.0.0.1:9000/').description).toBe('http://127.0.0.1:9000');
    expect(openDevice('https://plc.local/api/v1/').description).toBe('https://plc.local/api/v1');
    expect(openDevice('unix:/run/door.sock').description).toBe('unix:/run/door.sock');
    expect(openDevice('unix:relative.sock').description).toBe('unix:relative.sock');
  });

  it.each([
    ['unix:/run/door.sock', 'unix:/run/door.sock'],
    ['unix:relative.sock', 'unix:relative.sock'],
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000'],
    ['https://plc.local/api/', 'https://plc.local/api/'],
  ])('should accept %s and return it unchanged', (text, parsed) => {
    expect(parseDeviceTarget(text)).toBe(parsed);
  });

  it.each([
    ['http://user:pw@127.0.0.1:9000', 'may not carry credentials, a query or a fragment'],
    ['http://127.0.0.1:9000/?a=1', 'may not carry credentials, a query or a fragment'],
    ['http://127.0.0.1:9000/#x', 'may not carry credentials, a query or a fragment'],
    ['http://', 'device target "http://" is not a URL (expected an http(s) URL such as "http://127.0.0.1:9000")'],
    ['unix:', 'device target "unix:" names no socket file (expected e.g. "unix:/run/door-bridge.sock")'],
    ['unix:/tmp/a\u0000b', 'names no socket file'],
    [`unix:/tmp/${'s'.repeat(120)}.sock`, 'has a socket path longer than 107 bytes, the most a Unix socket address holds'],
  ])('should refuse %j with a ValueError naming the value', (target, message) => {
    expect(() => openDevice(target)).toThrow(ValueError);
    expect(() => openDevice(target)).toThrow(message);
    expect(() => parseDeviceTarget(target)).toThrow(message);
  });

  it('should put a base URL path in front of every request path', async () => {
    const server = await startTinyServer((req, res) => res.end(JSON.stringify(req.url)));
    const device = openDevice(`${server.target}/bridge/`);
    await expect(get(device, '/state/door?x=1', 2000)).resolves.toBe('/bridge/state/door?x=1');
    await device.close();
    await server.close();
  });
});

describe('assertDevicePath', () => {
  it.each(['/open', '/state/door', '/a/b-c_d.e?x=1&y=%20'])('should accept %s', (path) => {
    expect(assertDevicePath(path, 'device path')).toBe(path);
  });

  it.each(['open', '', '//host/x', '/a b', '/a#frag', '/a\nb', 'http://x/open'])('should refuse %j', (path) => {
    expect(() => assertDevicePath(path, 'workflow "open" path')).toThrow(
      `workflow "open" path ${JSON.stringify(path)} is not an absolute path`,
    );
  });
});
