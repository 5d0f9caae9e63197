import { basename, extname } from 'node:path';
import { ValueError } from '../errors.js';
import { parseEach } from '../store/rdf-document.js';
import type { RdfFormat } from '../store/triple-store.js';
import { FILE_GRAPH_PREFIX } from '../vocab/graphs.js';
import { w3 } from '../vocab/terms.js';

const FORMATS: Readonly<Record<string, RdfFormat>> = Object.freeze({
  '.ttl': 'text/turtle',
  '.turtle': 'text/turtle',
  '.nt': 'application/n-triples',
  '.nq': 'application/n-quads',
  '.trig': 'application/trig',
});

/** File extensions `rdfFormatOf` understands. */
export const ONTOLOGY_FILE_EXTENSIONS: readonly string[] = Object.freeze(Object.keys(FORMATS));

/**
 * The RDF format of a file, from its extension (`.ttl`/`.turtle`, `.nt`, `.nq`, `.trig`).
 * @throws ValueError for any other extension, naming the file and the accepted ones.
 */
export function rdfFormatOf(path: string): RdfFormat {
  const format = FORMATS[extname(path).toLowerCase()];
  if (format === undefined) {
    throw new ValueError(
      `cannot tell the RDF format of "${path}": expected one of the extensions ${ONTOLOGY_FILE_EXTENSIONS.join(', ')}`,
    );
  }
  return format;
}

/**
 * The IRI of the first `<x> rdf:type owl:Ontology` statement in a document, or undefined.
 * Parsing stops as soon as it is found. A syntax error ends the search (the store's loader
 * reports it properly).
 */
export function declaredOntologyIri(document: string, format: RdfFormat): string | undefined {
  let found: string | undefined;
  parseEach(document, { format }, (quad) => {
    if (quad.subject.termType === 'NamedNode' && quad.predicate.value === w3.type && quad.object.value === w3.Ontology) found = quad.subject.value;
    return found === undefined;
  });
  return found;
}

/** The graph of a file that names no ontology IRI: {@link FILE_GRAPH_PREFIX} + encoded file name. */
export function fileGraphIri(path: string): string {
  return FILE_GRAPH_PREFIX + encodeURIComponent(basename(path));
}
