import { describe, expect, it } from '@jest/globals';
import { Parser } from 'n3';
import { ValueError } from '../../src/errors.js';
import { documentNQuads, parseDocument, parseEach } from '../../src/store/rdf-document.js';

const G = 'urn:test:graph';
const parseNQuads = (nquads: string) => new Parser({ format: 'N-Quads' }).parse(nquads);

describe('documentNQuads', () => {
  it('should put every triple of the document into the given graph, whatever graph it named', () => {
    const trig = '<urn:test:a> <urn:test:p> "x" .\n<urn:test:other> { <urn:test:b> <urn:test:p> "y"@en }';
    const { nquads, triples } = documentNQuads(trig, { graph: G, format: 'application/trig' });
    const quads = parseNQuads(nquads);
    expect(triples).toBe(2);
    expect(quads.map((q) => q.graph.value)).toEqual([G, G]);
    expect(quads.map((q) => `${q.subject.value} ${q.object.value}`).sort()).toEqual(['urn:test:a x', 'urn:test:b y']);
  });

  it('should keep literals exactly: quotes, newlines, language tags and datatypes', () => {
    const turtle =
      '<urn:test:a> <urn:test:p> "say \\"hi\\"\\nthen go"@en-GB , 3 , "2026-11-30T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .';
    const objects = parseNQuads(documentNQuads(turtle, { graph: G, format: 'text/turtle' }).nquads).map((q) => q.object);
    expect(
      objects.map((o) => [o.value, (o as { language?: string }).language, (o as { datatype?: { value: string } }).datatype?.value]),
    ).toEqual([
      ['say "hi"\nthen go', 'en-gb', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString'],
      ['3', '', 'http://www.w3.org/2001/XMLSchema#integer'],
      ['2026-11-30T00:00:00Z', '', 'http://www.w3.org/2001/XMLSchema#dateTime'],
    ]);
  });

  it('should resolve relative IRIs against the base IRI', () => {
    const { nquads } = documentNQuads('<a> <p> <#b> .', { graph: G, format: 'text/turtle', baseIri: 'file:///etc/plant.ttl' });
    expect(parseNQuads(nquads).map((q) => [q.subject.value, q.object.value])).toEqual([['file:///etc/a', 'file:///etc/plant.ttl#b']]);
  });

  it('should label blank nodes afresh for each document and keep one label one node within it', () => {
    const turtle = '_:r <urn:test:p> <urn:test:x> .\n_:r <urn:test:q> [ <urn:test:p> 1 ] .';
    const first = parseNQuads(documentNQuads(turtle, { graph: G, format: 'text/turtle' }).nquads);
    const second = parseNQuads(documentNQuads(turtle, { graph: G, format: 'text/turtle' }).nquads);
    const blanks = (quads: typeof first) =>
      new Set(
        quads
          .flatMap((q) => [q.subject, q.object])
          .filter((t) => t.termType === 'BlankNode')
          .map((t) => t.value),
      );
    const subjectOf = (predicate: string) =>
      first.find((q) => q.predicate.value === predicate && q.subject.termType === 'BlankNode' && q.object.termType !== 'Literal')?.subject
        .value;
    expect(subjectOf('urn:test:p')).toBe(subjectOf('urn:test:q'));
    expect(blanks(first).size).toBe(2);
    expect([...blanks(first)].filter((label) => blanks(second).has(label))).toEqual([]);
  });

  it('should read a document of many chunks whole, a character outside the BMP split between two chunks included', () => {
    // The parser is fed 64 K characters at a time: the emoji's two UTF-16 halves land in two chunks.
    const head = '<urn:test:a> <urn:test:p> "';
    const split = `${head}${'x'.repeat(64 * 1024 - 1 - head.length)}\u{1F600}" .`;
    expect(split.charCodeAt(64 * 1024 - 1)).toBe(0xd83d);
    const rows = [split, ...Array.from({ length: 3_000 }, (_, i) => `<urn:test:s${i}> <urn:test:p> "\u{1F527} ${i}" .`)];
    const { nquads, triples } = documentNQuads(rows.join('\n'), { graph: G, format: 'application/n-triples' });
    expect(triples).toBe(3_001);
    const values = parseNQuads(nquads).map((q) => q.object.value);
    expect(values[0]).toBe(`${'x'.repeat(64 * 1024 - 1 - head.length)}\u{1F600}`);
    expect(values.slice(1).every((v, i) => v === `\u{1F527} ${i}`)).toBe(true);
  });

  it('should count a triple stated twice once', () => {
    expect(
      documentNQuads('<urn:test:a> <urn:test:p> 1 .\n<urn:test:a> <urn:test:p> 1 .', { graph: G, format: 'text/turtle' }).triples,
    ).toBe(1);
    expect(documentNQuads('', { graph: G, format: 'text/turtle' })).toEqual({ nquads: '', triples: 0 });
  });

  it('should refuse a document that does not parse, and a graph that is not an IRI, with a ValueError', () => {
    expect(() => documentNQuads('<urn:test:a> <urn:test:p> "open', { graph: G, format: 'text/turtle' })).toThrow(
      /cannot parse the text\/turtle document/u,
    );
    expect(() => documentNQuads('<urn:test:a> <urn:test:p> 1 .', { graph: 'urn:bad graph>', format: 'text/turtle' })).toThrow(ValueError);
    expect(() => parseDocument('<urn:test:a> <urn:test:p> .', { graph: G, format: 'application/n-triples' })).toThrow(ValueError);
  });
});

describe('parseEach', () => {
  it('should stop reading once the callback answers false', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `<urn:test:s${i}> <urn:test:p> "${'v'.repeat(40)}" .`).join('\n');
    const seen: string[] = [];
    expect(
      parseEach(`${rows}\nthis is not N-Triples`, { format: 'application/n-triples' }, (q) => seen.push(q.subject.value) < 3),
    ).toBeUndefined();
    expect(seen).toEqual(['urn:test:s0', 'urn:test:s1', 'urn:test:s2']);
  });

  it('should return the syntax error, after the triples before it', () => {
    const seen: string[] = [];
    const error = parseEach(
      '<urn:test:a> <urn:test:p> 1 .\n<urn:test:b> <urn:test:p> .',
      { format: 'text/turtle' },
      (q) => void seen.push(q.subject.value),
    );
    expect(error).toBeInstanceOf(Error);
    expect(seen).toEqual(['urn:test:a']);
  });
});
