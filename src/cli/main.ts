import { Command, CommanderError } from 'commander';
import { registerDiscoverCommand } from './discover-command.js';
import { CommandFailure, EXIT, UsageError } from './exit-codes.js';
import { processIo, type CliIo } from './io.js';
import { registerOntologyCommand } from './ontology-command.js';
import { registerStatusCommand } from './status-command.js';
import { registerStoreCommand } from './store-command.js';
import { registerStartCommand } from './start-command.js';
import { registerWatchdogCommand } from './watchdog-command.js';
import { registerRequestCommand } from './request-command.js';
import { registerCancelCommand } from './cancel-command.js';
import { packageVersion } from './version.js';

/**
 * The commands, each added by its module's `register*Command(program, io)`. A new command is
 * one module and one line here; main.ts stays a registry.
 */
const COMMANDS: readonly ((program: Command, io: CliIo) => void)[] = [
  registerStartCommand,
  registerWatchdogCommand,
  registerRequestCommand,
  registerCancelCommand,
  registerOntologyCommand,
  registerStoreCommand,
  registerDiscoverCommand,
  registerStatusCommand,
];

const EXAMPLES = `
Examples:
  $ semantic-sidecar ontology load --store memory
  $ semantic-sidecar ontology load --store http://127.0.0.1:8890/sparql
  $ semantic-sidecar ontology load ontology/examples/plant.ttl --store /var/lib/semantic-sidecar
  $ semantic-sidecar store serve --data-dir /var/lib/semantic-sidecar --provision
  $ semantic-sidecar discover --capability plant:DoorOpeningCapability --store http://127.0.0.1:7878/sparql
  $ semantic-sidecar status --resource plant:door1 --store http://127.0.0.1:7878/sparql --json

Settings: flags > environment (SM_STORE, LOG_LEVEL, SPARQL_USER, ...) > --config file > defaults;
every command reads the store from --store or SM_STORE.
Exit codes: 0 success, 1 failure (or nothing found), 2 usage error. Results go to stdout, logs
(JSON lines) and messages to stderr. Every command has --help with examples.
`;

/** The `semantic-sidecar` command tree, writing to `io`. Commander never exits the process itself. */
export function buildProgram(io: CliIo = processIo): Command {
  const program = new Command('semantic-sidecar')
    .description('Registers a shop-floor resource in a SPARQL knowledge graph and coordinates work between resources.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) })
    .addHelpText('after', EXAMPLES);
  for (const register of COMMANDS) register(program, io);
  return program;
}

/**
 * Runs the CLI on `argv` (as in `process.argv`, node and script first) and resolves to the exit
 * code: 0 success, 1 the command failed, 2 a usage error. Never exits the process.
 */
export async function run(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync([...argv]);
    return EXIT.OK;
  } catch (error) {
    // Commander has already printed its own message (unknown command, missing option, help).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof CommandFailure) {
      io.stderr.write(`semantic-sidecar: ${message}\n`);
      return EXIT.FAILURE;
    }
    io.stderr.write(`semantic-sidecar: error: ${message}\n`);
    return error instanceof UsageError ? EXIT.USAGE : EXIT.FAILURE;
  }
}

function flush(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** A reader that stopped early (`semantic-sidecar --help | head -1`) is no failure: exit quietly. */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT.OK);
  });
}

/**
 * Entry point of `bin/semantic-sidecar.js`: runs the CLI, flushes stdout and stderr, and exits
 * with the code. Exiting explicitly keeps a lingering keep-alive socket from holding the process.
 */
export async function main(argv: readonly string[]): Promise<void> {
  exitQuietlyOnClosedPipe(process.stdout);
  const code = await run(argv);
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}
