import { RESERVED_OPERATION_PROPERTIES } from '../../registration/operations.js';
import { ValueError } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import type { Individual } from '../../ogm/ogm.js';
import type { Term } from '../../store/terms.js';
import { SVC, XSD } from '../../vocab/namespaces.js';
import { xsd } from '../../vocab/terms.js';

/**
 * Conversions between graph values and the plain JS values a claim body sees: the Operation's
 * data fields going in, the result coming out as `svc:executionResult`.
 */

/** A data field's value as a claim body sees it. */
export type DataValue = string | number | boolean;

// Written by createOperation or a status transition: not data.
const NOT_DATA = RESERVED_OPERATION_PROPERTIES;
const NUMERIC = new Set(
  [xsd.integer, xsd.decimal, xsd.double, xsd.nonNegativeInteger].concat(
    [
      'int',
      'long',
      'short',
      'byte',
      'float',
      'positiveInteger',
      'negativeInteger',
      'nonPositiveInteger',
      'unsignedInt',
      'unsignedLong',
    ].map((l) => XSD(l)),
  ),
);

/** A term as a plain JS value: IRIs and strings as strings, numeric literals as numbers, booleans as booleans. */
export function plainValue(term: Term): DataValue {
  if (term.termType !== 'Literal') return term.value;
  if (term.datatype === xsd.boolean) return term.value === 'true' || term.value === '1';
  if (NUMERIC.has(term.datatype)) {
    const n = Number(term.value);
    return Number.isFinite(n) ? n : term.value;
  }
  return term.value;
}

/**
 * The Operation's data fields: every property except its type and what createOperation or a
 * status transition writes. `svc:` properties are keyed by local name (`targetAngle`), others by
 * their full IRI. A single value is given as is, several as an array.
 */
export function operationData(operation: Individual): Record<string, DataValue | DataValue[]> {
  const out: Record<string, DataValue | DataValue[]> = {};
  for (const [property, terms] of Object.entries(operation.properties)) {
    if (NOT_DATA.has(property)) continue;
    const key = property.startsWith(SVC.iri) ? property.slice(SVC.iri.length) : property;
    const values = terms.map(plainValue);
    out[key] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/**
 * The text stored as `svc:executionResult`: a string as is, any other value as JSON;
 * undefined (nothing stored) for `undefined` and values JSON cannot represent.
 * @throws ValueError when the text is longer than `LIMITS.maxLiteralLength`, or the value
 *   cannot be serialized (a BigInt, a cycle).
 */
export function resultText(result: unknown): string | undefined {
  if (result === undefined) return undefined;
  let text: string | undefined;
  try {
    text = typeof result === 'string' ? result : JSON.stringify(result);
  } catch (cause) {
    throw new ValueError(`the result cannot be stored: it is not JSON-serializable (${(cause as Error).message})`, { cause });
  }
  if (text !== undefined && text.length > LIMITS.maxLiteralLength) {
    throw new ValueError(`the result cannot be stored: it is ${text.length} characters, more than the limit of ${LIMITS.maxLiteralLength}`);
  }
  return text;
}

/** An error's message, bounded to fit a literal. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.length > LIMITS.maxLiteralLength ? `${text.slice(0, LIMITS.maxLiteralLength - 3)}...` : text;
}
