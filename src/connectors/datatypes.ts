/**
 * Typing a live value by its parameter's datatype (the range restriction on `inf:hasValue`): a
 * candidate that does not fit is refused with a reason, never served or sent.
 */
import { XSD } from '../vocab/namespaces.js';
import { xsd } from '../vocab/terms.js';

/** A JSON scalar a parameter holds. */
export type ParameterValue = string | number | boolean;

/** The outcome of typing a candidate: the value, or why it does not fit. */
export type Typed = { readonly ok: true; readonly value: ParameterValue } | { readonly ok: false; readonly reason: string };

const INTEGERS = new Set(
  ['integer', 'int', 'long', 'short', 'byte', 'nonNegativeInteger', 'positiveInteger', 'unsignedInt', 'unsignedLong', 'unsignedShort'].map(
    (local) => XSD(local),
  ),
);
const NON_NEGATIVE = new Set(['nonNegativeInteger', 'unsignedInt', 'unsignedLong', 'unsignedShort'].map((local) => XSD(local)));
const NUMBERS = new Set(['float', 'double', 'decimal'].map((local) => XSD(local)));

/** The datatype of a parameter whose range names none: any JSON scalar. */
export const ANY_SCALAR = 'any';

/** The short name of a datatype in messages and answers: `xsd:float`. */
export function datatypeLabel(datatype: string): string {
  return datatype.startsWith(XSD.iri) ? `xsd:${datatype.slice(XSD.iri.length)}` : datatype;
}

/**
 * Types `candidate` (a parsed JSON value) as `datatype` requires: strings for `xsd:string`,
 * `true`/`false` for `xsd:boolean`, safe integers for the integer types, finite numbers for
 * `xsd:float`/`double`/`decimal`; any other datatype takes any JSON scalar.
 * @example typeValue(xsd.boolean, 'yes') // { ok: false, reason: 'expected xsd:boolean, got a string' }
 */
export function typeValue(datatype: string, candidate: unknown): Typed {
  const got = (): Typed => ({ ok: false, reason: `expected ${datatypeLabel(datatype)}, got ${describe(candidate)}` });
  if (datatype === xsd.string) return typeof candidate === 'string' ? { ok: true, value: candidate } : got();
  if (datatype === xsd.boolean) return typeof candidate === 'boolean' ? { ok: true, value: candidate } : got();
  if (INTEGERS.has(datatype)) {
    if (typeof candidate !== 'number' || !Number.isSafeInteger(candidate)) return got();
    return NON_NEGATIVE.has(datatype) && candidate < 0 ? got() : { ok: true, value: candidate };
  }
  if (NUMBERS.has(datatype)) return typeof candidate === 'number' && Number.isFinite(candidate) ? { ok: true, value: candidate } : got();
  if (typeof candidate === 'string' || typeof candidate === 'boolean' || (typeof candidate === 'number' && Number.isFinite(candidate)))
    return { ok: true, value: candidate };
  return got();
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return `a ${typeof value === 'object' ? 'JSON object' : typeof value}`;
}
