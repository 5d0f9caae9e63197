import { describe, expect, it } from '@jest/globals';
import { openDevice } from '../../../../src/device/index.js';
import { RuntimeError } from '../../../../src/errors.js';
import { get, post } from '../../support/calls.js';
import { startTinyServer } from '../../support/tiny-server.js';

/**
 * Closing a client while the device hangs (bindings/http/client.ts): the stopping sidecar closes
 * it after its grace period and must not wait for the device's own timeout, which can be a minute
 * and would run past the shutdown deadline (test/faults/twin-sidecars.test.ts shows it with real
 * processes).
 */
describe('HTTP DeviceClient.close', () => {
  it('should abandon the calls in flight at once, with an error naming the device, and refuse new ones', async () => {
    const server = await startTinyServer(() => undefined); // never answers
    const device = openDevice(server.target);
    const read = device.reader({ label: 'state property "door"', path: '/state/door', timeoutMs: 1000 });
    try {
      const hung = post(device, '/open', {}, 60_000).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 200)); // the call is under way
      const started = Date.now();
      await device.close();
      const err = (await hung) as RuntimeError;
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(err).toBeInstanceOf(RuntimeError);
      expect(err.message).toBe(`device ${device.description} was closed while a call was waiting for the device; the call was abandoned`);
      // A reader prepared before close() is refused too, without connecting.
      await expect(read()).rejects.toThrow(`device ${device.description} is closed; GET /state/door was not sent`);
      await expect(get(device, '/state/door', 1000)).rejects.toThrow(RuntimeError);
      await expect(device.health()).rejects.toThrow(RuntimeError);
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  }, 20_000);

  it('should close twice quietly, and close a client that never connected', async () => {
    const device = openDevice('http://127.0.0.1:9');
    await expect(device.close()).resolves.toBeUndefined();
    await expect(device.close()).resolves.toBeUndefined();
  });
});
