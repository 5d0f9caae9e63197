import { ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { iriSyntaxProblem } from './syntax.js';

// SPARQL's IRIREF excludes these and every code point up to U+0020; any of them could end a
// `<...>` term early and let the rest of a string run as query text. Unicode white space and C1
// controls are refused too: no real IRI holds them, and they make logs and errors misleading.
// eslint-disable-next-line no-control-regex -- refusing control characters is this pattern's job
const FORBIDDEN = /[\u0000-\u0020<>"{}|^`\\\u007f-\u009f\s]/u;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

// IRIs found valid lately. The serializer checks every IRI it writes, and a dispatch writes the
// same class, property and graph IRIs again and again: a lookup instead of the RFC 3987 walk.
// Validity depends on the text alone, so an entry never goes stale; the set is emptied when full.
const VALID = new Set<string>();

/** Explains why `value` is not an acceptable absolute IRI, or returns undefined when it is. */
export function iriProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && VALID.has(value)) return undefined;
  const problem = findProblem(value);
  if (problem === undefined) {
    if (VALID.size >= LIMITS.validIriCacheSize) VALID.clear();
    VALID.add(value as string);
  }
  return problem;
}

function findProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `expected a string, got ${typeof value}`;
  if (value.length === 0) return 'it is empty';
  if (value.length > LIMITS.maxIriLength) return `it is longer than ${LIMITS.maxIriLength} characters`;
  if (!SCHEME.test(value)) return 'it has no scheme (an absolute IRI starts like "https:" or "urn:")';
  const bad = FORBIDDEN.exec(value);
  if (bad) return `it contains the character ${JSON.stringify(bad[0])}, which IRIs may not hold`;
  if (!value.isWellFormed()) return 'it contains a lone surrogate';
  return iriSyntaxProblem(value.slice(value.indexOf(':') + 1));
}

/** True when `value` is an absolute IRI that is safe inside `<...>` in SPARQL and Turtle. */
export function isIri(value: unknown): value is string {
  return iriProblem(value) === undefined;
}

/**
 * Returns `value` when it is an absolute IRI, or throws a {@link ValueError} naming `what`.
 * @example assertIri(resourceIri, 'resourceIri')
 */
export function assertIri(value: unknown, what = 'IRI'): string {
  const problem = iriProblem(value);
  if (problem !== undefined) {
    throw new ValueError(`${what} ${preview(value)} is not a valid absolute IRI: ${problem}`);
  }
  return value as string;
}

/** A short, safe rendering of a bad value for an error message. */
export function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : printable(value);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

// String() throws for an object without a prototype (or with a throwing toString): the message
// that reports a bad value must not fail itself.
function printable(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
