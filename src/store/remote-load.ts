import type { Quad, Term as N3Term } from 'n3';
import { ValueError } from '../errors.js';
import { sparqlIri, sparqlLiteral } from './terms.js';

/**
 * The requests of a remote store's `load`: the document parsed with N3, its triples grouped so
 * that blank nodes connected to each other share one request, and each group written as
 * SPARQL text (see `load` in `remote-store.ts` for why blank nodes need this).
 */

/**
 * Splits triples into requests of at most `size`, keeping every set of triples connected
 * through blank nodes in one request (an oversized set goes alone). Document order otherwise.
 */
export function chunkByBlankNodes(quads: readonly Quad[], size: number): Quad[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    for (let y = x; y !== root;) {
      const next = parent.get(y)!;
      parent.set(y, root);
      y = next;
    }
    return root;
  };
  const blanks = (q: Quad): string[] => [q.subject, q.object].filter((t) => t.termType === 'BlankNode').map((t) => t.value);
  for (const q of quads) {
    const ids = blanks(q);
    for (const id of ids) if (!parent.has(id)) parent.set(id, id);
    for (const id of ids.slice(1)) parent.set(find(id), find(ids[0]!));
  }
  const units = new Map<string, Quad[]>();
  quads.forEach((q, i) => {
    const ids = blanks(q);
    const key = ids.length ? `_:${find(ids[0]!)}` : `#${i}`;
    const unit = units.get(key);
    if (unit) unit.push(q);
    else units.set(key, [q]);
  });
  const chunks: Quad[][] = [];
  let current: Quad[] = [];
  for (const unit of units.values()) {
    if (current.length > 0 && current.length + unit.length > size) {
      chunks.push(current);
      current = [];
    }
    current.push(...unit);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** One request adding `quads` to `graph` (already `<...>`); see `load` for the blank-node form. */
export function insertRequest(graph: string, quads: readonly Quad[]): string {
  const labels = new Map<string, string>();
  const term = (t: N3Term): string => {
    switch (t.termType) {
      case 'NamedNode':
        return sparqlIri(t.value);
      case 'Literal':
        return sparqlLiteral({ value: t.value, datatype: t.datatype.value, language: t.language });
      case 'BlankNode': {
        let label = labels.get(t.value);
        if (!label) labels.set(t.value, (label = `_:b${labels.size}`));
        return label;
      }
      default:
        throw new ValueError(`cannot load a ${t.termType} term into a remote store`);
    }
  };
  const body = quads.map((q) => `${term(q.subject)} ${term(q.predicate)} ${term(q.object)} .`).join('\n');
  return labels.size === 0 ? `INSERT DATA { GRAPH ${graph} {\n${body}\n} }` : `INSERT { GRAPH ${graph} {\n${body}\n} } WHERE {}`;
}
