/**
 * Checks of the values every binding is given (timeouts, byte limits) and how a bad value is shown
 * in an error message. Checked once, when a client or a proxy is built.
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

/** Returns `ms` when it is a positive whole number of milliseconds, or throws a ValueError naming `what`. */
export function assertTimeout(ms: unknown, what = 'timeoutMs'): number {
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new ValueError(`${what} ${shown(ms)} is not a positive whole number of milliseconds`);
  }
  return ms;
}

/** Returns `bytes` when it is a positive whole number, or throws a ValueError naming `what`. */
export function assertByteLimit(bytes: unknown, what: string): number {
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new ValueError(`${what} ${shown(bytes)} is not a positive whole number of bytes`);
  }
  return bytes;
}
