import { describe, expect, it } from '@jest/globals';
import { ValueError } from '../../src/errors.js';
import { langLiteral, literal, sparqlLiteral } from '../../src/store/terms.js';
import { w3 } from '../../src/vocab/index.js';

describe('the literal serializer', () => {
  it('should write control characters as \\u escapes, so no store misreads them', () => {
    expect(sparqlLiteral(literal('a\u0001c\u001fd\u007fe\tf\ng'))).toBe('"a\\u0001c\\u001Fd\\u007Fe\\tf\\ng"');
  });

  it('should refuse U+0000 in a literal, naming the value: Virtuoso does not delete such text exactly', () => {
    expect(() => sparqlLiteral(literal('\ufeff__proto__\u0000'))).toThrow(/^literal value .*__proto__\\u0000.* contains U\+0000 \(NUL\)/u);
  });

  it('should refuse an empty datatype rather than take it for xsd:string', () => {
    expect(() => sparqlLiteral({ value: 'x', datatype: '' })).toThrow(ValueError);
    expect(sparqlLiteral({ value: 'x' } as never)).toBe('"x"');
  });

  it('should refuse rdf:langString without a language tag', () => {
    expect(() => sparqlLiteral({ value: 'x', datatype: w3.langString })).toThrow(ValueError);
    expect(() => sparqlLiteral({ value: 'x', datatype: w3.langString, language: '' })).toThrow(
      'has datatype rdf:langString but no language tag',
    );
    expect(sparqlLiteral(langLiteral('x', 'en'))).toBe('"x"@en');
  });
});
