/**
 * The one place where namespace IRIs and vocabulary terms are spelled out. Every other module
 * imports terms from here, so that a term is renamed in one line.
 */

/** Builds full IRIs under one namespace: `ns('x')` is the namespace IRI followed by `x`. */
export type Namespace = ((local: string) => string) & { readonly iri: string };

/** Makes a {@link Namespace} for a base IRI ending in `#` or `/`. */
export function namespace(iri: string): Namespace {
  const ns = (local: string): string => iri + local;
  return Object.assign(ns, { iri });
}

export const CFC = namespace('https://w3id.org/circularfactory/Core#');
export const SVC = namespace('https://w3id.org/circularfactory/Service#');
export const MES = namespace('https://w3id.org/circularfactory/MES#');
export const RDF = namespace('http://www.w3.org/1999/02/22-rdf-syntax-ns#');
export const RDFS = namespace('http://www.w3.org/2000/01/rdf-schema#');
export const OWL = namespace('http://www.w3.org/2002/07/owl#');
export const XSD = namespace('http://www.w3.org/2001/XMLSchema#');
export const SH = namespace('http://www.w3.org/ns/shacl#');
/** The interface vocabulary of the Python reference's connectors (CRC 1574 interfaces). */
export const INF = namespace('https://www.sfb1574.kit.edu/ontologies/CrcInterfaces#');

/** Prefixes used in SPARQL text and Turtle output, keyed by prefix label. */
export const PREFIXES: Readonly<Record<string, string>> = Object.freeze({
  cfc: CFC.iri,
  svc: SVC.iri,
  mes: MES.iri,
  rdf: RDF.iri,
  rdfs: RDFS.iri,
  owl: OWL.iri,
  xsd: XSD.iri,
  sh: SH.iri,
  inf: INF.iri,
});

/** Terms of this product itself (bookkeeping such as the content hash of a provisioned module). */
export const SM = namespace('https://w3id.org/semantic-middleware#');
/** The SHACL shapes shipped in `ontology/shapes.ttl`. */
export const SMSH = namespace('https://w3id.org/semantic-middleware/shapes#');
/** The example plant of `ontology/examples/plant.ttl`, used by the demo and the tests only. */
export const PLANT = namespace('https://example.org/plant#');
