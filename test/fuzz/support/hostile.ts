/**
 * Hostile inputs for the fuzz suite: text made to break out of a SPARQL or Turtle term, IRIs that
 * must be refused, IRIs and literals that are valid but look like an attack (and must be stored
 * exactly as given), wrong JS types, and the check that an error is typed and names the value.
 */
import { expect } from '@jest/globals';
import fc from 'fast-check';
import { SemanticMiddlewareError } from '../../../src/errors.js';
import { isIri, preview } from '../../../src/iri/validate.js';
import { LIMITS } from '../../../src/limits.js';

/** A graph no test writes to; an injection that escaped its term would most likely hit it (or every graph). */
export const EVIL_GRAPH = 'urn:fuzz:evil';

/** Pieces of text that end a term, start another operation, or confuse a parser or a log line. */
export const BREAKOUTS: readonly string[] = [
  '"',
  "'",
  '>',
  '<',
  '}',
  '{',
  '\n',
  '\r',
  '\u0000',
  '\\u003E',
  '\\u0022',
  '\\U0000003E',
  '\\',
  '#',
  ' ',
  ' ; DROP ALL',
  ' ; DROP ALL ; ',
  '; CLEAR GRAPH <urn:fuzz:canary>',
  `INSERT DATA { GRAPH <${EVIL_GRAPH}> { <urn:fuzz:a> <urn:fuzz:b> <urn:fuzz:c> } }`,
  `> } } ; INSERT DATA { GRAPH <${EVIL_GRAPH}> { <urn:fuzz:a> <urn:fuzz:b> "x" } } #`,
  `" } } ; DROP ALL ; INSERT DATA { GRAPH <${EVIL_GRAPH}> { <urn:fuzz:a> <urn:fuzz:b> "`,
  '"""',
  "'''",
  '^^<http://www.w3.org/2001/XMLSchema#integer>',
  '@en',
  '?s',
  '$o',
  '*/',
  '/*',
  '#\n',
  'SERVICE <http://127.0.0.1:9/sparql>',
  '%3E',
  '%22',
  '%00',
  '%7D',
  '%0A',
  '%ZZ',
  '%',
  '%E0%A4%A',
  '\uD800',
  '\uDFFF',
  '\u2028',
  '\u2029',
  '\u202E',
  '\u00A0',
  '\uFEFF',
  '\u0085',
  '\u007F',
  '\t',
  '`',
  '|',
  '^',
  '\u{1F600}',
  'é',
  '../',
  '..\\',
  '__proto__',
  'constructor',
];

/** Characters an IRI may not hold: each makes a string invalid wherever it stands. */
export const FORBIDDEN_IN_IRI: readonly string[] = [
  '>',
  '<',
  '"',
  '{',
  '}',
  '|',
  '^',
  '`',
  '\\',
  ' ',
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u007F',
  '\u0085',
  '\u00A0',
  '\u2028',
  '\uFEFF',
  '\uD800',
  '\uDC00',
];

/** Text built from breakouts, random code points (lone surrogates included) and ASCII. */
export const hostileText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...BREAKOUTS) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 8 }) },
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(''));

const IRI_PREFIXES = ['urn:fuzz:', 'https://example.org/plant#', 'http://127.0.0.1:8000/', 'https://w3id.org/circularfactory/Service#'];

/** Strings that are not acceptable IRIs: a forbidden character, no scheme, empty, or too long. */
export const badIri: fc.Arbitrary<string> = fc
  .oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...IRI_PREFIXES),
          fc.option(hostileText, { nil: '' }),
          fc.constantFrom(...FORBIDDEN_IN_IRI),
          fc.option(hostileText, { nil: '' }),
        )
        .map((p) => p.join('')),
    },
    { weight: 2, arbitrary: hostileText },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'door1',
        '//example.org/x',
        ':x',
        '1urn:x',
        `urn:x:${'a'.repeat(LIMITS.maxIriLength)}`,
        'urn:x:\uD800',
        '<urn:x>',
        'urn:x> ; DROP ALL ; <urn:y',
      ),
    },
  )
  .filter((v) => !isIri(v));

/** Values of the wrong JS type where a string is expected. */
export const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt(),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 3 }),
  fc.constant(new Date(Number.NaN)),
  fc.constant(Symbol('fuzz')),
);

/** Either kind of bad IRI input. */
export const badIriInput: fc.Arbitrary<unknown> = fc.oneof({ weight: 4, arbitrary: badIri }, { weight: 1, arbitrary: notAString });

// Characters an IRI may hold that look like SPARQL or Turtle syntax, or like encodings of it.
const ODD_BUT_VALID = [
  '%3E',
  '%22',
  '%7D',
  '%20',
  '%00',
  '#',
  "'",
  ';',
  '(',
  ')',
  ',',
  '*',
  '!',
  '$',
  '&',
  '=',
  '?',
  '@',
  '[',
  ']',
  '~',
  'DROP',
  'ALL',
  'INSERT',
  'DATA',
  'é',
  '\u202E',
  '\u{1F600}',
  '.',
  '..',
  '/',
  ':',
  '+',
  '_',
  '-',
];

/** Valid IRIs that look like an attack: they must be stored and read back exactly. */
export const oddIri: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('urn:fuzz:', 'https://example.org/fuzz/', 'http://127.0.0.1:1/x#'),
    fc.array(fc.oneof(fc.constantFrom(...ODD_BUT_VALID), fc.stringMatching(/^[A-Za-z0-9]{1,4}$/)), { minLength: 1, maxLength: 10 }),
  )
  .map(([prefix, parts]) => prefix + parts.join(''))
  .filter(isIri);

/** Well-formed text made of breakouts: a valid literal value that must round-trip exactly. */
export const hostileLiteral: fc.Arbitrary<string> = hostileText.filter((s) => s.isWellFormed() && !s.includes('\u0000'));

/** True when `message` names `value`: its preview (quoted, cut at 80), or the value itself, raw or as JSON. */
export function namesValue(message: string, value: unknown): boolean {
  if (message.includes(preview(value))) return true;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return message.includes(String(value));
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= 300 &&
    (message.includes(value) || message.includes(JSON.stringify(value)))
  );
}

/** Resolves to what `fn` threw or rejected with, or to `undefined` when it succeeded. */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
    return undefined;
  } catch (e) {
    return e;
  }
}

/**
 * Expects `error` to be one of the product's typed errors (optionally of one of `classes`) whose
 * message names `value` (when given) or contains each of `mentions`.
 */
export function expectTyped(
  error: unknown,
  options: { value?: unknown; mentions?: readonly string[]; classes?: readonly (abstract new (...a: never[]) => Error)[] } = {},
): void {
  if (!(error instanceof SemanticMiddlewareError)) {
    throw new Error(
      `expected a SemanticMiddlewareError, got ${error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error)}`,
    );
  }
  if (options.classes && !options.classes.some((c) => error instanceof c)) {
    throw new Error(`expected one of ${options.classes.map((c) => c.name).join(', ')}, got ${error.name}: ${error.message}`);
  }
  if ('value' in options && !namesValue(error.message, options.value)) {
    throw new Error(`the ${error.name} does not name the bad value ${preview(options.value)}: ${error.message}`);
  }
  for (const m of options.mentions ?? []) expect(error.message).toContain(m);
}
