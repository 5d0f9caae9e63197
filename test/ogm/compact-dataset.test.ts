import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DataFactory, Store } from 'n3';
import { CompactDataset } from '../../src/ogm/compact-dataset.js';

// N3's DataFactory functions do not use `this`.
// eslint-disable-next-line @typescript-eslint/unbound-method
const { namedNode, literal, blankNode, quad, defaultGraph } = DataFactory;

// A small pool, so random quads collide and patterns match often.
const subjects = [namedNode('urn:s1'), namedNode('urn:s2'), blankNode('b1')];
const predicates = [namedNode('urn:p1'), namedNode('urn:p2')];
const objects = [
  namedNode('urn:s1'),
  literal('1'),
  literal('1', namedNode('http://www.w3.org/2001/XMLSchema#integer')),
  literal('1', 'en'),
  blankNode('b1'),
];
const graphs = [defaultGraph(), namedNode('urn:g')];

const term = <T>(pool: readonly T[]) => fc.constantFrom(...pool);
const quadArb = fc.tuple(term(subjects), term(predicates), term(objects), term(graphs)).map(([s, p, o, g]) => quad(s, p, o, g));
const maybe = <T>(pool: readonly T[]) => fc.option(term(pool), { nil: null });

const text = (
  quads: Iterable<{
    subject: { value: string };
    predicate: { value: string };
    object: { value: string; termType: string };
    graph: { value: string };
  }>,
) => [...quads].map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.termType}:${q.object.value} ${q.graph.value}`).sort();

describe('CompactDataset', () => {
  it('should match, add, delete and count exactly as the N3 store does', () => {
    fc.assert(
      fc.property(
        fc.array(quadArb, { maxLength: 30 }),
        fc.array(quadArb, { maxLength: 10 }),
        fc.tuple(maybe(subjects), maybe(predicates), maybe(objects), maybe(graphs)),
        (added, deleted, [s, p, o, g]) => {
          const mine = new CompactDataset(added);
          const oracle = new Store(added);
          for (const q of deleted) {
            mine.delete(q);
            oracle.delete(q);
          }
          expect(mine.size).toBe(oracle.size);
          expect(text(mine)).toEqual(text(oracle));
          expect(text(mine.match(s, p, o, g))).toEqual(text(oracle.match(s, p, o, g)));
          for (const q of [...added, ...deleted]) expect(mine.has(q)).toBe(oracle.has(q));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('should tell literals apart by datatype and language', () => {
    const ds = new CompactDataset([
      quad(subjects[0]!, predicates[0]!, literal('1')),
      quad(subjects[0]!, predicates[0]!, literal('1', 'en')),
    ]);
    expect(ds.size).toBe(2);
    expect(ds.match(null, null, literal('1', 'en')).size).toBe(1);
    expect(ds.has(quad(subjects[0]!, predicates[0]!, literal('1', namedNode('http://www.w3.org/2001/XMLSchema#integer'))))).toBe(false);
  });
});
