/**
 * Small helpers for the JSON values that cross the surface: shape checks on parsed bodies and
 * serving a handler's raw return value.
 */
import type { Response } from 'express';

/** True for a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON kind of a parsed value for error messages: `array`, `null`, `string`, ... */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * Answers 200 with `value` as raw JSON, no envelope (`"closed"`, `42`, `{...}`), as the
 * Python reference does; `undefined` (a handler that returns nothing) is served as `null`.
 */
export function sendValue(res: Response, value: unknown): void {
  res.json(value === undefined ? null : value);
}
