/**
 * Every size and time limit of the product, in one place, with the reason for its value.
 */
export const LIMITS = Object.freeze({
  /** Longest IRI accepted anywhere. Generous for minted IRIs, small enough to stop abuse. */
  maxIriLength: 2048,
  /** Longest workflow or state-property name; names become IRI segments and URL path segments. */
  maxNameLength: 128,
  /** Longest literal value written to the graph (an Operation data field, a result, a snapshot). */
  maxLiteralLength: 1_048_576,
  /** Largest SPARQL request the embedded store journals as one entry. */
  maxJournalEntryBytes: 16 * 1_048_576,
});
