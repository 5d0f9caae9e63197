import { describe, expect, it } from '@jest/globals';
import { compactIri, expandIri } from '../../src/cli/curie.js';
import { UsageError } from '../../src/cli/exit-codes.js';
import { formatAge, table } from '../../src/cli/format.js';
import { cfc, plant, svc } from '../../src/vocab/index.js';

describe('CLI CURIEs', () => {
  it('should expand the known prefixes and keep absolute IRIs', () => {
    expect(expandIri('plant:door1', '--resource')).toBe(plant.door1);
    expect(expandIri(' svc:Service ', '--x')).toBe(svc.Service);
    expect(expandIri('cfc:Capability', '--x')).toBe(cfc.Capability);
    expect(expandIri('urn:example:thing', '--x')).toBe('urn:example:thing');
    expect(expandIri('https://example.org/plant#door1', '--x')).toBe(plant.door1);
  });

  it('should refuse what is neither, naming the flag and the prefixes', () => {
    for (const bad of ['door1', 'plant:door 1', '', 'svc:<x>']) {
      const error = (() => {
        try {
          expandIri(bad, '--resource');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(
        /^--resource ".*" (is not a valid absolute IRI|the local name).*\(expected an absolute IRI or a CURIE with one of the prefixes cfc:, svc:, mes:, .*plant:\)$/u,
      );
    }
  });

  it('should compact to a CURIE only when the rest is a plain name', () => {
    expect(compactIri(plant.door1)).toBe('plant:door1');
    expect(compactIri(`${plant.door1}_service_http_c__s__s_x`)).toBe('plant:door1_service_http_c__s__s_x');
    expect(compactIri('https://example.org/plant#a/b')).toBe('<https://example.org/plant#a/b>');
    expect(compactIri('urn:x')).toBe('<urn:x>');
  });
});

describe('CLI text output', () => {
  it('should write ages in the two largest units', () => {
    expect([undefined, -3, 0, 59, 60, 185, 3_600, 7_500, 90_061].map(formatAge)).toEqual([
      'never',
      'in the future (clock skew)',
      '0s ago',
      '59s ago',
      '1m ago',
      '3m 5s ago',
      '1h ago',
      '2h 5m ago',
      '1d 1h ago',
    ]);
  });

  it('should pad columns to the widest cell and leave the last one unpadded', () => {
    expect(
      table([
        ['A', 'BB', 'C'],
        ['long', 'x', 'last'],
      ]),
    ).toBe('A     BB  C\nlong  x   last\n');
  });
});
