import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { SPARQL_TOKEN, sparqlTokens, type SparqlToken } from '../../src/store/sparql-tokens.js';
import { HOSTILE_STRINGS } from '../support/store-suite.js';

/** The tokens as the expression alone reads them: what the quick paths must reproduce exactly. */
function byExpression(text: string): SparqlToken[] | undefined {
  const tokens: SparqlToken[] = [];
  const token = new RegExp(SPARQL_TOKEN.source, SPARQL_TOKEN.flags);
  while (token.lastIndex < text.length) {
    const start = token.lastIndex;
    const m = token.exec(text)!;
    const g = m.groups!;
    if (g.open !== undefined) return undefined;
    if (g.space !== undefined) continue;
    const kind = g.word !== undefined ? 'word' : g.iri !== undefined ? 'iri' : g.pname !== undefined ? 'pname' : 'other';
    tokens.push({ kind, text: kind === 'word' ? m[0].toUpperCase() : m[0], start, end: token.lastIndex });
  }
  return tokens;
}

// Pieces that start or end tokens, ASCII and not: the boundaries the quick paths decide.
const PIECES = [
  ...' \t\n\r\v\f\u00a0\u2003{}()[];,.<>:?$@#"\'-_^|`\\*=!/+&%~',
  'a',
  'Z',
  'where',
  'DELETE',
  'ex:',
  'x1',
  '42',
  'é',
  '中',
  '\u0301',
  '\u00b7',
  '\u203f',
  '<urn:a>',
  '<a b>',
  '<a\tb>',
  '<é:x>',
  '<a{b>',
  '<http://example.org/plant#door1>',
  '"queued"',
  '""',
  '"""',
  '"a\\"b"',
  '^^<http://www.w3.org/2001/XMLSchema#dateTime>',
  '&&',
  '||',
  "'''x'''",
  '?anchorType',
  '$g0',
];

describe('the SPARQL lexer', () => {
  it('should cut any text exactly as its expression alone does', () => {
    const text = fc
      .array(fc.oneof(fc.constantFrom(...PIECES), fc.constantFrom(...HOSTILE_STRINGS), fc.string()), { maxLength: 40 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(sparqlTokens(t)).toEqual(byExpression(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('should read a compare-and-set of the product as the expression does', () => {
    const op = '<https://example.org/plant#OpenDoorOperation_op_403163c385ae>';
    const text = `DELETE { GRAPH <urn:g> { ${op} <https://w3id.org/circularfactory/Service#operationStatus> "queued" . } } INSERT { GRAPH <urn:g> { ${op} <https://w3id.org/circularfactory/Service#operationStatus> "running" . ${op} <https://w3id.org/semantic-middleware#claimedAt> "2026-11-29T12:10:08.619Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> . } } WHERE { GRAPH <urn:g> { ${op} a ?anchorType . FILTER NOT EXISTS { ${op} <https://w3id.org/circularfactory/Service#operationStatus> ?g0 . FILTER(?g0 NOT IN ("queued")) } } }`;
    const tokens = sparqlTokens(text)!;
    expect(tokens).toEqual(byExpression(text));
    expect(tokens.filter((t) => t.kind === 'word').map((t) => t.text)).toEqual([
      'DELETE',
      'GRAPH',
      'INSERT',
      'GRAPH',
      'WHERE',
      'GRAPH',
      'A',
      'FILTER',
      'NOT',
      'EXISTS',
      'FILTER',
      'NOT',
      'IN',
    ]);
  });
});
