/**
 * Hostile cases as data: a name, the call to make, and what its error must say. One property runs
 * any of them and checks the error is typed, names the bad value, and the graph is unchanged.
 */
import fc from 'fast-check';
import { isHttpAddress } from '../../../src/iri/address.js';
import { preview } from '../../../src/iri/validate.js';
import { LIMITS } from '../../../src/limits.js';
import type { GraphGuard } from './graph-guard.js';
import { badIri, badIriInput, caught, expectTyped, hostileText, notAString } from './hostile.js';

/** One hostile call. */
export interface HostileCase {
  /** What is hostile, for failure messages. */
  name: string;
  run: () => unknown;
  /** The value the error must name (when set). */
  value?: unknown;
  /** Text the error must contain. */
  mentions?: readonly string[];
  /** Error classes allowed (default: any SemanticMiddlewareError). */
  classes?: readonly (abstract new (...a: never[]) => Error)[];
}

/** What a case's error must name: the bad value, or the limit for a value too long to quote. */
export function expectation(value: unknown): Pick<HostileCase, 'value' | 'mentions'> {
  if (typeof value === 'string' && value.length > LIMITS.maxLiteralLength) return { mentions: [String(LIMITS.maxLiteralLength)] };
  if (value instanceof Date && Number.isNaN(value.getTime())) return { mentions: ['invalid Date'] };
  return { value };
}

/**
 * Cases that put each bad IRI input in turn in place of one argument: `make(bad)` builds the call;
 * `optional` arguments are not given null or "" (both mean "not given").
 * @example iriCases('resourceIri', (bad) => () => registerService(ogm, { ...ok, resourceIri: bad }))
 */
export function iriCases(
  name: string,
  make: (bad: unknown) => () => unknown,
  classes?: HostileCase['classes'],
  optional = false,
): fc.Arbitrary<HostileCase> {
  // For an optional argument, null means "not given" and is not hostile. Symbols are left out:
  // used as a property key they are invisible to Object.entries, so nothing is wrong there.
  const bads = badIriInput.filter((v) => typeof v !== 'symbol' && (!optional || (v != null && v !== '')));
  return bads.map((bad) => ({
    name: `${name} = ${preview(bad)}`,
    run: make(bad),
    value: bad,
    mentions: [name],
    ...(classes && { classes }),
  }));
}

/** Bad values for a literal: lone surrogates, too long, wrong JS types and shapes. */
export const badLiteralValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText.filter((s) => !s.isWellFormed()),
  fc.constant('x'.repeat(LIMITS.maxLiteralLength + 1)),
  fc.constantFrom(null, undefined, Number.NaN, Number.POSITIVE_INFINITY, 10n ** 30n, Symbol('fuzz')),
  fc.constant({}),
  fc.constant([[1]]),
  fc.constant({ nested: { deeper: ['x'] } }),
  fc.constant(new Date(Number.NaN)),
  notAString.filter((v) => typeof v === 'object' && v !== null && !(v instanceof Date) && !Array.isArray(v)),
);

/**
 * Runs `cases` as one property: every case must fail with a typed error naming its value, and
 * leave `guard`'s graphs as they were.
 */
export function hostileProperty(cases: fc.Arbitrary<HostileCase>, guard: GraphGuard): fc.IAsyncProperty<[HostileCase]> {
  return fc.asyncProperty(cases, async (c) => {
    const error = await caught(c.run);
    try {
      expectTyped(error, {
        ...(c.classes && { classes: c.classes }),
        ...('value' in c && { value: c.value }),
        ...(c.mentions && { mentions: c.mentions }),
      });
    } catch (e) {
      throw new Error(`case ${c.name}: ${(e as Error).message}`, { cause: e });
    }
    await guard.expectUnchanged(c.name);
  });
}

/** Cases with a bad IRI as a property key (`make(key)` builds the call); keys are strings. */
export function keyCases(name: string, make: (key: string) => () => unknown): fc.Arbitrary<HostileCase> {
  return badIri.map((bad) => ({ name: `${name} = ${preview(bad)}`, run: make(bad), value: bad, mentions: [name] }));
}

/** Cases with a bad address (refused even after trimming, as normalization trims). */
export function addressCases(name: string, make: (bad: unknown) => () => unknown): fc.Arbitrary<HostileCase> {
  return badIriInput
    .filter((v) => typeof v !== 'symbol' && !isHttpAddress(v))
    .map((bad) => ({ name: `${name} = ${preview(bad)}`, run: make(bad), value: bad, mentions: [name] }));
}
