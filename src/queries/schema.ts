import { graphFragment, sparql } from '../store/sparql.js';
import { namedNode } from '../store/terms.js';
import { OWL, RDF, RDFS } from '../vocab/namespaces.js';

/** SPARQL text of the schema reads: the TBox the OGM validates against, and the SHACL shapes. */

const I = (iri: string) => namedNode(iri);

/**
 * The whole TBox from every named graph, as `?k` (kind of edge) `?s` `?o` rows. Branches of one
 * query, each starting from a fixed predicate so the store uses its predicate index instead of
 * scanning every quad of every graph.
 */
export const TBOX_QUERY: string = sparql`
SELECT ?k ?s ?o WHERE { GRAPH ?g {
  { VALUES ?o { ${I(OWL('Class'))} ${I(RDFS('Class'))} ${I(OWL('ObjectProperty'))} ${I(OWL('DatatypeProperty'))} ${I(OWL('AnnotationProperty'))} ${I(RDF('Property'))} ${I(OWL('SymmetricProperty'))} ${I(OWL('TransitiveProperty'))} ${I(OWL('FunctionalProperty'))} }
    ?s ${I(RDF('type'))} ?o . BIND("type" AS ?k) }
  UNION { ?s ${I(RDFS('subClassOf'))} ?o . BIND("sub" AS ?k) }
  UNION { ?s ${I(RDFS('domain'))} ?o . BIND("domain" AS ?k) }
  UNION { ?s ${I(RDFS('range'))} ?o . BIND("range" AS ?k) }
  UNION { ?s ${I(OWL('unionOf'))} ?o . BIND("union" AS ?k) }
  UNION { ?s ${I(RDF('first'))} ?o . BIND("first" AS ?k) }
  UNION { ?s ${I(RDF('rest'))} ?o . BIND("rest" AS ?k) }
  UNION { ?s ${I(OWL('onProperty'))} ?o . BIND("onProperty" AS ?k) }
  UNION { ?s ${I(OWL('cardinality'))} ?o . BIND("max" AS ?k) }
  UNION { ?s ${I(OWL('qualifiedCardinality'))} ?o . BIND("max" AS ?k) }
  UNION { ?s ${I(OWL('maxCardinality'))} ?o . BIND("max" AS ?k) }
  UNION { ?s ${I(OWL('maxQualifiedCardinality'))} ?o . BIND("max" AS ?k) }
} }`.text;

/** Every triple of the named graph `graph` as `?s ?p ?o` rows (the shapes graph, read whole). */
export function graphTriplesQuery(graph: string): string {
  return sparql`SELECT ?s ?p ?o WHERE { ${graphFragment(graph, sparql`?s ?p ?o`)} }`.text;
}
