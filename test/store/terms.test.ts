import { describe, expect, it } from '@jest/globals';
import { ValueError } from '../../src/errors.js';
import { langLiteral, literal, sparqlLiteral } from '../../src/store/terms.js';
import { w3 } from '../../src/vocab/index.js';

describe('the literal serializer', () => {
  it('should write control characters as \\u escapes, so no store reads a raw NUL as the end of the text', () => {
    expect(sparqlLiteral(literal('a\u0000b\u0001c\u001fd\u007fe\tf\ng'))).toBe('"a\\u0000b\\u0001c\\u001Fd\\u007Fe\\tf\\ng"');
  });

  it('should refuse rdf:langString without a language tag', () => {
    expect(() => sparqlLiteral({ value: 'x', datatype: w3.langString })).toThrow(ValueError);
    expect(() => sparqlLiteral({ value: 'x', datatype: w3.langString, language: '' })).toThrow('has datatype rdf:langString but no language tag');
    expect(sparqlLiteral(langLiteral('x', 'en'))).toBe('"x"@en');
  });
});
