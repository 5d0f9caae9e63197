import { basename } from 'node:path';
import { ValueError } from '../errors.js';
import { assertIri, isIri } from '../iri/validate.js';
import type { TripleStore } from '../store/triple-store.js';
import { BUNDLED_ONTOLOGY_FILES, type OntologyFile } from './files.js';
import { declaredOntologyIri, fileGraphIri, rdfFormatOf } from './formats.js';
import { assertReadableFile, checkModule, loadModule, readModule, type ModuleLoadOptions, type ModuleReport } from './module-loader.js';

export type { ModuleReport, OntologyLoadEvent, OntologyLogger } from './module-loader.js';

/** What a provisioning run did, module by module, in load order. */
export interface ProvisionReport {
  readonly modules: readonly ModuleReport[];
  /** Modules (re)loaded because their graph did not hold this exact file. */
  readonly loaded: number;
  /** Modules left alone because their graph already held this exact file. */
  readonly unchanged: number;
}

export interface ProvisionOptions extends ModuleLoadOptions {
  /** Modules to provision; defaults to {@link BUNDLED_ONTOLOGY_FILES} (Core, Service, MES, shapes). */
  files?: readonly OntologyFile[];
}

function summarize(modules: ModuleReport[]): ProvisionReport {
  const loaded = modules.filter((m) => m.status === 'loaded').length;
  return { modules, loaded, unchanged: modules.length - loaded };
}

/**
 * Provisions the ontology modules into the store, each into its own named graph (its
 * `owl:Ontology` IRI). Idempotent: a module whose graph already holds the same file (by sha256)
 * is skipped, a changed one is replaced as a whole. Every module is checked at once (a sidecar's
 * start, where all are current, waits for one round of reads); the changed ones are then loaded
 * one after another, in order.
 *
 * @example
 * const report = await provisionOntology(store, { logger });
 * // report.modules[0] -> { name: 'core', graph: 'https://w3id.org/circularfactory/Core', status: 'loaded', ... }
 */
export async function provisionOntology(store: TripleStore, options: ProvisionOptions = {}): Promise<ProvisionReport> {
  const { files = BUNDLED_ONTOLOGY_FILES, ...loadOptions } = options;
  const sources = files.map((file) => ({
    ...file,
    graph: assertIri(file.graph, `graph of ontology module "${file.name}"`),
    format: rdfFormatOf(file.path),
  }));
  const checked = await Promise.all(sources.map((source) => checkModule(store, source)));
  const modules: ModuleReport[] = [];
  for (const source of checked) modules.push(await loadModule(store, source, loadOptions));
  return summarize(modules);
}

export interface LoadOntologyFilesOptions extends ModuleLoadOptions {
  /**
   * Named graph for the file. Only with a single file, since each graph holds exactly one file.
   * Default: the IRI the file declares with `<x> a owl:Ontology`, else
   * `urn:semantic-middleware:ontology-file:<percent-encoded file name>`.
   */
  graph?: string;
}

function graphOf(path: string, content: Buffer, options: LoadOntologyFilesOptions): string {
  if (options.graph !== undefined) return assertIri(options.graph, 'graph');
  const declared = declaredOntologyIri(content.toString('utf8'), rdfFormatOf(path));
  return isIri(declared) ? declared : fileGraphIri(path);
}

/**
 * Loads user ontology files (`.ttl`, `.nt`, `.nq`, `.trig`), each into its own named graph, with
 * the same idempotent replace-by-hash rule as {@link provisionOntology}. Quads of `.nq`/`.trig`
 * files that name their own graph are passed to the store as they are; only the file's graph is
 * cleared on reload.
 *
 * @throws ValueError for an unknown extension, an unreadable file, or `graph` given with several files.
 * @example await loadOntologyFiles(store, ['plant.ttl'], { logger })
 */
export async function loadOntologyFiles(
  store: TripleStore,
  paths: readonly string[],
  options: LoadOntologyFilesOptions = {},
): Promise<ProvisionReport> {
  if (options.graph !== undefined && paths.length > 1) {
    throw new ValueError(`a graph can be given for one file only, got ${paths.length} files`);
  }
  // Fail on a bad extension or a missing file before anything is loaded.
  for (const path of paths) rdfFormatOf(path);
  for (const path of paths) await assertReadableFile(path);
  const { graph: _graph, ...loadOptions } = options;
  const modules: ModuleReport[] = [];
  for (const path of paths) {
    const content = await readModule(path);
    const source = { name: basename(path), path, content, graph: graphOf(path, content, options), format: rdfFormatOf(path) };
    modules.push(await loadModule(store, source, loadOptions));
  }
  return summarize(modules);
}
