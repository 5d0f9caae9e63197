/**
 * The one place device bindings are registered, by URI scheme: a device target such as
 * `unix:/run/door.sock` or `http://127.0.0.1:9000` is opened by the binding of its scheme. A new
 * transport is one folder under `bindings/` and one entry in {@link BUILT_IN}.
 */
import { ValueError } from '../errors.js';
import { createLogger } from '../lib/logger.js';
import { LIMITS } from '../limits.js';
import { httpBinding } from './bindings/http/binding.js';
import type { DeviceBinding, DeviceClient, DeviceClientOptions } from './client.js';
import { assertByteLimit, shown } from './values.js';

/** The bindings that ship with the sidecar. */
const BUILT_IN: readonly DeviceBinding[] = [httpBinding];

const bindings = new Map<string, DeviceBinding>();
// A URI scheme (RFC 3986 §3.1), then the colon.
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/u;
const SCHEME_NAME = /^[a-z][a-z0-9+.-]*$/u;

/**
 * Registers a binding for its schemes, e.g. a test's fake or a plug-in transport.
 * @returns a function that removes the registration again.
 * @throws ValueError when a scheme is not a lower-case URI scheme or already has a binding.
 * @example const unregister = registerDeviceBinding({ schemes: ['fake'], describe: (t) => t, open: () => fakeClient });
 */
export function registerDeviceBinding(binding: DeviceBinding): () => void {
  for (const scheme of binding.schemes) {
    if (!SCHEME_NAME.test(scheme))
      throw new ValueError(`device binding scheme ${shown(scheme)} is not a lower-case URI scheme (e.g. "mqtt")`);
    if (bindings.has(scheme)) throw new ValueError(`device binding scheme "${scheme}:" is registered already`);
  }
  for (const scheme of binding.schemes) bindings.set(scheme, binding);
  return () => {
    for (const scheme of binding.schemes) if (bindings.get(scheme) === binding) bindings.delete(scheme);
  };
}

for (const binding of BUILT_IN) registerDeviceBinding(binding);

/** The schemes served, as error messages list them: `"unix:", "http:", "https:"`. */
const knownSchemes = (): string => [...bindings.keys()].map((s) => `"${s}:"`).join(', ');

/** The binding for `target`'s scheme, and how that binding describes the target. */
function bound(target: unknown): { binding: DeviceBinding; description: string } {
  if (typeof target !== 'string') throw new ValueError(`device target ${shown(target)} is not a string`);
  const scheme = SCHEME.exec(target)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    throw new ValueError(
      `device target ${shown(target)} names no scheme (expected e.g. "unix:/run/door.sock" or "http://127.0.0.1:9000"; known schemes: ${knownSchemes()})`,
    );
  }
  const binding = bindings.get(scheme);
  if (!binding) {
    throw new ValueError(
      `device target ${shown(target)} has scheme "${scheme}:", which no device binding serves (known: ${knownSchemes()})`,
    );
  }
  return { binding, description: binding.describe(target) };
}

/**
 * Checks a device target as configuration and the command line write it: `unix:/run/door.sock`
 * (or `unix:relative.sock`), `http(s)://host:port/base`, or a scheme a registered binding serves.
 * @returns the target, unchanged.
 * @throws ValueError naming the value for an unknown scheme or a target its binding cannot use.
 * @example parseDeviceTarget('unix:/run/door.sock') // 'unix:/run/door.sock'
 */
export function parseDeviceTarget(text: string): string {
  bound(text);
  return text;
}

/**
 * Opens the device at `target` through the binding of its scheme. Nothing need connect until the
 * first call, so the bridge may start later.
 * @throws ValueError naming the value for an unknown scheme, an unusable target or a bad option.
 * @example
 * const device = openDevice('unix:/run/door-bridge.sock', { logger });
 * const open = workflowProxy(device, { name: 'open', capabilityClass, workflowClass, path: '/open' });
 * await open({}); // { ok: true, door: 'open' }
 * await device.close();
 */
export function openDevice(target: string, options: DeviceClientOptions = {}): DeviceClient {
  const { binding, description } = bound(target);
  const maxReplyBytes = assertByteLimit(options.maxReplyBytes ?? LIMITS.deviceReplyMaxBytes, 'maxReplyBytes');
  const logger = (options.logger ?? createLogger({ level: 'silent' })).child({ device: description });
  return binding.open(target, { maxReplyBytes, logger });
}
