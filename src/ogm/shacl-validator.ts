/**
 * rdf-validate-shacl, loaded by the first write that needs it. The compiled shapes
 * (compiled-shapes.ts) pass conforming writes on their own, so a sidecar that registers itself
 * and runs its Operations never needs the library: loading it and building its first validator
 * (which reads the whole SHACL vocabulary into a dataset) cost a sidecar's start-up tens of ms.
 */
import type { DatasetCore, Quad } from '@rdfjs/types';
import SHACLValidator from 'rdf-validate-shacl';
import defaultEnvironment from 'rdf-validate-shacl/src/defaultEnv.js';
import { CompactDataset } from './compact-dataset.js';

/** The validator's own environment, with datasets that stay small in memory (see CompactDataset). */
const validatorEnvironment = Object.create(defaultEnvironment, {
  dataset: { value: (quads?: Iterable<Quad>) => new CompactDataset(quads) },
}) as typeof defaultEnvironment;

/** A validator of `shapes`, to be reused: each check clones its validation engine first. */
export function shaclValidator(shapes: DatasetCore): SHACLValidator {
  return new SHACLValidator(shapes, { factory: validatorEnvironment });
}
