import { ValueError } from '../errors.js';

/** An endpoint URL with its userinfo taken out. */
export interface Endpoint {
  /** URL sent to, without userinfo. */
  url: string;
  user?: string;
  password?: string;
}

/**
 * The scheme of an endpoint on a Unix socket, as `store serve --socket` prints it:
 * `http+unix://<percent-encoded socket path>/sparql`.
 */
export const UNIX_SOCKET_SCHEME = 'http+unix:';

/**
 * The socket path of an `http+unix:` URL (its host, percent-decoded), or undefined for another
 * scheme.
 * @throws ValueError when the host names no absolute path.
 */
export function unixSocketOf(url: URL): string | undefined {
  if (url.protocol !== UNIX_SOCKET_SCHEME) return undefined;
  let path = '';
  try {
    path = decodeURIComponent(url.hostname);
  } catch {
    // A malformed escape: refused below like any other host that is not a path.
  }
  if (!path.startsWith('/'))
    throw new ValueError('an http+unix URL names its socket as its host, percent-encoded: http+unix://%2Frun%2Fstore.sock/sparql');
  return path;
}

/**
 * Checks that `raw` is an http(s) URL, or an `http+unix:` one ({@link UNIX_SOCKET_SCHEME}), and
 * splits off its userinfo, so credentials are sent as basic auth and never appear in the URL used
 * in descriptions, errors and logs. `what` names the option in errors.
 */
export function splitCredentials(raw: string, what: string): Endpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValueError(`${what} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== UNIX_SOCKET_SCHEME) {
    throw new ValueError(`${what} must be an http(s) or http+unix URL, got scheme ${JSON.stringify(url.protocol)}`);
  }
  unixSocketOf(url);
  const user = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.username = '';
  url.password = '';
  return { url: url.toString(), ...(user !== undefined && { user }), ...(password !== undefined && { password }) };
}
