/**
 * Validation of where a device listens (an http(s) URL or a Unix socket path) and of the paths
 * requested on it. Checked once, when a transport or a proxy is built.
 */
import { ValueError } from '../errors.js';
import { preview } from '../iri/validate.js';

/** A bad value as an error message shows it: strings quoted and shortened, numbers as written. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return preview(value);
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return preview(JSON.stringify(value));
  } catch {
    return 'an object that is not JSON';
  }
}

/** Where the co-located device listens: a base URL, or a Unix socket path. */
export type DeviceTarget = { url: string } | { socketPath: string };

/** A validated target: where the transport's agent connects and what it puts in front of paths. */
export interface ResolvedTarget {
  /** Origin given to the pool (`http://localhost` for a Unix socket; the Host header comes from it). */
  origin: string;
  /** Path prefix of the base URL, without a trailing `/` (`''` for none and for sockets). */
  basePath: string;
  /** Socket path, for a Unix-socket target. */
  socketPath?: string;
  /** How the target appears in logs and errors: the URL, or `unix:<path>`. */
  description: string;
}

// Linux's sun_path holds 108 bytes including the terminating NUL; longer paths cannot be bound.
const MAX_SOCKET_PATH_BYTES = 107;
// A device path is an absolute path, optionally with a query; no fragment, spaces or controls.
const DEVICE_PATH = /^\/(?!\/)[^\s#\u0000-\u001f\u007f]*$/u;

function resolveUrl(raw: unknown): ResolvedTarget {
  let url: URL | undefined;
  try {
    url = typeof raw === 'string' ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  const expected = 'expected an http(s) URL such as "http://127.0.0.1:9000"';
  if (!url) throw new ValueError(`device url ${shown(raw)} is not a URL (${expected})`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValueError(`device url ${preview(raw)} has scheme ${JSON.stringify(url.protocol)} (${expected})`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ValueError(`device url ${preview(raw)} may not carry credentials, a query or a fragment (${expected})`);
  }
  const basePath = url.pathname.replace(/\/+$/u, '');
  return { origin: url.origin, basePath, description: `${url.origin}${basePath}` };
}

function resolveSocket(raw: unknown): ResolvedTarget {
  if (typeof raw !== 'string' || raw.trim() === '' || raw.includes('\u0000')) {
    throw new ValueError(`device socketPath ${shown(raw)} is not a file path (expected e.g. "/run/door-bridge.sock")`);
  }
  if (Buffer.byteLength(raw) > MAX_SOCKET_PATH_BYTES) {
    throw new ValueError(
      `device socketPath ${preview(raw)} is longer than ${MAX_SOCKET_PATH_BYTES} bytes, the most a Unix socket address holds; use a shorter path`,
    );
  }
  return { origin: 'http://localhost', basePath: '', socketPath: raw, description: `unix:${raw}` };
}

/**
 * Checks a device target and returns what a transport needs.
 * @throws ValueError naming the value when the URL is not http(s) (or carries credentials, a
 * query or a fragment), or the socket path is empty or too long. The socket file need not exist
 * yet: the bridge may start after the sidecar.
 * @example resolveTarget({ socketPath: '/run/door.sock' }).description // 'unix:/run/door.sock'
 */
export function resolveTarget(target: DeviceTarget): ResolvedTarget {
  const given = target as Partial<{ url: unknown; socketPath: unknown }> | null;
  const hasUrl = given?.url !== undefined;
  const hasSocket = given?.socketPath !== undefined;
  if (hasUrl === hasSocket) {
    throw new ValueError(`device target ${shown(target)} must have exactly one of "url" and "socketPath"`);
  }
  return hasUrl ? resolveUrl(given!.url) : resolveSocket(given!.socketPath);
}

/**
 * Reads a device target written as one string, as in configuration files and on the command
 * line: `unix:/run/door.sock` (or `unix:relative.sock`) for a Unix socket, an http(s) URL otherwise.
 * @throws ValueError naming the value when it is neither.
 * @example parseDeviceTarget('unix:/run/door.sock') // { socketPath: '/run/door.sock' }
 */
export function parseDeviceTarget(text: string): DeviceTarget {
  if (typeof text !== 'string') throw new ValueError(`device target ${shown(text)} is not a string`);
  const target: DeviceTarget = text.startsWith('unix:') ? { socketPath: text.slice(5) } : { url: text };
  resolveTarget(target);
  return target;
}

/**
 * Returns `path` when it is an absolute device path (`/open`, `/state/door?verbose=1`), or throws a
 * ValueError naming `what`.
 */
export function assertDevicePath(path: unknown, what = 'device path'): string {
  if (typeof path !== 'string' || !DEVICE_PATH.test(path)) {
    throw new ValueError(`${what} ${shown(path)} is not an absolute path (expected e.g. "/open", without spaces or "#")`);
  }
  return path;
}

/**
 * Returns `ms` when it is a positive whole number of milliseconds, or throws a ValueError naming `what`.
 */
export function assertTimeout(ms: unknown, what = 'timeoutMs'): number {
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new ValueError(`${what} ${shown(ms)} is not a positive whole number of milliseconds`);
  }
  return ms;
}
