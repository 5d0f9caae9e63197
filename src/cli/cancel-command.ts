import type { Command } from 'commander';
import { OperationResolutionError, TransitionConflictError, ValueError } from '../errors.js';
import { cliCaller } from '../lib/caller-identity.js';
import { snapshotJson, waitForOperation } from '../middleware/operations/operation-watch.js';
import { OGM } from '../ogm/index.js';
import { cancelOperation } from '../registration/cancellation.js';
import { DEFAULT_DATA_GRAPH } from '../vocab/defaults.js';
import { ONTOLOGY_GRAPHS } from '../vocab/graphs.js';
import { expandIri } from './curie.js';
import { CommandFailure, UsageError } from './exit-codes.js';
import { integerFlag, logLevelOption, openStoreFromFlag, storeOption } from './flags.js';
import type { CliIo } from './io.js';

/** Parsed options of `cancel`. */
export interface CancelFlags {
  wait?: boolean;
  timeout: string;
  store?: string;
  graph?: string;
  logLevel?: string;
}

const HELP = `
Cancels an Operation in the graph. A queued one is failed at once (failure kind "cancelled");
a running one is marked for cancelling, and its receiver aborts the work (its device call
included) and fails it with failure kind "cancelled". Prints what was done as JSON; with --wait,
waits for the terminal outcome and prints it. The graph records who cancelled it: cli:<user>.
Exit codes: 0 cancelled (or, for a running Operation, cancel requested; with --wait: failed as
cancelled), 1 the Operation is done or failed already, does not exist, or --timeout passed,
2 usage error (a malformed IRI).

Examples:
  $ semantic-sidecar cancel https://example.org/plant#OpenDoorOperation_1a2b --store http://127.0.0.1:7878/sparql
  $ semantic-sidecar cancel plant:OpenDoorOperation_1a2b --wait --timeout 10 --store http://127.0.0.1:7878/sparql
`;

/**
 * Cancels `operationIri` in the graph as `by` and, with `wait`, waits up to `timeoutMs` for its
 * terminal outcome; writes JSON to `io.stdout`. Shared by `cancel` and `request --timeout`.
 * @throws CommandFailure when it is finished already, does not exist, or did not end in time.
 */
export async function cancelAndReport(
  ogm: OGM,
  operationIri: string,
  io: CliIo,
  options: { wait: boolean; timeoutMs: number },
): Promise<void> {
  let result;
  try {
    result = await cancelOperation(ogm, operationIri, { by: cliCaller() });
  } catch (error) {
    if (error instanceof TransitionConflictError || error instanceof OperationResolutionError) throw new CommandFailure(error.message);
    throw error;
  }
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (!options.wait || result.outcome === 'cancelled') return;
  const final = await waitForOperation(ogm, operationIri, { timeoutMs: options.timeoutMs });
  io.stdout.write(`${JSON.stringify(snapshotJson(final), null, 2)}\n`);
  if (final.failureKind !== 'cancelled')
    throw new CommandFailure(`Operation <${operationIri}> ended ${final.status} before the cancel took effect`);
}

/** `cancel <operation>`: cancel in the graph and print the outcome. */
export async function runCancel(operation: string, flags: CancelFlags, io: CliIo): Promise<void> {
  const operationIri = expandIri(operation, '<operation>');
  const graph = flags.graph === undefined ? DEFAULT_DATA_GRAPH : expandIri(flags.graph, '--graph');
  const timeoutMs = integerFlag(flags.timeout, '--timeout', 1, 86_400) * 1000;
  const store = await openStoreFromFlag(flags.store, io.env);
  try {
    const ogm = new OGM({ store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    await cancelAndReport(ogm, operationIri, io, { wait: flags.wait === true, timeoutMs });
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(error.message, { cause: error });
    throw error;
  } finally {
    await store.close();
  }
}

/** Adds `cancel` to the program. */
export function registerCancelCommand(program: Command, io: CliIo): void {
  program
    .command('cancel')
    .description('cancel an Operation: a queued one fails at once, a running one is stopped by its receiver')
    .argument('<operation>', 'IRI (or CURIE) of the Operation')
    .option('--wait', "wait for a running Operation's terminal outcome and print it")
    .option('--timeout <seconds>', 'longest wait with --wait', '60')
    .addOption(storeOption())
    .option('--graph <iri>', 'named graph of the instance data')
    .addOption(logLevelOption())
    .addHelpText('after', HELP)
    .action(async (operation: string, flags: CancelFlags) => runCancel(operation, flags, io));
}
