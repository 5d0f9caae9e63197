import { ValueError } from '../errors.js';

/** An endpoint URL with its userinfo taken out. */
export interface Endpoint {
  /** URL sent to, without userinfo. */
  url: string;
  user?: string;
  password?: string;
}

/**
 * Checks that `raw` is an http(s) URL and splits off its userinfo, so credentials are sent as
 * basic auth and never appear in the URL used in descriptions, errors and logs. `what` names the
 * option in errors.
 */
export function splitCredentials(raw: string, what: string): Endpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValueError(`${what} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValueError(`${what} must be an http(s) URL, got scheme ${JSON.stringify(url.protocol)}`);
  }
  const user = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.username = '';
  url.password = '';
  return { url: url.toString(), ...(user !== undefined && { user }), ...(password !== undefined && { password }) };
}
