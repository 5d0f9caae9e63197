/**
 * The OGM as the rest of the package uses it: the mapper and the shapes of its inputs and
 * results. Its internals (the triple writer, the TBox reader) are imported by path.
 */
export {
  OGM,
  type OgmOptions,
  type CreateInput,
  type CommitInput,
  type CommitResult,
  type Individual,
  type PropertyInputs,
  type WrittenIndividual,
} from './ogm.js';
export type { ValueInput } from './values.js';
