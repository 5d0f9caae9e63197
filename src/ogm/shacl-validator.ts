/**
 * rdf-validate-shacl, loaded by the first write that needs it. The compiled shapes
 * (compiled-shapes.ts) pass conforming writes on their own, so a sidecar that registers itself
 * and runs its Operations never needs the library: loading it and building the first validator
 * (which reads the whole SHACL vocabulary into a dataset) cost a sidecar about 40 ms of its
 * start-up and 7 MB of its idle memory.
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
  /** Validates `focus` in `data` against `shape`: one validation at a time, each with a fresh validation engine. */
  validateNode(data: DatasetCore, focus: Term, shape: Term): Promise<ValidationReport>;
}

/** A judge of writes against the shapes graph `shapes`: one validator, built now and reused. */
export function shaclLibrary(shapes: Iterable<Quad>): ShaclLibrary {
  const validator = new SHACLValidator(new CompactDataset(shapes), { factory: validatorEnvironment });
  // The validator holds the data graph and the engine that collects results, and its
  // validateNode awaits before it reads them: validations that overlapped would judge one
  // write's data into another's report. So they run one after another.
  let last: Promise<unknown> = Promise.resolve();
  return {
    dataGraph: (quads) => new CompactDataset(quads),
    validateNode(data, focus, shape) {
      const report = last.then(() => {
        // A fresh engine: one that judged a failing write would report the next one failing too.
        validator.validationEngine = validator.validationEngine.clone();
        return validator.validateNode(data, focus, shape);
      });
      last = report.catch(() => undefined);
      return report;
    },
  };
}
