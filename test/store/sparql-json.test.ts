import { describe, expect, it } from '@jest/globals';
import { StoreError } from '../../src/errors.js';
import { parseAskJson } from '../../src/store/sparql-json.js';

const SOURCE = 'http://store.test/sparql';
const virtuoso = (rows: object[]): string => JSON.stringify({ head: { vars: ['__ASK_RETVAL'] }, results: { bindings: rows } });

describe('parseAskJson', () => {
  it('should read the standard boolean shape', () => {
    expect(parseAskJson('{"head":{},"boolean":true}', SOURCE)).toBe(true);
    expect(parseAskJson('{"head":{},"boolean":false}', SOURCE)).toBe(false);
  });

  it("should read Virtuoso's __ASK_RETVAL result set", () => {
    expect(parseAskJson(virtuoso([{ __ASK_RETVAL: { type: 'typed-literal', value: '1' } }]), SOURCE)).toBe(true);
    expect(parseAskJson(virtuoso([{ __ASK_RETVAL: { type: 'typed-literal', value: '0' } }]), SOURCE)).toBe(false);
    expect(parseAskJson(virtuoso([]), SOURCE)).toBe(false);
  });

  it('should throw a StoreError naming the source for an answer of neither shape', () => {
    expect(() => parseAskJson('{"head":{}}', SOURCE)).toThrow(StoreError);
    expect(() => parseAskJson('{"head":{}}', SOURCE)).toThrow(`${SOURCE} answered an ASK without a boolean`);
    expect(() => parseAskJson('<html>', SOURCE)).toThrow('not SPARQL JSON results');
  });
});
