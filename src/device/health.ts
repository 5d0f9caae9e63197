/**
 * How a binding's health probe is read, the same for every binding: any answer, one that says
 * the call failed included, means the device is there; only a failure to reach it or a missing
 * answer means it is not.
 */
import type { DeviceHealth } from './client.js';
import { DeviceError, DeviceTimeoutError, DeviceUnreachableError } from './errors.js';

/**
 * Runs `probe` and returns the device's health. Rejects with what `probe` rejects with when that
 * is not a DeviceError (a closed client's RuntimeError).
 * @example health() { return probeHealth(() => this.call(this.probe, undefined)); }
 */
export async function probeHealth(probe: () => Promise<unknown>): Promise<DeviceHealth> {
  const started = performance.now();
  try {
    await probe();
  } catch (err) {
    if (err instanceof DeviceUnreachableError || err instanceof DeviceTimeoutError) return { reachable: false, error: err };
    if (!(err instanceof DeviceError)) throw err;
  }
  return { reachable: true, ms: performance.now() - started };
}
