import type { Command } from 'commander';
import { rdfFormatOf } from '../ontology/formats.js';
import { assertReadableFile } from '../ontology/module-loader.js';
import { loadOntologyFiles, provisionOntology, type ProvisionReport } from '../ontology/provision.js';
import { UsageError } from './exit-codes.js';
import { cliLogger, logLevelOption, openStoreFromFlag, storeOption } from './flags.js';
import type { CliIo } from './io.js';
import { progressBars } from './progress.js';

const LOAD_HELP = `
Exit codes: 0 loaded (or unchanged), 1 failed (unreadable file, store error), 2 usage error.

Examples:
  $ semantic-sidecar ontology load --store http://127.0.0.1:7878/sparql
  $ semantic-sidecar ontology load ontology/examples/plant.ttl --store /var/lib/semantic-sidecar
  $ semantic-sidecar ontology load my-line.ttl --graph https://example.org/line1 --store memory
`;

/** Parsed options of `ontology load`. */
export interface OntologyLoadOptions {
  store?: string;
  graph?: string;
  logLevel?: string;
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
  const ontology = program.command('ontology');
  ontology
    .command('load')
    .description(
      'load ontology files into the store, each into its own named graph (the bundled modules when no file is given); ' +
        'unchanged files are skipped',
    )
    .argument('[files...]', 'Turtle, N-Triples, N-Quads or TriG files (.ttl, .nt, .nq, .trig)')
    .addOption(storeOption())
    .option('--graph <iri>', "named graph for a single file (default: the file's owl:Ontology IRI)")
    .addOption(logLevelOption())
    .addHelpText('after', LOAD_HELP)
    .action(async (files: string[], options: OntologyLoadOptions) => {
      await runOntologyLoad(files, options, io);
    });
}
