/**
 * Parsing of the numeric request parameters (`after`, `limit`, `Last-Event-ID`).
 */
import { preview } from '../../iri/validate.js';
import { HttpError } from '../../http/http-error.js';

const COUNT = /^\d{1,15}$/;

/**
 * Reads a non-negative integer parameter: undefined when absent, else the number.
 * @throws HttpError 422 naming the parameter and the value when it is not digits only (or was
 *   given more than once).
 */
export function parseCount(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !COUNT.test(value)) {
    const shown = typeof value === 'string' ? preview(value) : 'several values';
    throw new HttpError(422, `${name} must be a non-negative integer, got ${shown}`);
  }
  return Number(value);
}
