import { Option, type Command } from 'commander';
import { ValueError } from '../errors.js';
import { tokenProblem } from '../http/bearer-auth.js';
import { readSecretFile } from '../lib/secret-file.js';
import { cliCaller } from '../lib/caller-identity.js';
import { SemanticMiddleware } from '../middleware/semantic-middleware.js';
import { snapshotJson } from '../middleware/operations/operation-watch.js';
import { OperationTimeoutError } from '../errors.js';
import { cancelAndReport } from './cancel-command.js';
import { OGM } from '../ogm/index.js';
import { DEFAULT_DATA_GRAPH } from '../vocab/defaults.js';
import { ONTOLOGY_GRAPHS } from '../vocab/graphs.js';
import { expandIri } from './curie.js';
import { CommandFailure, UsageError } from './exit-codes.js';
import { cliLogger, integerFlag, logLevelOption, openStoreFromFlag, storeOption } from './flags.js';
import type { CliIo } from './io.js';
import type { Logger } from '../lib/logger.js';
import { parseTraceparent } from '../tracing/trace-context.js';

/** The `mode` of the log lines of `semantic-sidecar request`: a caller, not a resource or a watchdog. */
export const REQUEST_MODE = 'request';

// How long --wait waits when no --timeout is given.
const DEFAULT_WAIT_SECONDS = '60';

/** Parsed options of `request`. */
export interface RequestFlags {
  capability: string;
  operationClass: string;
  target?: string;
  data?: string;
  wait?: boolean;
  timeout?: string;
  store?: string;
  graph?: string;
  tokenFile?: string;
  logLevel?: string;
  traceparent?: string;
}

const HELP = `
Dispatches one Operation from a shell: finds a reachable receiver of the Capability class
(preferring a fresh heartbeat; --target pins the resource), creates the Operation with --data
(a JSON object of svc: data fields) and rings the receiver's event trigger. Prints the Operation
IRI; with --wait it waits for the outcome and prints it as JSON.
--timeout gives the Operation a deadline (sm:deadline) that many seconds from now: no receiver
starts it later (it is failed with failure kind "deadline" instead), even one whose store link
returns after it. With --wait, an Operation not finished by then is cancelled, and the cancel is
printed. Without --timeout, --wait waits 60 seconds and sets no deadline.
Exit codes: 0 requested (with --wait: done), 1 no receiver, delivery failed, the Operation
failed or --timeout passed, 2 usage error.
A receiver whose HTTP surface requires a token gets the one in --token-file (or
SIDECAR_OUTGOING_TOKEN_FILE, or SIDECAR_OUTGOING_TOKEN) as "Authorization: Bearer <token>".
An https:// receiver with a private CA needs NODE_EXTRA_CA_CERTS=<ca.pem>.
--traceparent (or TRACEPARENT) continues a W3C trace: the receiver's run and its device call
carry its trace id (log lines "traceId", outgoing "traceparent" headers); without it a new
trace starts, whose id the log lines of this command show.

Examples:
  $ semantic-sidecar request --capability plant:DoorOpeningCapability --operation-class plant:OpenDoorOperation --store http://127.0.0.1:7878/sparql --wait
  $ semantic-sidecar request --capability plant:DoorOpeningCapability --operation-class plant:OpenDoorOperation --target plant:door1 --data '{"svc:executionResult":"x"}' --store memory
`;

function parseData(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new UsageError('--data must be a JSON object of svc: data fields');
  return data as Record<string, unknown>;
}

/**
 * The token for receivers: the first line of `--token-file`, else `SIDECAR_OUTGOING_TOKEN`, else
 * none. An empty `SIDECAR_OUTGOING_TOKEN_FILE` counts as unset, as every empty variable does.
 */
function outgoingToken(file: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  let token = env.SIDECAR_OUTGOING_TOKEN || undefined;
  let what = 'SIDECAR_OUTGOING_TOKEN';
  if (file) {
    what = `--token-file ${JSON.stringify(file)}`;
    const read = readSecretFile(file);
    if ('problem' in read) throw new UsageError(`${what} ${read.problem}`);
    token = read.secret;
  }
  const problem = token === undefined ? undefined : tokenProblem(token);
  if (problem !== undefined) throw new UsageError(`${what}: the token ${problem}`);
  return token;
}

