import type { Command } from 'commander';
import { OGM } from '../ogm/ogm.js';
import { DEFAULT_FRESH_WITHIN_SECONDS } from '../registration/dispatch.js';
import { DEFAULT_DATA_GRAPH } from '../vocab/defaults.js';
import { compactIri, expandIri } from './curie.js';
import { CommandFailure } from './exit-codes.js';
import { integerFlag, openStoreFromFlag } from './flags.js';
import { ageSeconds, formatAge, table } from './format.js';
import type { CliIo } from './io.js';
import { findReceivers, type Receiver } from '../queries/discovery.js';
import { aliveAt } from '../registration/staleness.js';
import type { StoreEndpoint } from '../federation/select-across-stores.js';
import type { TripleStore } from '../store/triple-store.js';
import { storeEndpoints, storeLocations, storesOption } from './store-list.js';

/** Parsed options of `discover`. */
export interface DiscoverOptions {
  capability: string;
  /** One store, or several to read across (SPARQL endpoints only). */
  store?: string | string[];
  graph?: string;
  json?: boolean;
  freshWithin: string;
  limit: string;
}

/** A receiver as `discover` reports it: the graph's facts plus the heartbeat's age. */
export interface DiscoveredReceiver extends Receiver {
  /** Seconds since `lastHeartbeat`; absent without a heartbeat. */
  heartbeatAgeSeconds?: number;
  /**
   * Whether the Service is alive by the liveness rule: its heartbeat at most
   * `max(--fresh-within, 3 x its sm:heartbeatInterval)` old. Discovery offers only fresh ones.
   */
  fresh: boolean;
  /** The store the receiver was found in; only when reading across several stores. */
  store?: string;
}

const HELP = `
Lists every reachable receiver of a Capability class (or of a subclass of it): the Capability
instance, the Service realizing it, its resource, its address and how old its heartbeat is,
freshest first. Exit codes: 0 receivers found, 1 none (or the store failed), 2 usage error.

Examples:
  $ semantic-sidecar discover --capability plant:DoorOpeningCapability --store http://127.0.0.1:7878/sparql
  $ semantic-sidecar discover --capability https://example.org/plant#TransportCapability --store /var/lib/semantic-sidecar --json
  $ semantic-sidecar discover --capability plant:DoorOpeningCapability --store http://hall1:7878/sparql --store http://hall2:8890/sparql

With several --store endpoints every store is read at once (through Comunica) and each receiver
names the store it was found in (a STORE column; "store" in JSON); --limit counts them all.
`;

/**
 * Finds the reachable receivers of `--capability` (the class and its subclasses, from the
 * ontology in the store) and prints them: a table, or with `--json` an array of
 * {@link DiscoveredReceiver}. Resolves to the receivers.
 * @throws CommandFailure when there is none (exit 1; with `--json`, `[]` is printed first).
 */
export async function runDiscover(options: DiscoverOptions, io: CliIo, now: Date = new Date()): Promise<DiscoveredReceiver[]> {
  const capabilityClass = expandIri(options.capability, '--capability');
  const graph = options.graph === undefined ? DEFAULT_DATA_GRAPH : expandIri(options.graph, '--graph');
  const freshWithin = integerFlag(options.freshWithin, '--fresh-within', 0, 31_536_000);
  const limit = integerFlag(options.limit, '--limit', 1, 10_000);
  const locations = storeLocations(options.store, io.env);
  const { receivers, declared } =
    locations.length === 1
      ? await discoverInStore(await openStoreFromFlag(locations[0], io.env), graph, capabilityClass, limit)
      : await discoverAcrossStores(storeEndpoints(locations, io.env), graph, capabilityClass, limit);
  const found = receivers
    .map((r) => withAge(r, now, freshWithin))
    .sort(freshestFirst)
    .slice(0, limit);
  if (options.json) io.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
  else if (found.length > 0) io.stdout.write(receiverTable(found));
  if (found.length === 0) {
    const hint = declared
      ? ''
      : ' (the class is not declared in the ontology of this store: check the IRI, or run `semantic-sidecar ontology load`)';
    throw new CommandFailure(
      `no reachable Service realizes a Capability of class ${compactIri(capabilityClass)}${hint} in graph <${graph}>`,
    );
  }
  return found;
}

interface Found {
  receivers: (Receiver & { store?: string })[];
  /** Whether the class is declared in the ontology of the store (of any store). */
  declared: boolean;
}

