/**
 * rdf-validate-shacl, loaded by the first write that needs it. The compiled shapes
 * (compiled-shapes.ts) pass conforming writes on their own, so a sidecar that registers itself
 * and runs its Operations never needs the library: loading it and building the first validator
 * (which reads the whole SHACL vocabulary into a dataset) cost a sidecar's start-up tens of ms
 * and its idle memory some MB.
 */
import type { DatasetCore, Quad, Term } from '@rdfjs/types';
import SHACLValidator from 'rdf-validate-shacl';
import defaultEnvironment from 'rdf-validate-shacl/src/defaultEnv.js';
import { CompactDataset } from './compact-dataset.js';

/**
 * The validator's own environment, with datasets that stay small in memory (see CompactDataset);
 * the shapes and data graphs given to it are CompactDatasets too, so that N3's Store, and the
 * stream library it brings, are not loaded for it.
 */
const validatorEnvironment = Object.create(defaultEnvironment, {
  dataset: { value: (quads?: Iterable<Quad>) => new CompactDataset(quads) },
}) as typeof defaultEnvironment;

export type ValidationReport = Awaited<ReturnType<SHACLValidator['validateNode']>>;

/** The library's judge of writes against one shapes graph. */
export interface ShaclLibrary {
  /** The data graph of one write, to be judged against one or more shapes. */
  dataGraph(quads: Iterable<Quad>): DatasetCore;
  /** Validates `focus` in `data` against `shape`, with a fresh validation engine (the library's keeps earlier results). */
  validateNode(data: DatasetCore, focus: Term, shape: Term): Promise<ValidationReport>;
}

/** A judge of writes against the shapes graph `shapes`: one validator, built now and reused. */
export function shaclLibrary(shapes: Iterable<Quad>): ShaclLibrary {
  const validator = new SHACLValidator(new CompactDataset(shapes), { factory: validatorEnvironment });
  return {
    dataGraph: (quads) => new CompactDataset(quads),
    validateNode(data, focus, shape) {
      // A conforming write after a failing one would otherwise be reported failing.
      validator.validationEngine = validator.validationEngine.clone();
      return validator.validateNode(data, focus, shape);
    },
  };
}
