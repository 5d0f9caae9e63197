/**
 * Fuzzing the IRI layer and the term serializer, the gate every other entry point relies on:
 * hostile IRIs, names, addresses, CURIEs and literals either come out as one safe SPARQL term or
 * as a ValueError that names the value.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ValueError } from '../../src/errors.js';
import { expandCurie } from '../../src/iri/curie.js';
import {
  assertIri,
  assertName,
  buildStateEndpoint,
  buildWorkflowEndpoint,
  fromLined,
  isHttpAddress,
  isIri,
  lined,
  mintCapabilityIri,
  mintOperationIri,
  mintPossessionStateIri,
  mintServiceIri,
  mintStatePropertyIri,
  mintWorkflowIri,
  normalizeAddress,
  normalizeHttpAddress,
} from '../../src/iri/index.js';
import { sparql } from '../../src/store/sparql.js';
import { langLiteral, literal, namedNode, sparqlIri, sparqlLiteral, sparqlTerm } from '../../src/store/terms.js';
import { xsd } from '../../src/vocab/index.js';
import { badIri, badIriInput, caught, expectTyped, hostileLiteral, hostileText, notAString, oddIri } from './support/hostile.js';
import { fuzzReport } from './support/runs.js';

const report = fuzzReport('test/fuzz/iri.test.ts', 'none');
const R = 'https://example.org/plant#door1';
const ADDRESS = 'http://127.0.0.1:8000';

// One SPARQL literal: a quote, then escapes or characters that cannot end it (no control
// characters: they are escaped), then the closing quote.
const ONE_LITERAL =
  // eslint-disable-next-line no-control-regex -- a serialized literal must hold no raw control character
  /^"(?:[^"\\\u0000-\u001f\u007f]|\\["\\nrtbf]|\\u[0-9A-F]{4})*"(?:\^\^<[^<>"{}|^`\\\s]+>|@[A-Za-z]+(?:-[A-Za-z0-9]+)*)?$/su;

describe('IRI validation under hostile input', () => {
  it('should refuse every bad IRI with a ValueError naming it and the argument', async () => {
    await report.check(
      'assertIri refuses bad IRIs',
      fc.property(badIriInput, (value) => {
        expect(isIri(value)).toBe(false);
        const error = (() => {
          try {
            assertIri(value, 'resourceIri');
          } catch (e) {
            return e;
          }
          return undefined;
        })();
        expectTyped(error, { value, classes: [ValueError], mentions: ['resourceIri'] });
      }),
    );
  });

  it('should serialize every odd but valid IRI as exactly one <...> term', async () => {
    await report.check(
      'odd IRIs stay one term',
      fc.property(oddIri, (iri) => {
        expect(assertIri(iri)).toBe(iri);
        const text = sparqlIri(iri);
        expect(text).toBe(`<${iri}>`);
        expect(text.slice(1, -1)).not.toMatch(/[<>"{}|^`\\\s]/u);
      }),
    );
  });

  it('should refuse a bad IRI wherever a term is built from it', async () => {
    await report.check(
      'terms refuse bad IRIs',
      fc.property(
        badIri,
        fc.constantFrom<(v: string) => unknown>(
          (v) => namedNode(v),
          (v) => sparqlIri(v),
          (v) => sparqlTerm({ termType: 'NamedNode', value: v }),
          // An empty datatype is the documented "plain string", so only non-empty ones count here.
          (v) => sparqlLiteral({ value: 'x', datatype: v === '' ? ' ' : v }),
          (v) => sparql`ASK { ${{ termType: 'NamedNode', value: v }} ?p ?o }`,
        ),
        (raw, build) => {
          const value = raw === '' && build.toString().includes('datatype') ? ' ' : raw;
          let error: unknown;
          try {
            build(value);
          } catch (e) {
            error = e;
          }
          expectTyped(error, { value, classes: [ValueError] });
        },
      ),
    );
  });
});

describe('literals and the sparql template under hostile input', () => {
  it('should write every well-formed text as one escaped literal, whatever its datatype or language', async () => {
    await report.check(
      'literals stay one term',
      fc.property(
        hostileLiteral,
        fc.constantFrom(xsd.string, xsd.anyURI, 'urn:fuzz:type'),
        fc.option(fc.constantFrom('en', 'de-CH')),
        (value, datatype, lang) => {
          const term = lang === null ? literal(value, datatype) : langLiteral(value, lang);
          const text = sparqlLiteral(term);
          expect(text).toMatch(ONE_LITERAL);
          // Unescaping the body gives the value back.
          const body = text.slice(1, text.lastIndexOf('"'));
          expect(JSON.parse(`"${body}"`)).toBe(value);
        },
      ),
    );
  });

  it('should refuse lone surrogates, NUL, bad language tags and non-strings as literal values, naming them', async () => {
    await report.check(
      'literals refuse bad values',
      fc.property(
        fc.oneof(
          hostileText
            .filter((s) => !s.isWellFormed() || s.includes('\u0000'))
            .map((value) => ({ value, lang: undefined as string | undefined, bad: value })),
          // An empty language means "no language": that literal is valid.
          hostileText
            .filter((s) => s !== '' && !/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/u.test(s))
            .map((lang) => ({ value: 'x', lang, bad: lang })),
          notAString.map((value) => ({ value: value as string, lang: undefined as string | undefined, bad: undefined })),
        ),
        ({ value, lang, bad }) => {
          let error: unknown;
          try {
            sparqlLiteral({ value, datatype: xsd.string, ...(lang !== undefined && { language: lang }) });
          } catch (e) {
            error = e;
          }
          expectTyped(error, bad === undefined ? { classes: [ValueError] } : { value: bad, classes: [ValueError] });
        },
      ),
    );
  });

  it('should refuse to paste any plain value into SPARQL text', async () => {
    await report.check(
      'sparql template refuses plain values',
      fc.property(
        fc.oneof(
          hostileText,
          fc.double().filter((n) => !Number.isSafeInteger(n)),
          fc.boolean(),
          fc.constant(null),
        ),
        (value) => {
          expect(() => sparql`SELECT * WHERE { ?s ?p ${value as never} }`).toThrow(ValueError);
        },
      ),
    );
  });
});

describe('minting, names, addresses and CURIEs under hostile input', () => {
  it('should refuse a bad resource, class or service IRI in every minting function, naming it', async () => {
    const minters: [string, (v: unknown) => unknown][] = [
      ['resourceIri', (v) => mintServiceIri(v as string, ADDRESS)],
      ['serviceIri', (v) => mintWorkflowIri(v as string, 'open')],
      ['resourceIri', (v) => mintCapabilityIri(v as string, 'open')],
      ['serviceIri', (v) => mintStatePropertyIri(v as string, 'state')],
      ['operationClass', (v) => mintOperationIri(v as string)],
      ['workpieceIri', (v) => mintPossessionStateIri(v as string)],
    ];
    await report.check(
      'minting refuses bad IRIs',
      fc.property(badIriInput, fc.constantFrom(...minters), (value, [what, mint]) => {
        let error: unknown;
        try {
          mint(value);
        } catch (e) {
          error = e;
        }
        expectTyped(error, { value, classes: [ValueError], mentions: [what] });
      }),
    );
  });

  it('should refuse every name outside A-Z a-z 0-9 . _ ~ - (or too long) in minting and endpoints, naming it', async () => {
    const users: ((v: string) => unknown)[] = [
      (v) => assertName(v),
      (v) => mintWorkflowIri(`${R}_service_x`, v),
      (v) => mintCapabilityIri(R, v),
      (v) => mintStatePropertyIri(`${R}_service_x`, v),
      (v) => buildWorkflowEndpoint(ADDRESS, v),
      (v) => buildStateEndpoint(ADDRESS, v),
    ];
    const badName = fc
      .oneof(hostileText, fc.constant('a'.repeat(129)), fc.constant(''))
      .filter((s) => !/^[A-Za-z0-9._~-]{1,128}$/u.test(s));
    await report.check(
      'names are refused',
      fc.property(badName, fc.constantFrom(...users), (value, use) => {
        let error: unknown;
        try {
          use(value);
        } catch (e) {
          error = e;
        }
        expectTyped(error, { value, classes: [ValueError] });
      }),
    );
  });

  it('should mint a valid IRI from any address it accepts, and refuse any other address naming it', async () => {
    const address = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', 'http:', '', 'http:///'), hostileText).map(([a, b]) => a + b),
      hostileText,
      notAString,
    );
    await report.check(
      'service IRIs from hostile addresses',
      fc.property(address, (value) => {
        let minted: string | undefined;
        let error: unknown;
        try {
          minted = mintServiceIri(R, value as string);
        } catch (e) {
          error = e;
        }
        if (minted === undefined) {
          expectTyped(error, { value, classes: [ValueError] });
          expect(isHttpAddress(value)).toBe(false);
          return;
        }
        expect(isIri(minted)).toBe(true);
        // The address comes back exactly from the minted IRI.
        expect(fromLined(minted.slice(`${R}_service_`.length))).toBe(normalizeHttpAddress(value));
      }),
    );
  });

  it('should refuse text that is no absolute URL in normalizeAddress, naming it', async () => {
    await report.check(
      'normalizeAddress refuses non-URLs',
      fc.property(fc.oneof(hostileText, notAString), (value) => {
        let error: unknown;
        try {
          normalizeAddress(value as string);
        } catch (e) {
          error = e;
        }
        if (error !== undefined) expectTyped(error, { value, classes: [ValueError] });
      }),
    );
  });

  it('should read back exactly what lined wrote, and refuse with a ValueError what it cannot have written', async () => {
    await report.check(
      'lined round trip',
      fc.property(fc.oneof(hostileText, fc.string({ unit: 'binary' })), (text) => {
        expect(fromLined(lined(text))).toBe(text);
        let decoded: string | undefined;
        const error = (() => {
          try {
            decoded = fromLined(text);
          } catch (e) {
            return e;
          }
          return undefined;
        })();
        if (decoded === undefined) expectTyped(error, { value: text, classes: [ValueError] });
        else if (!/[:/.#]/u.test(text)) expect(lined(decoded)).toBe(text);
      }),
    );
  });

  it('should expand a CURIE only to a valid IRI, else explain the problem', async () => {
    await report.check(
      'CURIE expansion',
      fc.property(
        fc.oneof(
          hostileText,
          badIri,
          oddIri,
          fc.tuple(fc.constantFrom('plant:', 'svc:', 'cfc:', 'mes:', 'nope:', 'urn:'), hostileText).map(([a, b]) => a + b),
        ),
        (value) => {
          const out = expandCurie(value);
          if ('iri' in out) expect(isIri(out.iri)).toBe(true);
          else expect(out.problem.length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('should never throw anything but a ValueError from the address and IRI checks, whatever the value', async () => {
    await report.check(
      'checks throw only ValueError',
      fc.asyncProperty(fc.anything(), async (value) => {
        for (const check of [
          () => assertIri(value),
          () => normalizeHttpAddress(value),
          () => assertName(value),
          () => isIri(value),
          () => isHttpAddress(value),
        ]) {
          const error = await caught(check);
          if (error !== undefined) expect(error).toBeInstanceOf(ValueError);
        }
      }),
    );
  });
});
