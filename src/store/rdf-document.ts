import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { DataFactory, Parser, Writer, type Quad, type Term } from 'n3';
import { ValueError } from '../errors.js';
import { assertIri } from '../iri/validate.js';
import type { LoadOptions } from './triple-store.js';

/**
 * An RDF document given to a store's `load`, parsed with N3 in JavaScript. Both stores parse
 * documents this way: the remote one sends the triples as SPARQL, the embedded one loads them as
 * N-Quads. Parsing Turtle ran two of Oxigraph's largest WebAssembly functions hot enough at a
 * sidecar's first start (the ontology provisioned into a fresh store) that V8 recompiled them
 * with its optimizing compiler, whose several MB of working memory stayed resident.
 */

/** Parses a document for `load`, all its triples at once; a syntax error becomes a ValueError. */
export function parseDocument(document: string, options: LoadOptions): Quad[] {
  const quads: Quad[] = [];
  const failure = parseEach(document, options, (quad) => void quads.push(quad));
  if (failure !== undefined) throw parseError(options, failure);
  return quads;
}

// Characters fed to N3 at a time: small enough that a search near the top of a large document
// stops without parsing the rest.
const CHUNK = 64 * 1024;

/**
 * Parses `document` with N3, calling `onQuad` with each triple as it is read, until the end, a
 * syntax error (returned) or `onQuad` answering false. The document is fed to N3 as a
 * synchronous stream of chunks: a string input is parsed on a microtask, where nothing can stop
 * it, and its triples would be collected whole.
 */
export function parseEach(
  document: string,
  options: Pick<LoadOptions, 'format' | 'baseIri'>,
  onQuad: (quad: Quad) => boolean | void,
): Error | undefined {
  const input = new EventEmitter();
  let failure: Error | undefined;
  let stopped = false;
  new Parser({ format: options.format, ...(options.baseIri && { baseIRI: options.baseIri }) }).parse(input as never, (error, quad) => {
    if (error) failure ??= error;
    else if (quad !== null && !stopped) stopped = onQuad(quad) === false;
  });
  for (let at = 0; at < document.length && failure === undefined && !stopped; at += CHUNK)
    input.emit('data', document.slice(at, at + CHUNK));
  if (failure === undefined && !stopped) input.emit('end');
  return failure;
}

/**
 * The document's triples as N-Quads in `options.graph`, each distinct triple once, and how many
 * there are. Blank nodes get labels of their own (a random prefix per document), so that a
 * document loaded twice, or two documents that use the same labels, never share a blank node.
 * Each triple is written as it is parsed: no array of all of them is held.
 * @throws ValueError when the document does not parse or the graph is not an IRI.
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
  const writer = new Writer({ format: 'N-Quads' });
  const lines = new Set<string>();
  const failure = parseEach(document, options, (q) => {
    lines.add(writer.quadToString(fresh(q.subject) as Quad['subject'], q.predicate, fresh(q.object) as Quad['object'], graph));
  });
  if (failure !== undefined) throw parseError(options, failure);
  return { nquads: [...lines].join(''), triples: lines.size };
}

function parseError(options: LoadOptions, cause: Error): ValueError {
  return new ValueError(`cannot parse the ${options.format} document: ${cause.message}`, { cause });
}
