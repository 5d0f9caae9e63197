import { Command, CommanderError } from 'commander';
import { EXIT, UsageError } from './exit-codes.js';
import { processIo, type CliIo } from './io.js';
import { registerOntologyCommand } from './ontology-command.js';
import { packageVersion } from './version.js';

const EXAMPLES = `
Examples:
  $ semantic-sidecar ontology load --store memory
  $ semantic-sidecar ontology load --store http://127.0.0.1:8890/sparql
  $ semantic-sidecar ontology load ontology/examples/plant.ttl --store /var/lib/semantic-sidecar

Settings: flags win over environment variables (SM_STORE, LOG_LEVEL, SPARQL_USER, ...).
Exit codes: 0 success, 1 failure, 2 usage error. Logs are JSON lines on stderr.
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
  registerOntologyCommand(program, io);
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
    io.stderr.write(`semantic-sidecar: error: ${message}\n`);
    return error instanceof UsageError ? EXIT.USAGE : EXIT.FAILURE;
  }
}

function flush(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/**
 * Entry point of `bin/semantic-sidecar.js`: runs the CLI, flushes stdout and stderr, and exits
 * with the code. Exiting explicitly keeps a lingering keep-alive socket from holding the process.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const code = await run(argv);
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}
