/**
 * Graph IRIs the product chooses for itself. Writes always name a graph (remote stores such as
 * Virtuoso refuse updates to a plain default graph), so data written without an explicit named
 * graph goes here.
 */
export const DEFAULT_DATA_GRAPH = 'https://w3id.org/semantic-middleware/graph/data';

/** Stands for "each matched individual" in the validation messages of a bulk commit. */
export const MATCHED_INDIVIDUAL = 'urn:semantic-middleware:matched-individual';
