export {
  OGM,
  type OgmOptions,
  type CreateInput,
  type CommitInput,
  type CommitResult,
  type Individual,
  type PropertyInputs,
} from './ogm.js';
export { OgmDb, APPENDABLE_PROPERTIES, type TripleInput } from './db.js';
export { Tbox, loadTbox, type PropertyInfo } from './tbox.js';
export type { ValueInput } from './values.js';