/**
 * The caller's `traceparent` to continue (`--traceparent`, else TRACEPARENT), or null for a new
 * trace; an invalid one is ignored with a warning, as the W3C rules say, never an error.
 */
function tracedBy(value: string | undefined, logger: Logger): string | null {
  if (!value) return null;
  if (parseTraceparent(value) !== undefined) return value;
  logger.warn({ traceparent: value }, 'the traceparent is not a valid W3C traceparent (version 00); a new trace is started');
  return null;
}

/** `request`: dispatch, print the IRI, and with `--wait` the outcome. */
export async function runRequest(flags: RequestFlags, io: CliIo): Promise<void> {
  const capabilityClass = expandIri(flags.capability, '--capability');
  const operationClass = expandIri(flags.operationClass, '--operation-class');
  const targetResource = flags.target === undefined ? null : expandIri(flags.target, '--target');
  const graph = flags.graph === undefined ? DEFAULT_DATA_GRAPH : expandIri(flags.graph, '--graph');
  const data = parseData(flags.data);
  const timeoutMs = integerFlag(flags.timeout ?? DEFAULT_WAIT_SECONDS, '--timeout', 1, 86_400) * 1000;
  const deadline = flags.timeout === undefined ? null : new Date(Date.now() + timeoutMs);
  // The middleware below runs in watchdog mode only because that mode registers nothing; the
  // log lines say what this process is.
  const logger = cliLogger(flags.logLevel).child({ mode: REQUEST_MODE });
  const token = outgoingToken(flags.tokenFile, io.env);
  const store = await openStoreFromFlag(flags.store, io.env);
  try {
    const ogm = new OGM({ store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    const outgoingTokens = token === undefined ? null : { default: token };
    const mw = new SemanticMiddleware({ mode: 'watchdog', ogm, namedGraph: graph, logger, outgoingTokens });
    const traceparent = tracedBy(flags.traceparent, logger);
    const wait = flags.wait === true;
    const request = { capabilityClass, operationClass, targetResource, deadline, traceparent, requestedBy: cliCaller(), wait };
    const operation = await mw.request(request, (draft) => {
      Object.assign(draft.data, data);
    });
    io.stdout.write(`${operation}\n`);
    if (!wait) return;
    const result = await mw.waitForOperation(operation, { timeoutMs }).catch(async (error: unknown) => {
      // The caller gives up: the Operation must not run later either.
      if (!(error instanceof OperationTimeoutError) || deadline === null) throw error;
      await cancelAndReport(ogm, operation, io, { wait: false, timeoutMs });
      throw new CommandFailure(`${error.message}; it was cancelled`);
    });
    io.stdout.write(`${JSON.stringify(snapshotJson(result), null, 2)}\n`);
    if (result.status !== 'done')
      throw new CommandFailure(`Operation <${operation}> ${result.status}: ${result.result ?? 'no reason recorded'}`);
  } catch (error) {
    if (error instanceof ValueError) throw new UsageError(error.message, { cause: error });
    throw error;
  } finally {
    await store.close();
  }
}

/** Adds `request` to the program. */
export function registerRequestCommand(program: Command, io: CliIo): void {
  program
    .command('request')
    .requiredOption('--capability <class>', 'Capability class to dispatch to (CURIE or IRI)')
    .requiredOption('--operation-class <class>', 'class of the Operation created')
    .option('--target <iri>', 'only a Service of this resource')
    .option('--data <json>', 'JSON object of svc: data fields written with the Operation')
    .option('--wait', 'wait for the outcome and print it')
    .option(
      '--timeout <seconds>',
      `deadline of the Operation, and longest wait with --wait (default ${DEFAULT_WAIT_SECONDS} s of waiting, no deadline)`,
    )
    .addOption(storeOption())
    .option('--graph <iri>', 'named graph of the instance data')
    .addOption(new Option('--token-file <file>', "file whose first line is the receiver's bearer token").env('SIDECAR_OUTGOING_TOKEN_FILE'))
    .addOption(
      new Option('--traceparent <value>', 'W3C traceparent of the trace this request continues (default: a new trace)').env('TRACEPARENT'),
    )
    .addOption(logLevelOption())
    .addHelpText('after', HELP)
    .action(async (flags: RequestFlags) => runRequest(flags, io));
}
