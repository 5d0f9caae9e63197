/**
 * The targets the HTTP binding serves, `http:`/`https:` URLs and `unix:` socket paths, and the
 * paths it requests on them. Checked once, when a client or an invoker is built.
 */
import { ValueError } from '../../../errors.js';
import { preview } from '../../../iri/validate.js';
import { shown } from '../../values.js';

/** A checked target: where the agent connects and what it puts in front of paths. */
export interface HttpTarget {
  /** Whether the connection is TLS. */
  secure: boolean;
  /** Host and port for TCP, or the socket path for a Unix socket: spread into every request's options. */
  connect: { hostname: string; port: string } | { socketPath: string };
  /** Path prefix of the base URL, without a trailing `/` (`''` for none and for sockets). */
  basePath: string;
  /** How the target appears in logs and errors: the URL, or `unix:<path>`. */
  description: string;
}

// Linux's sun_path holds 108 bytes including the terminating NUL; longer paths cannot be bound.
const MAX_SOCKET_PATH_BYTES = 107;
// A device path is an absolute path, optionally with a query; no fragment, spaces or controls.
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
const DEVICE_PATH = /^\/(?!\/)[^\s#\u0000-\u001f\u007f]*$/u;
const DOT_SEGMENT = /(^|\/)\.{1,2}(\/|$)/u;
const SOCKET_SCHEME = 'unix:';

function urlTarget(raw: string): HttpTarget {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  const expected = 'expected an http(s) URL such as "http://127.0.0.1:9000"';
  if (!url) throw new ValueError(`device target ${shown(raw)} is not a URL (${expected})`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValueError(`device target ${preview(raw)} has scheme ${JSON.stringify(url.protocol)} (${expected})`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ValueError(`device target ${preview(raw)} may not carry credentials, a query or a fragment (${expected})`);
  }
  const basePath = url.pathname.replace(/\/+$/u, '');
  return {
    secure: url.protocol === 'https:',
    connect: { hostname: url.hostname, port: url.port },
    basePath,
    description: `${url.origin}${basePath}`,
  };
}

function socketTarget(raw: string): HttpTarget {
  const socketPath = raw.slice(SOCKET_SCHEME.length);
  if (socketPath.trim() === '' || socketPath.includes('\u0000')) {
    throw new ValueError(`device target ${shown(raw)} names no socket file (expected e.g. "unix:/run/door-bridge.sock")`);
  }
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new ValueError(
      `device target ${preview(raw)} has a socket path longer than ${MAX_SOCKET_PATH_BYTES} bytes, the most a Unix socket address holds; use a shorter path`,
    );
  }
  return { secure: false, connect: { socketPath }, basePath: '', description: raw };
}

/**
 * Checks a target of the HTTP binding: `unix:<path>` (absolute or relative to the working
 * directory) for HTTP over a Unix socket, an `http(s)` base URL otherwise. The socket file need
 * not exist yet: the bridge may start after the sidecar.
 * @throws ValueError naming the value when the URL carries credentials, a query or a fragment, or
 * the socket path is empty or too long.
 * @example resolveHttpTarget('unix:/run/door.sock').description // 'unix:/run/door.sock'
 */
export function resolveHttpTarget(raw: string): HttpTarget {
  return raw.slice(0, SOCKET_SCHEME.length).toLowerCase() === SOCKET_SCHEME ? socketTarget(raw) : urlTarget(raw);
}

/**
 * Returns `path` when it is an absolute device path (`/open`, `/state/door?verbose=1`), or throws a
 * ValueError naming `what`.
 */
export function assertDevicePath(path: unknown, what: string): string {
  // A `.` or `..` segment could be resolved by a bridge to something outside its API.
  if (typeof path !== 'string' || !DEVICE_PATH.test(path) || DOT_SEGMENT.test(path.split('?')[0]!)) {
    throw new ValueError(
      `${what} ${shown(path)} is not an absolute path (expected e.g. "/open", without spaces, "#", "." or ".." segments)`,
    );
  }
  return path;
}
