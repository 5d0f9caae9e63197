import { describe, expect, it } from '@jest/globals';
import { openDeviceTransport } from '../../src/device/index.js';
import { RuntimeError } from '../../src/errors.js';
import { startTinyServer } from './support/tiny-server.js';

/**
 * Closing a transport while the device hangs (transport.ts): the stopping sidecar closes it
 * after its grace period and must not wait for the device's own timeout, which can be a minute
 * and would run past the shutdown deadline (test/faults/twin-sidecars.test.ts shows it with real
 * processes).
 */
describe('DeviceTransport.close while the device hangs', () => {
  it('should abandon the calls in flight at once, with an error naming the device, and refuse new ones', async () => {
    const server = await startTinyServer(() => undefined); // never answers
    const device = openDeviceTransport(server.target);
    try {
      const hung = device.request({ method: 'POST', path: '/open', body: {}, timeoutMs: 60_000 }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 200)); // the call is under way
      const started = Date.now();
      await device.close();
      const err = (await hung) as RuntimeError;
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(err).toBeInstanceOf(RuntimeError);
      expect(err.message).toBe(
        `device transport ${device.description} was closed while a call was waiting for the device; the call was abandoned`,
      );
      await expect(device.request({ method: 'GET', path: '/state/door', timeoutMs: 1000 })).rejects.toThrow(
        `device transport ${device.description} is closed`,
      );
    } finally {
      await server.close();
    }
  }, 20_000);
});
