import { Option, type Command } from 'commander';
import { ValueError } from '../errors.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { rdfFormatOf } from '../ontology/formats.js';
import { assertReadableFile } from '../ontology/module-loader.js';
import { loadOntologyFiles, provisionOntology, type ProvisionReport } from '../ontology/provision.js';
import { openStore, parseStoreUrl } from '../store/open-store.js';
import type { TripleStore } from '../store/triple-store.js';
import { UsageError } from './exit-codes.js';
import type { CliIo } from './io.js';
import { progressBars } from './progress.js';

/** Parsed options of `ontology load`. */
export interface OntologyLoadOptions {
  store: string;
  graph?: string;
  logLevel?: string;
}

/** Opens the store named on the command line; a malformed location is a usage error. */
export async function openStoreFromFlag(location: string, env: NodeJS.ProcessEnv): Promise<TripleStore> {
  let spec;
  try {
    spec = parseStoreUrl(location, env);
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(`--store: ${error.message}`, { cause: error });
    throw error;
  }
  return openStore(spec);
}

/** The command's logger (JSON lines on stderr); a bad level is a usage error. */
function cliLogger(level: string | undefined): Logger {
  try {
    return createLogger({ destination: 2, ...(level === undefined ? {} : { level }) });
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(`--log-level: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * `ontology load [FILES...]`: without files, provisions the bundled modules (Core subset, Service,
 * MES, shapes), each into its own graph; with files, loads each into the graph its
 * `owl:Ontology` IRI names (or `--graph`). Unchanged modules are skipped by content hash.
 * Files are checked before the store is opened, so a typo fails fast and touches nothing.
 */
export async function runOntologyLoad(files: string[], options: OntologyLoadOptions, io: CliIo): Promise<ProvisionReport> {
  if (options.graph !== undefined && files.length !== 1) {
    throw new UsageError(`--graph needs exactly one file, got ${files.length}`);
  }
  const logger = cliLogger(options.logLevel);
  for (const file of files) rdfFormatOf(file);
  for (const file of files) await assertReadableFile(file);

  const store = await openStoreFromFlag(options.store, io.env);
  try {
    const loadOptions = { logger, onProgress: progressBars(io.stderr) };
    const report =
      files.length === 0
        ? await provisionOntology(store, loadOptions)
        : await loadOntologyFiles(store, files, { ...loadOptions, ...(options.graph === undefined ? {} : { graph: options.graph }) });
    logger.info({ store: store.description, loaded: report.loaded, unchanged: report.unchanged }, 'ontology load finished');
    return report;
  } finally {
    await store.close();
  }
}

/** Adds `ontology load` to the program. */
export function registerOntologyCommand(program: Command, io: CliIo): void {
  const ontology = program.command('ontology').description('manage the ontology modules in the store');
  ontology
    .command('load')
    .description(
      'load ontology files into the store, each into its own named graph (the bundled modules when no file is given); ' +
        'unchanged files are skipped',
    )
    .argument('[files...]', 'Turtle, N-Triples, N-Quads or TriG files (.ttl, .nt, .nq, .trig)')
    .addOption(
      new Option('--store <url>', '"memory", a SPARQL endpoint URL (http/https) or an embedded store directory')
        .env('SM_STORE')
        .makeOptionMandatory(),
    )
    .option('--graph <iri>', "named graph for a single file (default: the file's owl:Ontology IRI)")
    .option('--log-level <level>', 'trace, debug, info, warn, error, fatal or silent (env LOG_LEVEL; default info)')
    .action(async (files: string[], options: OntologyLoadOptions) => {
      await runOntologyLoad(files, options, io);
    });
}