/** The receivers in one store, which is closed afterwards. */
async function discoverInStore(store: TripleStore, graph: string, capabilityClass: string, limit: number): Promise<Found> {
  try {
    const closure = await classClosure(new OGM({ store, graph }), capabilityClass);
    return { receivers: await findReceivers(store, { graph, classes: closure.classes, limit }), declared: closure.declared };
  } finally {
    await store.close();
  }
}

/**
 * The receivers in every store, read at once, each with its store: each store's own ontology
 * gives the subclasses looked for in it, as on the one-store path.
 */
async function discoverAcrossStores(
  endpoints: readonly StoreEndpoint[],
  graph: string,
  capabilityClass: string,
  limit: number,
): Promise<Found> {
  const { endpointReader } = await import('../federation/endpoint-reader.js');
  const perStore = await Promise.all(
    endpoints.map(async (endpoint) => {
      const found = await discoverInStore(endpointReader(endpoint), graph, capabilityClass, limit);
      return { ...found, receivers: found.receivers.map((r) => ({ ...r, store: endpoint.url })) };
    }),
  );
  return { receivers: perStore.flatMap((f) => f.receivers), declared: perStore.some((f) => f.declared) };
}

/** The class and its declared subclasses, from the store's ontology. */
async function classClosure(ogm: OGM, cls: string): Promise<{ classes: string[]; declared: boolean }> {
  const tbox = await ogm.tbox();
  if (!tbox.hasClass(cls)) return { classes: [cls], declared: false };
  const subclasses = [...tbox.classes].filter((c) => c !== cls && tbox.isSubClassOf(c, cls)).sort();
  return { classes: [cls, ...subclasses], declared: true };
}

function withAge(receiver: Receiver & { store?: string }, now: Date, freshWithin: number): DiscoveredReceiver {
  const age = ageSeconds(receiver.lastHeartbeat, now);
  const intervals = receiver.heartbeatInterval === undefined ? [] : [receiver.heartbeatInterval];
  const fresh = age !== undefined && aliveAt([receiver.lastHeartbeat!], intervals, now, freshWithin * 1000);
  return { ...receiver, ...(age !== undefined && { heartbeatAgeSeconds: age }), fresh };
}

// Freshest heartbeat first, compared as instants (stores may rewrite the lexical form); no
// heartbeat last; then by Service and Capability IRI, so the order is stable.
function freshestFirst(a: DiscoveredReceiver, b: DiscoveredReceiver): number {
  const ageA = a.heartbeatAgeSeconds ?? Number.POSITIVE_INFINITY;
  const ageB = b.heartbeatAgeSeconds ?? Number.POSITIVE_INFINITY;
  if (ageA !== ageB) return ageA < ageB ? -1 : 1;
  return a.service.localeCompare(b.service) || a.capability.localeCompare(b.capability) || (a.store ?? '').localeCompare(b.store ?? '');
}

function receiverTable(receivers: readonly DiscoveredReceiver[]): string {
  const rows = receivers.map((r) => [
    `${formatAge(r.heartbeatAgeSeconds)}${r.fresh ? '' : ' (stale)'}${r.deviceUnavailableSince === undefined ? '' : ' (device unavailable)'}`,
    r.resource === undefined ? '-' : compactIri(r.resource),
    r.address,
    compactIri(r.service),
    compactIri(r.capability),
    ...(r.store === undefined ? [] : [r.store]),
  ]);
  const across = receivers.some((r) => r.store !== undefined);
  return table([['HEARTBEAT', 'RESOURCE', 'ADDRESS', 'SERVICE', 'CAPABILITY', ...(across ? ['STORE'] : [])], ...rows]);
}

/** Adds `discover` to the program. */
export function registerDiscoverCommand(program: Command, io: CliIo): void {
  program
    .command('discover')
    .requiredOption('--capability <class>', 'Capability class: an IRI or a CURIE (cfc:, svc:, mes:, plant:)')
    .addOption(storesOption())
    .option('--graph <iri>', 'named graph of the registrations', DEFAULT_DATA_GRAPH)
    .option(
      '--fresh-within <seconds>',
      "the staleness threshold: a heartbeat older than max(this, 3 x the Service's own interval) is marked stale",
      String(DEFAULT_FRESH_WITHIN_SECONDS),
    )
    .option('--limit <n>', 'list at most this many receivers', '100')
    .option('--json', 'print a JSON array instead of a table')
    .addHelpText('after', HELP)
    .action(async (options: DiscoverOptions) => {
      await runDiscover(options, io);
    });
}
