import type { Command } from 'commander';
import { OGM } from '../ogm/ogm.js';
import { findResourceOperations } from '../registration/operations.js';
import type { TripleStore } from '../store/triple-store.js';
import { DEFAULT_DATA_GRAPH } from '../vocab/defaults.js';
import { OperationStatus } from '../vocab/status.js';
import { compactIri, expandIri } from './curie.js';
import { CommandFailure } from './exit-codes.js';
import { openStoreFromFlag, storeOption } from './flags.js';
import { ageSeconds, formatAge, table } from './format.js';
import type { CliIo } from './io.js';
import { capabilitiesOf, servicesOf, type CapabilityState, type ServiceState } from '../queries/discovery.js';

/** Parsed options of `status`. */
export interface StatusOptions {
  resource: string;
  store?: string;
  graph?: string;
  json?: boolean;
}

/** Operations of one status: how many, and the first few IRIs (sorted). */
export interface OperationCount {
  count: number;
  first: string[];
}

/** What `status` reports about a resource (`--json` prints exactly this). */
export interface ResourceStatus {
  resource: string;
  graph: string;
  services: (ServiceState & { reachable: boolean; heartbeatAgeSeconds?: number })[];
  capabilities: CapabilityState[];
  operations: { queued: OperationCount; running: OperationCount };
}

/** Operation IRIs listed per status. */
export const STATUS_FIRST_OPERATIONS = 5;

const HELP = `
Shows a resource's Services (class, reachable or not, address, heartbeat age), its
Capabilities, and its queued and running Operations. Exit codes: 0 the resource has Services
or Capabilities in the graph, 1 nothing is registered for it (or the store failed), 2 usage error.

Examples:
  $ semantic-sidecar status --resource plant:door1 --store http://127.0.0.1:7878/sparql
  $ semantic-sidecar status --resource https://example.org/plant#robot1 --store /var/lib/semantic-sidecar --json
`;

/**
 * Reads and prints the status of `--resource`: a text report, or with `--json` a
 * {@link ResourceStatus}. Resolves to the status.
 * @throws CommandFailure when nothing is registered for the resource (exit 1).
 */
export async function runStatus(options: StatusOptions, io: CliIo, now: Date = new Date()): Promise<ResourceStatus> {
  const resource = expandIri(options.resource, '--resource');
  const graph = options.graph === undefined ? DEFAULT_DATA_GRAPH : expandIri(options.graph, '--graph');
  const store = await openStoreFromFlag(options.store, io.env);
  let status: ResourceStatus;
  try {
    status = await readStatus(store, graph, resource, now);
  } finally {
    await store.close();
  }
  if (status.services.length === 0 && status.capabilities.length === 0) {
    if (options.json) io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    throw new CommandFailure(
      `nothing is registered for resource ${compactIri(resource)} in graph <${graph}>: no Service (svc:isServiceOf) and no Capability (cfc:hasCapability)`,
    );
  }
  io.stdout.write(options.json ? `${JSON.stringify(status, null, 2)}\n` : statusText(status));
  return status;
}

async function readStatus(store: TripleStore, graph: string, resource: string, now: Date): Promise<ResourceStatus> {
  const ogm = new OGM({ store, graph });
  const services = (await servicesOf(store, graph, resource)).map((s) => {
    const age = ageSeconds(s.lastHeartbeat, now);
    return { ...s, reachable: s.address !== undefined, ...(age !== undefined && { heartbeatAgeSeconds: age }) };
  });
  const capabilities = await capabilitiesOf(store, graph, resource);
  const count = async (status: OperationStatus): Promise<OperationCount> => {
    const iris = (await findResourceOperations(ogm, resource, [status])).sort();
    return { count: iris.length, first: iris.slice(0, STATUS_FIRST_OPERATIONS) };
  };
  return {
    resource,
    graph,
    services,
    capabilities,
    operations: { queued: await count(OperationStatus.QUEUED), running: await count(OperationStatus.RUNNING) },
  };
}

function statusText(status: ResourceStatus): string {
  const out = [`Resource ${compactIri(status.resource)} in graph <${status.graph}>`, '', `Services (${status.services.length}):`];
  const services = status.services.map((s) => [
    compactIri(s.service),
    s.classes.map(compactIri).join(' ') || '-',
    s.reachable ? 'reachable' : 'unreachable',
    s.address ?? '-',
    `heartbeat ${formatAge(s.heartbeatAgeSeconds)}`,
  ]);
  if (services.length > 0) out.push(indent(table(services)));
  out.push('', `Capabilities (${status.capabilities.length}):`);
  const capabilities = status.capabilities.map((c) => [compactIri(c.capability), c.classes.map(compactIri).join(' ') || '-', via(c)]);
  if (capabilities.length > 0) out.push(indent(table(capabilities)));
  const { queued, running } = status.operations;
  out.push('', `Operations: ${queued.count} queued, ${running.count} running`);
  const listed = [...queued.first.map((op) => ['queued', compactIri(op)]), ...running.first.map((op) => ['running', compactIri(op)])];
  if (listed.length > 0) out.push(indent(table(listed)));
  return `${out.join('\n')}\n`;
}

function via(c: CapabilityState): string {
  const parts = [];
  if (c.workflows.length > 0) parts.push(`${c.workflows.length} workflow${c.workflows.length === 1 ? '' : 's'}`);
  if (c.stateProperties.length > 0) parts.push(`${c.stateProperties.length} state propert${c.stateProperties.length === 1 ? 'y' : 'ies'}`);
  return parts.length > 0 ? `via ${parts.join(', ')}` : 'not realized';
}

function indent(block: string): string {
  return block
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** Adds `status` to the program. */
export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .requiredOption('--resource <iri>', 'the resource: an IRI or a CURIE (cfc:, svc:, mes:, plant:)')
    .addOption(storeOption())
    .option('--graph <iri>', 'named graph of the registrations', DEFAULT_DATA_GRAPH)
    .option('--json', 'print a JSON object instead of the report')
    .addHelpText('after', HELP)
    .action(async (options: StatusOptions) => {
      await runStatus(options, io);
    });
}
