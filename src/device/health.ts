/**
 * How a binding's health probe is read, the same for every binding: by default any answer, one
 * that says the call failed included, means the device is there; only a failure to reach it or a
 * missing answer means it is not. A probe of a configured health path (`strict`) needs a
 * successful answer: the device's own "I am not well" counts as down.
 */
import type { DeviceHealth } from './client.js';
import { DeviceError, DeviceTimeoutError, DeviceUnreachableError } from './errors.js';

/**
 * Runs `probe` and returns the device's health. Rejects with what `probe` rejects with when that
 * is not a DeviceError (a closed client's RuntimeError).
 * @param strict any DeviceError (an error answer, an unreadable reply) means unreachable too.
 * @example health() { return probeHealth(() => this.call(this.probe, undefined)); }
 */
export async function probeHealth(probe: () => Promise<unknown>, strict = false): Promise<DeviceHealth> {
  const started = performance.now();
  try {
    await probe();
  } catch (err) {
    if (err instanceof DeviceUnreachableError || err instanceof DeviceTimeoutError) return { reachable: false, error: err };
    if (!(err instanceof DeviceError)) throw err;
    if (strict) return { reachable: false, error: err };
  }
  return { reachable: true, ms: performance.now() - started };
}

/**
 * The sidecar's device probe as the middleware's `deviceHealth` option takes it: the client's
 * health (of `path`, when configured) within `timeoutMs`, with the failure's message as reason.
 */
export function deviceHealthProbe(
  device: { health(options: { timeoutMs: number; path?: string }): Promise<DeviceHealth> },
  options: { timeoutMs: number; path?: string },
): () => Promise<{ available: true } | { available: false; reason: string; timedOut: boolean }> {
  return async () => {
    const health = await device.health(options);
    if (health.reachable) return { available: true };
    return { available: false, reason: health.error.message, timedOut: health.error instanceof DeviceTimeoutError };
  };
}
