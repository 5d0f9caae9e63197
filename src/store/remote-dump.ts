import { DataFactory, Writer, type Quad } from 'n3';
import { StoreError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { sparqlIri, type Term } from './terms.js';
import type { Bindings } from './triple-store.js';

/**
 * Graphs every Virtuoso holds for itself (its RDF views, LDP and endpoint descriptions);
 * `dump()` without a graph leaves them out. Other stores do not have them, so the filter is harmless there.
 */
export const SYSTEM_GRAPHS = ['http://www.openlinksw.com/schemas/virtrdf#', 'http://www.w3.org/ns/ldp#', 'http://localuriqaserver/sparql'];

/**
 * N-Quads of one graph, or of every graph but {@link SYSTEM_GRAPHS}, read through `select` in
 * ordered pages of {@link LIMITS.remoteDumpPageRows} rows. Blank nodes are relabelled
 * `_:b0`, `_:b1`, ... (Virtuoso's `nodeID://...` are not valid labels).
 */
export async function dumpPaged(select: (query: string) => Promise<Bindings[]>, options: { graph?: string }): Promise<string> {
  const where = options.graph
    ? `GRAPH ${sparqlIri(options.graph)} { ?s ?p ?o } BIND(${sparqlIri(options.graph)} AS ?g)`
    : `GRAPH ?g { ?s ?p ?o } FILTER(?g NOT IN (${SYSTEM_GRAPHS.map(sparqlIri).join(', ')}))`;
  const page = LIMITS.remoteDumpPageRows;
  const labels = new Map<string, string>();
  const quads: Quad[] = [];
  for (let offset = 0; ; offset += page) {
    const rows = await select(`SELECT ?g ?s ?p ?o WHERE { ${where} } ORDER BY ?g ?s ?p ?o LIMIT ${page} OFFSET ${offset}`);
    for (const row of rows) quads.push(toQuad(row, labels));
    if (rows.length < page) break;
  }
  return new Writer({ format: 'N-Quads' }).quadsToString(quads);
}

function toQuad(row: Bindings, labels: Map<string, string>): Quad {
  const term = (t: Term | undefined) => {
    if (!t) throw new StoreError('dump: the store answered a row without ?s, ?p, ?o or ?g');
    if (t.termType === 'NamedNode') return DataFactory.namedNode(t.value);
    if (t.termType === 'BlankNode') {
      let label = labels.get(t.value);
      if (!label) labels.set(t.value, (label = `b${labels.size}`));
      return DataFactory.blankNode(label);
    }
    return DataFactory.literal(t.value, t.language || DataFactory.namedNode(t.datatype));
  };
  return DataFactory.quad(term(row.s) as Quad['subject'], term(row.p) as Quad['predicate'], term(row.o), term(row.g) as Quad['graph']);
}
