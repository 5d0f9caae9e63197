/**
 * Whether a listening address is reachable from this machine only: servers listening beyond it
 * must require a token.
 */
import { isIP } from 'node:net';

/**
 * True when `host` is reachable from this machine only: `localhost`, 127.0.0.0/8 or `::1`
 * (in any spelling, IPv4-mapped too). Every other host, wildcards included, is exposed.
 * @example isLoopbackHost('127.0.0.1') // true; isLoopbackHost('0.0.0.0') // false
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/u, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) !== 6) return false;
  let canonical: string;
  try {
    // The URL parser compresses an IPv6 address to one spelling: 0:0:0:0:0:0:0:1 is [::1].
    canonical = new URL(`http://[${h}]`).hostname;
  } catch {
    return false;
  }
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/u.test(canonical);
}
