import { randomBytes } from 'node:crypto';
import { DataFactory, Parser, Writer, type Quad, type Term } from 'n3';
import { ValueError } from '../errors.js';
import { assertIri } from '../iri/validate.js';
import type { LoadOptions } from './triple-store.js';

/**
 * An RDF document given to a store's `load`, parsed with N3 in JavaScript. Both stores parse
 * documents this way: the remote one sends the triples as SPARQL, the embedded one loads them as
 * N-Quads. Oxigraph's own Turtle parser is one of its largest WebAssembly functions, and a
 * sidecar's first start (the ontology provisioned into a fresh store) made V8 recompile it with
 * its optimizing compiler, whose several MB of working memory stayed resident.
 */

/** Parses a document for `load`; a syntax error becomes a ValueError. */
export function parseDocument(document: string, options: LoadOptions): Quad[] {
  try {
    return new Parser({ format: options.format, ...(options.baseIri && { baseIRI: options.baseIri }) }).parse(document);
  } catch (cause) {
    throw new ValueError(`cannot parse the ${options.format} document: ${(cause as Error).message}`, { cause });
  }
}

/**
 * The document's triples as N-Quads in `options.graph`, and how many distinct ones there are.
 * Blank nodes get labels of their own (a random prefix per document), so that a document loaded
 * twice, or two documents that use the same labels, never share a blank node.
 */
export function documentNQuads(document: string, options: LoadOptions): { nquads: string; triples: number } {
  const graph = DataFactory.namedNode(assertIri(options.graph, 'graph'));
  const prefix = `b${randomBytes(12).toString('hex')}x`;
  const labels = new Map<string, Term>();
  const fresh = (term: Term): Term => {
    if (term.termType !== 'BlankNode') return term;
    let label = labels.get(term.value);
    if (!label) labels.set(term.value, (label = DataFactory.blankNode(`${prefix}${labels.size.toString(36)}`)));
    return label;
  };
  const quads = parseDocument(document, options).map((q) =>
    DataFactory.quad(fresh(q.subject) as Quad['subject'], q.predicate, fresh(q.object) as Quad['object'], graph),
  );
  const nquads = new Writer({ format: 'N-Quads' }).quadsToString(quads);
  return { nquads, triples: new Set(nquads.split('\n')).size - 1 };
}
