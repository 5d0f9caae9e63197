/**
 * OPC UA values and JSON scalars: a variable's Variant as the JSON value a parameter serves,
 * whether the variable's built-in type can hold the parameter's datatype at all, and a JSON
 * value as the Variant of a setpoint or a method argument. Numbers are the built-in type
 * numbers of OPC UA Part 6 (`DataType` of node-opcua), so this module needs no node-opcua import.
 */
import { XSD } from '../../vocab/namespaces.js';
import { xsd } from '../../vocab/terms.js';
import { ANY_SCALAR, datatypeLabel } from '../datatypes.js';

/** OPC UA built-in types (Part 6, 5.1.2) this module converts. */
export const BuiltIn = Object.freeze({
  Boolean: 1,
  SByte: 2,
  Byte: 3,
  Int16: 4,
  UInt16: 5,
  Int32: 6,
  UInt32: 7,
  Int64: 8,
  UInt64: 9,
  Float: 10,
  Double: 11,
  String: 12,
  DateTime: 13,
  Guid: 14,
  LocalizedText: 21,
} as const);

const NAMES = new Map<number, string>(Object.entries(BuiltIn).map(([name, n]) => [n, name]));
const RANGES = new Map<number, readonly [number, number]>([
  [BuiltIn.SByte, [-128, 127]],
  [BuiltIn.Byte, [0, 255]],
  [BuiltIn.Int16, [-32_768, 32_767]],
  [BuiltIn.UInt16, [0, 65_535]],
  [BuiltIn.Int32, [-2_147_483_648, 2_147_483_647]],
  [BuiltIn.UInt32, [0, 4_294_967_295]],
  [BuiltIn.Int64, [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]],
  [BuiltIn.UInt64, [0, Number.MAX_SAFE_INTEGER]],
]);
const TEXTS: ReadonlySet<number> = new Set([BuiltIn.String, BuiltIn.LocalizedText, BuiltIn.DateTime, BuiltIn.Guid]);
const INTEGER_XSD = [
  'integer',
  'int',
  'long',
  'short',
  'byte',
  'nonNegativeInteger',
  'positiveInteger',
  'unsignedInt',
  'unsignedLong',
  'unsignedShort',
];

/** The name of a built-in type number, for messages: `Double`, or `type 22` for one not converted here. */
export function builtInName(dataType: number): string {
  return NAMES.get(dataType) ?? `type ${dataType}`;
}

/** The part of a Variant this module reads: node-opcua's `Variant` has these fields. */
export interface VariantLike {
  readonly dataType: number;
  /** 0 for a scalar (node-opcua's `VariantArrayType.Scalar`). */
  readonly arrayType: number;
  readonly value: unknown;
}

/** A Variant's value as a JSON scalar, or why it has none. */
export function variantToJson(variant: VariantLike): { candidate: unknown } | { reason: string } {
  if (variant.arrayType !== 0) return { reason: "the server's value is an array, not a scalar" };
  const { dataType, value } = variant;
  if (dataType === BuiltIn.Boolean || dataType === BuiltIn.String) return { candidate: value };
  if (dataType === BuiltIn.Int64 || dataType === BuiltIn.UInt64) return int64ToJson(value, dataType === BuiltIn.Int64);
  if (RANGES.has(dataType) || dataType === BuiltIn.Float || dataType === BuiltIn.Double) return { candidate: value };
  if (dataType === BuiltIn.LocalizedText) return { candidate: (value as { text?: unknown } | null)?.text ?? null };
  if (dataType === BuiltIn.DateTime) return value instanceof Date ? { candidate: value.toISOString() } : { candidate: null };
  if (dataType === BuiltIn.Guid) return { candidate: String(value) };
  return { reason: `the server's value is of OPC UA ${builtInName(dataType)}, not a JSON scalar` };
}

// node-opcua holds 64-bit integers as [high, low] 32-bit words.
function int64ToJson(value: unknown, signed: boolean): { candidate: unknown } | { reason: string } {
  if (!Array.isArray(value) || value.length !== 2) return { candidate: value };
  const [high, low] = value as [number, number];
  const n = (signed && high >= 0x8000_0000 ? high - 0x1_0000_0000 : high) * 0x1_0000_0000 + low;
  return Number.isSafeInteger(n) ? { candidate: n } : { reason: "the server's 64-bit value does not fit a JSON number exactly" };
}

/**
 * Whether a variable of built-in type `dataType` can hold values of the parameter's `datatype`
 * (booleans in Boolean, integers in the integer types, numbers in Float/Double or an integer
 * type, strings in the text types); any datatype this module does not know takes any scalar.
 */
export function holds(datatype: string, dataType: number): boolean {
  if (datatype === ANY_SCALAR || !datatype.startsWith(XSD.iri)) return true;
  if (datatype === xsd.boolean) return dataType === BuiltIn.Boolean;
  if (datatype === xsd.string) return TEXTS.has(dataType);
  if (INTEGER_XSD.some((local) => XSD(local) === datatype)) return RANGES.has(dataType);
  if (['float', 'double', 'decimal'].some((local) => XSD(local) === datatype))
    return RANGES.has(dataType) || dataType === BuiltIn.Float || dataType === BuiltIn.Double;
  return true;
}

/** Why a variable of `dataType` cannot serve a parameter of `datatype`. */
export function mismatch(datatype: string, dataType: number): string {
  return `the server's variable is of OPC UA ${builtInName(dataType)}, which does not hold ${datatypeLabel(datatype)}`;
}

/**
 * The Variant fields (`{ dataType, value }`) of `value` written to a variable or argument of
 * built-in type `dataType`, or why it does not fit.
 */
export function jsonToVariant(
  dataType: number,
  value: unknown,
): { ok: true; dataType: number; value: unknown } | { ok: false; reason: string } {
  const refuse = (expected: string): { ok: false; reason: string } => ({
    ok: false,
    reason: `expected ${expected} for OPC UA ${builtInName(dataType)}, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`,
  });
  const range = RANGES.get(dataType);
  if (range !== undefined) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range[0] || value > range[1])
      return refuse(`an integer from ${range[0]} to ${range[1]}`);
    return { ok: true, dataType, value };
  }
  if (dataType === BuiltIn.Float || dataType === BuiltIn.Double)
    return typeof value === 'number' && Number.isFinite(value) ? { ok: true, dataType, value } : refuse('a finite number');
  if (dataType === BuiltIn.Boolean) return typeof value === 'boolean' ? { ok: true, dataType, value } : refuse('true or false');
  if (dataType === BuiltIn.String) return typeof value === 'string' ? { ok: true, dataType, value } : refuse('a string');
  if (dataType === BuiltIn.LocalizedText)
    return typeof value === 'string' ? { ok: true, dataType, value: { text: value } } : refuse('a string');
  return { ok: false, reason: `values of OPC UA ${builtInName(dataType)} are not written by this connector` };
}
