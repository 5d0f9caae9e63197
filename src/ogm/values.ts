import { ValidationError } from '../errors.js';
import { isIri, preview } from '../iri/validate.js';
import { dateTimeLiteral, literal, type LiteralTerm, type NamedNodeTerm, type Term } from '../store/terms.js';
import { RDFS, XSD } from '../vocab/namespaces.js';
import { xsd } from '../vocab/terms.js';
import type { PropertyInfo } from './tbox.js';

/**
 * A value a caller may give for a property. Terms are taken as they are; plain JS values are
 * turned into the term the property's declaration calls for: an IRI for an object property, a
 * literal of the declared range datatype for a datatype property.
 */
export type ValueInput = string | number | boolean | Date | Term;

function reject(property: string, rule: string, message: string): never {
  throw new ValidationError(`${message} (property <${property}>, rule: ${rule})`, { property, rule });
}

/** The datatype a literal of this property must carry, or undefined when any is accepted. */
export function rangeDatatype(info: PropertyInfo): string | undefined {
  const r = info.ranges.find((x) => x.startsWith(XSD.iri) || x === RDFS('Literal'));
  return r === RDFS('Literal') ? undefined : r;
}

/** Turns one input value into the term written for `info`'s property. */
export function toTerm(info: PropertyInfo, value: ValueInput): Term {
  checkKind(info, value);
  if (info.kind === 'object') return toObject(info, value);
  if (info.kind === 'datatype') return toLiteral(info, value);
  if (typeof value === 'string' || typeof value !== 'object' || value instanceof Date) return toLiteral(info, value);
  return value;
}

function toObject(info: PropertyInfo, value: ValueInput): NamedNodeTerm {
  const iri =
    typeof value === 'string'
      ? value
      : value instanceof Date
        ? undefined
        : typeof value === 'object' && value.termType === 'NamedNode'
          ? value.value
          : undefined;
  if (iri === undefined) {
    reject(info.iri, 'object-property-needs-iri', `<${info.iri}> is an object property and needs an IRI value, got ${describe(value)}`);
  }
  if (!isIri(iri)) reject(info.iri, 'valid-iri', `value ${preview(iri)} of <${info.iri}> is not a valid absolute IRI`);
  return { termType: 'NamedNode', value: iri };
}

function toLiteral(info: PropertyInfo, value: ValueInput): LiteralTerm {
  const want = rangeDatatype(info);
  let term: LiteralTerm;
  if (value instanceof Date) term = dateTimeLiteral(validDate(info, value));
  else if (typeof value === 'boolean') term = literal(String(value), xsd.boolean);
  else if (typeof value === 'number') term = numberLiteral(info, value, want);
  else if (typeof value === 'string') term = literal(value, want ?? xsd.string);
  else if (value.termType === 'Literal') term = value;
  else
    return reject(
      info.iri,
      'datatype-property-needs-literal',
      `<${info.iri}> is a datatype property and needs a literal, got ${describe(value)}`,
    );
  if (want && term.datatype !== want) {
    reject(info.iri, 'range-datatype', `<${info.iri}> takes literals of <${want}>, got one of <${term.datatype}>`);
  }
  checkLexicalForm(info.iri, term);
  return term;
}

function validDate(info: PropertyInfo, d: Date): Date {
  if (Number.isNaN(d.getTime())) reject(info.iri, 'valid-date', `an invalid Date was given for <${info.iri}>`);
  return d;
}

function numberLiteral(info: PropertyInfo, n: number, want: string | undefined): LiteralTerm {
  if (!Number.isFinite(n)) reject(info.iri, 'finite-number', `<${info.iri}> got ${n}, which is not a finite number`);
  if (want === xsd.double) return literal(String(n), xsd.double);
  if (want === xsd.decimal || !Number.isInteger(n)) return literal(String(n), want ?? xsd.decimal);
  return literal(String(n), want ?? xsd.integer);
}

// Lexical forms of the datatypes the product writes; a literal that does not match would be
// stored as an ill-typed literal that comparisons silently skip.
const LEXICAL: Readonly<Record<string, RegExp>> = {
  [xsd.dateTime]: /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/u,
  [xsd.boolean]: /^(true|false|0|1)$/u,
  [xsd.integer]: /^[+-]?\d+$/u,
  [xsd.nonNegativeInteger]: /^\+?\d+$/u,
  [xsd.decimal]: /^[+-]?(\d+(\.\d*)?|\.\d+)$/u,
  [xsd.double]: /^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN)$/u,
};

function checkLexicalForm(property: string, term: LiteralTerm): void {
  const pattern = LEXICAL[term.datatype];
  if (pattern && !pattern.test(term.value)) {
    reject(property, 'lexical-form', `${preview(term.value)} is not a valid <${term.datatype}> value for <${property}>`);
  }
  if (term.datatype === xsd.anyURI && /[\s<>"{}|^`\\]/u.test(term.value)) {
    reject(property, 'lexical-form', `${preview(term.value)} is not a valid <${xsd.anyURI}> value for <${property}>`);
  }
}

const TERM_TYPES: ReadonlySet<unknown> = new Set(['NamedNode', 'Literal', 'BlankNode']);

function isTermLike(value: unknown): value is Term {
  return (
    typeof value === 'object' && value !== null && TERM_TYPES.has((value as Term).termType) && typeof (value as Term).value === 'string'
  );
}

// Callers in plain JavaScript (or JSON from a request) may pass anything; a value of no
// accepted kind is a validation error naming it, never a TypeError further down.
function checkKind(info: PropertyInfo, value: unknown): void {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date || isTermLike(value))
    return;
  reject(info.iri, 'value-kind', `<${info.iri}> got ${describe(value)}, which is not a string, number, boolean, Date or RDF term`);
}

function describe(value: unknown): string {
  if (isTermLike(value)) return `a ${value.termType} ${preview(value.value)}`;
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
  return `${kind} ${preview(value)}`;
}
