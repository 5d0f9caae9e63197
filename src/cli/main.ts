import { Command, CommanderError } from 'commander';
import { CommandFailure, EXIT, UsageError } from './exit-codes.js';
import { processIo, type CliIo } from './io.js';
import { packageVersion } from './version.js';

/** What a command module exports: adds its command (options, help, action) to the program. */
export type RegisterCommand = (program: Command, io: CliIo) => void;

/** A command of the CLI, as the top-level help lists it. */
interface CommandEntry {
  readonly name: string;
  /** Its line in the top-level help, and the description of its own help. */
  readonly summary: string;
  /** Its module, imported only when the command runs (or its help is asked for). */
  readonly load: () => Promise<RegisterCommand>;
}

/**
 * The commands. Each module is loaded only when its command runs, so `--version`, `--help` and
 * every command load none of the others' dependencies (express, oxigraph, the SHACL validator,
 * mqtt...). A new command is one module and one line here.
 */
const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'start',
    summary: "run one resource's sidecar (register, heartbeat, serve, proxy to the device)",
    load: async () => (await import('./start-command.js')).registerStartCommand,
  },
  {
    name: 'watchdog',
    summary: 'sweep stale Services and fail the Operations stranded on their resources',
    load: async () => (await import('./watchdog-command.js')).registerWatchdogCommand,
  },
  {
    name: 'request',
    summary: 'dispatch an Operation to a reachable receiver of a Capability',
    load: async () => (await import('./request-command.js')).registerRequestCommand,
  },
  {
    name: 'cancel',
    summary: 'cancel an Operation: a queued one fails at once, a running one is stopped by its receiver',
    load: async () => (await import('./cancel-command.js')).registerCancelCommand,
  },
  {
    name: 'ontology',
    summary: 'manage the ontology modules in the store',
    load: async () => (await import('./ontology-command.js')).registerOntologyCommand,
  },
  {
    name: 'store',
    summary: 'run the embedded store for several processes',
    load: async () => (await import('./store-command.js')).registerStoreCommand,
  },
  {
    name: 'discover',
    summary: 'list the reachable receivers of a Capability class, freshest heartbeat first',
    load: async () => (await import('./discover-command.js')).registerDiscoverCommand,
  },
  {
    name: 'status',
    summary: "show a resource's Services, Capabilities and queued or running Operations",
    load: async () => (await import('./status-command.js')).registerStatusCommand,
  },
  {
    name: 'console',
    summary: 'serve the web console of the plant (Services, Operations, possession, live activity, cancel)',
    load: async () => (await import('./console-command.js')).registerConsoleCommand,
  },
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

/**
 * The command `args` (process.argv without node and script) runs: the first word, or the one
 * after `help`. The program's own options (`--version`, `--help`) take no value, so the first
 * word is never an option's value.
 */
function invokedCommand(args: readonly string[]): string | undefined {
  const words = args.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/**
 * The `semantic-sidecar` command tree for `argv` (node and script first), writing to `io`: the
 * command `argv` runs is loaded whole, every other one is only its name and summary (enough for
 * the top-level help and for suggestions after a typo). Commander never exits the process itself.
 */
export async function buildProgram(argv: readonly string[], io: CliIo = processIo): Promise<Command> {
  const program = new Command('semantic-sidecar')
    .description('Registers a shop-floor resource in a SPARQL knowledge graph and coordinates work between resources.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) })
    .addHelpText('after', EXAMPLES);
  const invoked = invokedCommand(argv.slice(2));
  for (const { name, summary, load } of COMMANDS) {
    if (name === invoked) (await load())(program, io);
    else program.command(name);
    program.commands.find((command) => command.name() === name)?.description(summary);
  }
  return program;
}

/**
 * Runs the CLI on `argv` (as in `process.argv`, node and script first) and resolves to the exit
 * code: 0 success, 1 the command failed, 2 a usage error. Never exits the process.
 */
export async function run(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    await (await buildProgram(argv, io)).parseAsync([...argv]);
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
