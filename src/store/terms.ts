import { ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import { LIMITS } from '../limits.js';
import { TIMESTAMP_DATATYPE, w3, xsd } from '../vocab/terms.js';

/**
 * The RDF terms the product moves around. Plain objects in the RDF/JS shape, so N3 and
 * oxigraph terms can be read as these without conversion.
 */
export interface NamedNodeTerm {
  readonly termType: 'NamedNode';
  readonly value: string;
}
export interface LiteralTerm {
  readonly termType: 'Literal';
  readonly value: string;
  /** Full datatype IRI; `xsd:string` for plain literals, `rdf:langString` with a language. */
  readonly datatype: string;
  readonly language?: string;
}
export interface BlankNodeTerm {
  readonly termType: 'BlankNode';
  readonly value: string;
}
export type Term = NamedNodeTerm | LiteralTerm | BlankNodeTerm;

/** A named node for a checked absolute IRI. */
export function namedNode(iri: string): NamedNodeTerm {
  return { termType: 'NamedNode', value: assertIri(iri) };
}

/** A literal; `xsd:string` (a plain string in the graph) unless a datatype is given. */
export function literal(value: string, datatype: string = xsd.string): LiteralTerm {
  return { termType: 'Literal', value, datatype };
}

/** A language-tagged string literal. */
export function langLiteral(value: string, language: string): LiteralTerm {
  return { termType: 'Literal', value, datatype: w3.langString, language };
}

/**
 * A timestamp literal ({@link TIMESTAMP_DATATYPE}, `xsd:dateTime`) in ISO 8601 with offset, as the
 * reference writes timestamps: the one place a timestamp's literal form is made.
 */
export function dateTimeLiteral(date: Date = new Date()): LiteralTerm {
  return literal(date.toISOString(), TIMESTAMP_DATATYPE);
}

// Inside "..." SPARQL and Turtle forbid a raw quote, backslash, LF and CR; the rest is escaped
// too so that logs and journals stay one line per request.
const LITERAL_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};
// Other control characters go as \uXXXX escapes: SPARQL allows them raw, but Virtuoso's parser
// takes a raw U+0000 for the end of the text ("Unterminated string") and fails the request.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f]/gu;

function escapeChar(ch: string): string {
  return LITERAL_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/u;

function checkLexical(value: unknown): string {
  if (typeof value !== 'string') throw new ValueError(`literal value must be a string, got ${typeof value}`);
  if (value.length > LIMITS.maxLiteralLength) {
    throw new ValueError(`literal value is longer than ${LIMITS.maxLiteralLength} characters`);
  }
  if (!value.isWellFormed()) throw new ValueError(`literal value ${preview(value)} contains a lone surrogate (not valid Unicode)`);
  // Refused on every store, so data stays portable between them: Virtuoso stores some such texts
  // (seen: "\uFEFF__proto__\u0000") so that a later DELETE ... WHERE of the same value matches nothing.
  if (value.includes('\u0000'))
    throw new ValueError(`literal value ${preview(value)} contains U+0000 (NUL), which SPARQL stores do not keep faithfully`);
  return value;
}

/** `<iri>` after checking that the IRI cannot break out of the brackets. */
export function sparqlIri(iri: string): string {
  return `<${assertIri(iri)}>`;
}

/** A quoted, escaped literal with its datatype or language; `xsd:string` is written plain. */
export function sparqlLiteral(term: Pick<LiteralTerm, 'value' | 'datatype' | 'language'>): string {
  const quoted = `"${checkLexical(term.value).replace(NEEDS_ESCAPE, escapeChar)}"`;
  if (term.language) {
    if (!LANGUAGE_TAG.test(term.language)) throw new ValueError(`language tag ${preview(term.language)} is not valid`);
    return `${quoted}@${term.language}`;
  }
  if (term.datatype === w3.langString)
    throw new ValueError(
      `literal ${preview(term.value)} has datatype rdf:langString but no language tag (language ${preview(term.language ?? '')})`,
    );
  // An absent datatype means xsd:string; an empty one is a malformed term and refused by sparqlIri.
  if (term.datatype === undefined || term.datatype === xsd.string) return quoted;
  return `${quoted}^^${sparqlIri(term.datatype)}`;
}

/** Serializes any term for SPARQL text. Blank nodes are refused: the product never writes them. */
export function sparqlTerm(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return sparqlIri(term.value);
    case 'Literal':
      return sparqlLiteral(term);
    default:
      throw new ValueError(`cannot write a ${String((term as Term).termType)} into SPARQL text`);
  }
}

/** A SPARQL variable name, checked so that no input can smuggle text through it. */
export function sparqlVar(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/u.test(name)) throw new ValueError(`${preview(name)} is not a SPARQL variable name`);
  return `?${name}`;
}
