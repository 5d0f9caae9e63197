import { OntologyGroundTruthError, ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import type { Tbox } from '../ogm/tbox.js';

/** The optional named graph every registration operation takes. */
export interface GraphOption {
  /** Graph for the read or write; the OGM's graph when omitted. */
  namedGraph?: string | null;
}

/**
 * Checks that an options argument from an untyped caller is an object (or, when not `required`,
 * absent), so a wrong shape is a ValueError naming the function, never a TypeError.
 * @throws ValueError otherwise.
 */
export function checkOptions(options: unknown, fn: string, required = true): void {
  if (options === undefined && !required) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ValueError(`the options of ${fn} must be an object, got ${preview(options)}`);
  }
}

/** The graph an operation reads or writes: `namedGraph`, or the OGM's own graph. @throws ValueError for options that are not an object. */
export function graphOf(ogm: OGM, options?: GraphOption): string {
  checkOptions(options, 'this registration operation', false);
  // Only absence (undefined, null or "") means the OGM's graph: any other value must be an IRI.
  const given = options?.namedGraph;
  return given == null || given === '' ? ogm.graph : assertIri(given, 'namedGraph');
}

function holds(tbox: Tbox, classIri: string, baseIri: string): boolean {
  return tbox.hasClass(classIri) && tbox.isSubClassOf(classIri, baseIri);
}

/**
 * Valid iff `classIri` equals `baseIri` or is a subclass of it in the ontology. Read only: the
 * OGM's cached TBox is used, and re-read once before failing, so a class loaded after start-up
 * is found. The ontology is read from every graph, so `namedGraph` does not narrow it.
 * @throws OntologyGroundTruthError when the class is missing or not a subclass of the base.
 */
export async function assertClassRegistered(ogm: OGM, classIri: string, baseIri: string, _options?: GraphOption): Promise<void> {
  assertIri(classIri, 'class');
  assertIri(baseIri, 'base class');
  let tbox = await ogm.tbox();
  if (holds(tbox, classIri, baseIri)) return;
  if (ogm.refreshAfterMiss()) tbox = await ogm.tbox();
  if (!tbox.hasClass(classIri)) {
    throw new OntologyGroundTruthError(
      `class <${classIri}> does not exist in the ontology; load the ontology that declares it (semantic-sidecar ontology load)`,
    );
  }
  if (!tbox.isSubClassOf(classIri, baseIri)) {
    throw new OntologyGroundTruthError(`class <${classIri}> is not <${baseIri}> or a subclass of it`);
  }
}
