/**
 * One-off calls through a DeviceClient, for tests that exercise a binding rather than a declared
 * workflow: each builds the invoker or reader of an ad-hoc form and calls it once.
 */
import type { DeviceClient } from '../../../src/device/index.js';

/** Sends `body` to the workflow at `path` (an HTTP POST). */
export function post(device: DeviceClient, path: string, body: Record<string, unknown> = {}, timeoutMs = 5000): Promise<unknown> {
  return device.invoker({ label: `workflow at ${path}`, path, timeoutMs })(body);
}

/** Reads the state at `path` (an HTTP GET). */
export function get(device: DeviceClient, path: string, timeoutMs = 5000): Promise<unknown> {
  return device.reader({ label: `state at ${path}`, path, timeoutMs })();
}
