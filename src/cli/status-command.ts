import type { Command } from 'commander';
import { OGM } from '../ogm/ogm.js';
import { findResourceOperations } from '../registration/operations.js';
import type { StoreEndpoint } from '../federation/select-across-stores.js';
import type { TripleStore } from '../store/triple-store.js';
import { DEFAULT_DATA_GRAPH } from '../vocab/defaults.js';
import { OperationStatus } from '../vocab/status.js';
import { compactIri, expandIri } from './curie.js';
import { CommandFailure } from './exit-codes.js';
import { openStoreFromFlag } from './flags.js';
import { storeEndpoints, storeLocations, storesOption } from './store-list.js';
import { ageSeconds, formatAge, table } from './format.js';
import type { CliIo } from './io.js';
import { capabilitiesOf, servicesOf, type CapabilityState, type ServiceState } from '../queries/discovery.js';

/** Parsed options of `status`. */
export interface StatusOptions {
  resource: string;
  /** One store, or several to read across (SPARQL endpoints only). */
  store?: string | string[];
  graph?: string;
  json?: boolean;
}

/** Operations of one status: how many, and the first few IRIs (sorted). */
export interface OperationCount {
  count: number;
  first: string[];
  /** Per store, in the order given; only when reading across several stores. */
  stores?: { store: string; count: number; first: string[] }[];
}

/** A row of the status, with the store it came from when reading across several stores. */
type FromStore<T> = T & { store?: string };

/** What `status` reports about a resource (`--json` prints exactly this). */
export interface ResourceStatus {
  resource: string;
  graph: string;
  /** The stores read, in the order given; only when reading across several stores. */
  stores?: string[];
  services: FromStore<ServiceState & { reachable: boolean; heartbeatAgeSeconds?: number }>[];
  capabilities: FromStore<CapabilityState>[];
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
  $ semantic-sidecar status --resource plant:door1 --store http://hall1:7878/sparql --store http://hall2:8890/sparql

With several --store endpoints every store is read at once (through Comunica) and each Service,
Capability and Operation names the store it came from ("store" in JSON).
`;

/**
 * Reads and prints the status of `--resource`: a text report, or with `--json` a
 * {@link ResourceStatus}. Resolves to the status.
 * @throws CommandFailure when nothing is registered for the resource (exit 1).
 */
export async function runStatus(options: StatusOptions, io: CliIo, now: Date = new Date()): Promise<ResourceStatus> {
  const resource = expandIri(options.resource, '--resource');
  const graph = options.graph === undefined ? DEFAULT_DATA_GRAPH : expandIri(options.graph, '--graph');
  const locations = storeLocations(options.store, io.env);
  const status =
    locations.length === 1
      ? await readStatusOf(await openStoreFromFlag(locations[0], io.env), graph, resource, now)
      : await readStatusAcross(storeEndpoints(locations, io.env), graph, resource, now);
  if (status.services.length === 0 && status.capabilities.length === 0) {
    if (options.json) io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    throw new CommandFailure(
      `nothing is registered for resource ${compactIri(resource)} in graph <${graph}>: no Service (svc:isServiceOf) and no Capability (cfc:hasCapability)`,
    );
  }
  io.stdout.write(options.json ? `${JSON.stringify(status, null, 2)}\n` : statusText(status));
  return status;
}

/** The status in one store, which is closed afterwards. */
async function readStatusOf(store: TripleStore, graph: string, resource: string, now: Date): Promise<ResourceStatus> {
  try {
    return await readStatus(store, graph, resource, now);
  } finally {
    await store.close();
  }
}

/** The status in every store, read at once: every row names its store, the counts add up. */
async function readStatusAcross(endpoints: readonly StoreEndpoint[], graph: string, resource: string, now: Date): Promise<ResourceStatus> {
  const { endpointReader } = await import('../federation/endpoint-reader.js');
  const each = await Promise.all(endpoints.map((e) => readStatusOf(endpointReader(e), graph, resource, now)));
  const tagged = each.map((status, i) => ({ store: endpoints[i]!.url, status }));
  const merged = (status: OperationStatusKey): OperationCount => {
    const stores = tagged.map(({ store, status: s }) => ({ store, ...s.operations[status] }));
    const first = stores.flatMap((s) => s.first).sort();
    return { count: stores.reduce((n, s) => n + s.count, 0), first: first.slice(0, STATUS_FIRST_OPERATIONS), stores };
  };
  const byIriThenStore =
    <T extends { store: string }>(key: (row: T) => string) =>
    (a: T, b: T) =>
      key(a).localeCompare(key(b)) || a.store.localeCompare(b.store);
  return {
    resource,
    graph,
    stores: endpoints.map((e) => e.url),
    services: tagged.flatMap(({ store, status }) => status.services.map((s) => ({ ...s, store }))).sort(byIriThenStore((s) => s.service)),
    capabilities: tagged
      .flatMap(({ store, status }) => status.capabilities.map((c) => ({ ...c, store })))
      .sort(byIriThenStore((c) => c.capability)),
    operations: { queued: merged('queued'), running: merged('running') },
  };
}

type OperationStatusKey = keyof ResourceStatus['operations'];

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
  const across = status.stores === undefined ? '' : ` across ${status.stores.length} stores (${status.stores.join(', ')})`;
  const out = [`Resource ${compactIri(status.resource)} in graph <${status.graph}>${across}`, '', `Services (${status.services.length}):`];
  const services = status.services.map((s) => [
    compactIri(s.service),
    s.classes.map(compactIri).join(' ') || '-',
    s.reachable ? 'reachable' : 'unreachable',
    s.address ?? '-',
    `heartbeat ${formatAge(s.heartbeatAgeSeconds)}`,
    ...storeColumn(s.store),
  ]);
  if (services.length > 0) out.push(indent(table(services)));
  out.push('', `Capabilities (${status.capabilities.length}):`);
  const capabilities = status.capabilities.map((c) => [
    compactIri(c.capability),
    c.classes.map(compactIri).join(' ') || '-',
    via(c),
    ...storeColumn(c.store),
  ]);
  if (capabilities.length > 0) out.push(indent(table(capabilities)));
  const { queued, running } = status.operations;
  out.push('', `Operations: ${queued.count} queued, ${running.count} running`);
  const listed = [...operationRows('queued', queued), ...operationRows('running', running)];
  if (listed.length > 0) out.push(indent(table(listed)));
  return `${out.join('\n')}\n`;
}

const storeColumn = (store: string | undefined): string[] => (store === undefined ? [] : [store]);

// One row per listed Operation: its status, IRI and, across stores, the store that holds it.
function operationRows(status: string, count: OperationCount): string[][] {
  const storeOf = (op: string) => count.stores?.find((s) => s.first.includes(op))?.store;
  return count.first.map((op) => [status, compactIri(op), ...storeColumn(storeOf(op))]);
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
    .addOption(storesOption())
    .option('--graph <iri>', 'named graph of the registrations', DEFAULT_DATA_GRAPH)
    .option('--json', 'print a JSON object instead of the report')
    .addHelpText('after', HELP)
    .action(async (options: StatusOptions) => {
      await runStatus(options, io);
    });
}
