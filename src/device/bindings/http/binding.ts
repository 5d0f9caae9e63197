/**
 * The HTTP binding: JSON over HTTP to a device bridge on a Unix socket (`unix:/run/door.sock`) or
 * at a base URL (`http://127.0.0.1:9000`, `https://plc.local/api`). A workflow's `path` is POSTed
 * its arguments, a state's `path` is read with GET.
 */
import type { DeviceBinding } from '../../client.js';
import { HttpDeviceClient } from './client.js';
import { resolveHttpTarget } from './target.js';

/** The HTTP binding, for the schemes `unix`, `http` and `https`. */
export const httpBinding: DeviceBinding = {
  schemes: ['unix', 'http', 'https'],
  describe: (target) => resolveHttpTarget(target).description,
  open: (target, settings) => new HttpDeviceClient(resolveHttpTarget(target), settings),
};
