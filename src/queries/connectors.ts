import { concat, graphFragment, sequencePath, sparql, SparqlFragment } from '../store/sparql.js';
import { dateTimeLiteral, namedNode } from '../store/terms.js';
import { inf, svc, w3 } from '../vocab/terms.js';

/**
 * SPARQL text of connector recognition: the sub-property edges (the `rdfs:subPropertyOf*` closure
 * is walked in code, because the interface vocabulary and a domain ontology usually sit in
 * different named graphs and a property path does not cross graphs), a resource's
 * interface-accessible parameters with their metadata, the datatypes of their values, and the
 * fresh Services of a peer resource the REST connector reads from.
 */

const node = namedNode;

/** `SELECT ?sub ?super`: every `rdfs:subPropertyOf` edge, in any named graph. */
export const SUB_PROPERTY_EDGES_QUERY: string =
  sparql`SELECT DISTINCT ?sub ?super WHERE { GRAPH ?g { ?sub ${node(w3.subPropertyOf)} ?super . } }`.text;

const values = (iris: readonly string[]): SparqlFragment => concat(iris.map((iri) => sparql`${node(iri)}`));

/**
 * `SELECT ?holder ?prop ?param ?meta ?metaValue`: the parameter nodes `?param` that `resource`
 * itself, or a component it links to (`resource ?link ?holder`), holds through one of
 * `properties`, with one row per metadata value among `metadata` (unbound when the node has
 * none). Parameter nodes may be blank, so everything about them comes back in this one result.
 */
export function interfaceParametersQuery(resource: string, properties: readonly string[], metadata: readonly string[]): string {
  const r = node(resource);
  const props = values(properties);
  return sparql`SELECT ?holder ?prop ?param ?meta ?metaValue WHERE { GRAPH ?g {
    { VALUES ?prop { ${props} } ${r} ?prop ?param . BIND(${r} AS ?holder) }
    UNION { ${r} ?link ?holder . VALUES ?prop { ${props} } ?holder ?prop ?param . }
    OPTIONAL { VALUES ?meta { ${values(metadata)} } ?param ?meta ?metaValue . }
  } }`.text;
}

/**
 * Members of an `owl:intersectionOf` range list that are searched for the value restriction.
 * The list is walked by fixed paths (`rdf:first`, `rdf:rest/rdf:first`, ...), not `rdf:rest*`:
 * Virtuoso 7 answers nothing for `rdf:rest*` over the blank nodes of a list.
 */
export const RANGE_LIST_MEMBERS = 8;

const nthMember = (n: number): SparqlFragment => sequencePath([...Array.from({ length: n }, () => node(w3.rest)), node(w3.first)]);
const LIST_MEMBER: SparqlFragment = new SparqlFragment(
  `(${Array.from({ length: RANGE_LIST_MEMBERS }, (_, n) => nthMember(n).text).join('|')})`,
);

/**
 * `SELECT ?prop ?datatype`: the datatype each of `properties` gives its parameter's value, from
 * its range: a restriction `owl:onProperty inf:hasValue ; owl:allValuesFrom ?datatype`, on its own
 * or as one of the first {@link RANGE_LIST_MEMBERS} members of an `owl:intersectionOf` list (the
 * reference's form).
 */
export function parameterDatatypesQuery(properties: readonly string[]): string {
  const range = node(w3.range);
  return sparql`SELECT ?prop ?datatype WHERE { VALUES ?prop { ${values(properties)} } GRAPH ?g {
    { ?prop ${range} ?restriction . } UNION { ?prop ${range}/${node(w3.intersectionOf)}/${LIST_MEMBER} ?restriction . }
    ?restriction ${node(w3.onProperty)} ${node(inf.hasValue)} ; ${node(w3.allValuesFrom)} ?datatype .
  } }`.text;
}

/**
 * `SELECT ?addr ?hb`: the addresses of `peer`'s Services (`svc:isServiceOf`) whose heartbeat is at
 * or after `cutoff`, freshest first, at most `limit` (a resource has few Services). A heartbeat
 * that cannot be compared counts as fresh, as in the liveness rules; a Service without one does
 * not. Starts from the resource, the most selective pattern.
 */
export function freshPeerServicesQuery(graph: string, peer: string, cutoff: Date, limit: number): string {
  const where = sparql`?svc ${node(svc.isServiceOf)} ${node(peer)} .
    ?svc ${node(svc.address)} ?addr .
    ?svc ${node(svc.lastHeartbeat)} ?hb . FILTER(COALESCE(?hb >= ${dateTimeLiteral(cutoff)}, true))`;
  return sparql`SELECT ?addr ?hb WHERE { ${graphFragment(graph, where)} } ORDER BY DESC(?hb) LIMIT ${limit}`.text;
}
