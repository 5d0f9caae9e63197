import { sparql } from '../store/sparql.js';

/** Queries that only tell whether the store answers. */

/** ASK over any triple: the first request a starting sidecar makes, to learn that the store answers. */
export const ANY_TRIPLE_ASK: string = sparql`ASK { ?s ?p ?o }`.text;

/** The cheapest query a store can answer (no data read): the watchdog's readiness probe. */
export const TRIVIAL_SELECT: string = sparql`SELECT (1 AS ?one) WHERE { }`.text;
