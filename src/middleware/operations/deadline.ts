import { ValueError } from '../../errors.js';
import { preview } from '../../iri/validate.js';

/**
 * An Operation's deadline (`sm:deadline`) as callers give it: a Date, or an `xsd:dateTime` text
 * with its time zone (`2026-11-25T18:00:00Z`, `2026-11-25T19:00:00.250+01:00`). A deadline that
 * has passed already is refused: the Operation could never run.
 */

// xsd:dateTime with a mandatory zone: a deadline without one would mean different instants to
// the caller, the store and the receiver.
const DATE_TIME = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/u;

/**
 * The deadline `value` stands for, checked: a valid instant after `now`.
 * @throws ValueError naming `what` and the value for a malformed or past deadline.
 * @example parseDeadline('2030-01-01T00:00:00Z', 'deadline')
 */
export function parseDeadline(value: unknown, what: string, now: Date = new Date()): Date {
  let deadline: Date;
  if (value instanceof Date) deadline = value;
  else if (typeof value === 'string' && DATE_TIME.test(value)) deadline = new Date(value);
  else throw new ValueError(`${what} must be a date-time with a time zone (e.g. 2030-01-01T00:00:00Z), got ${preview(value)}`);
  if (Number.isNaN(deadline.getTime())) throw new ValueError(`${what} ${preview(value)} is not a valid date-time`);
  if (deadline.getTime() <= now.getTime()) {
    throw new ValueError(`${what} ${deadline.toISOString()} has passed already (now ${now.toISOString()}): the Operation could never run`);
  }
  return deadline;
}

/** True when `deadline` is set and `now` is at or past it. */
export function deadlinePassed(deadline: Date | undefined, now: Date = new Date()): deadline is Date {
  return deadline !== undefined && now.getTime() >= deadline.getTime();
}

/** The reason written into `svc:executionResult` of an Operation whose deadline passed before it started. */
export function deadlineReason(deadline: Date): string {
  return `deadline ${deadline.toISOString()} passed before the operation started; not run`;
}
