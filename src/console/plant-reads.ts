/**
 * Every store read of the web console, in one place: the plant-wide SELECTs of
 * `src/queries/plant.ts`, run against each configured store through one seam,
 * {@link selectAcrossStores}, so every row names the store it came from.
 */
import {
  openOperationsQuery,
  plantCapabilitiesQuery,
  plantServicesQuery,
  possessionQuery,
  recentOperationsQuery,
} from '../queries/plant.js';
import type { StoreEndpoint } from '../federation/select-across-stores.js';
import type { Bindings, TripleStore } from '../store/triple-store.js';
import { capabilitiesFrom, operationsFrom, servicesFrom, workpiecesFrom, type PlantView } from './plant-view.js';

/** A store the console reads: its URL (what rows name) and a client of it (cancels go through it). */
export interface PlantStore {
  readonly url: string;
  readonly client: TripleStore;
  /** Its SPARQL endpoint, when the console reads several stores: reads then go through Comunica. */
  readonly endpoint?: StoreEndpoint;
}

/** One result row and the store (its URL) it came from. */
export interface SourcedRow {
  readonly store: string;
  readonly bindings: Bindings;
}

/**
 * Runs one SELECT against every store at once and tags each row with its store's URL. The one
 * place the console's reads meet the stores: several endpoints are read together through
 * Comunica (loaded on first use), one store (the watchdog's own, perhaps embedded) by its client.
 * @throws the first store's error when a store fails (the console then shows the failure).
 */
export async function selectAcrossStores(stores: readonly PlantStore[], query: string): Promise<SourcedRow[]> {
  const endpoints = stores.flatMap((s) => (s.endpoint === undefined ? [] : [s.endpoint]));
  if (stores.length > 1 && endpoints.length === stores.length) {
    const { selectAcrossStores: federated } = await import('../federation/select-across-stores.js');
    return (await federated(endpoints, query)).map(({ store, row }) => ({ store, bindings: row }));
  }
  const answers = await Promise.all(
    stores.map(async ({ url, client }) => (await client.select(query)).map((b) => ({ store: url, bindings: b }))),
  );
  return answers.flat();
}

/** Options of {@link readPlant}. */
export interface ReadPlantOptions {
  /** Named graph of the registrations, the same in every store. */
  graph: string;
  /** The watchdog's staleness threshold, in milliseconds: the floor of the liveness rule. */
  stalenessThresholdMs: number;
  /** The instant the liveness rule judges at; default now. */
  now?: Date;
}

/** Reads the whole plant from every store: five SELECTs, each sent to every store at once. */
export async function readPlant(stores: readonly PlantStore[], options: ReadPlantOptions): Promise<PlantView> {
  const now = options.now ?? new Date();
  const { graph } = options;
  const [services, capabilities, open, recent, possession] = await Promise.all(
    [plantServicesQuery, plantCapabilitiesQuery, openOperationsQuery, recentOperationsQuery, possessionQuery].map((query) =>
      selectAcrossStores(stores, query(graph)),
    ),
  );
  return {
    at: now.toISOString(),
    stores: stores.map((s) => s.url),
    services: servicesFrom(services!, now, options.stalenessThresholdMs),
    capabilities: capabilitiesFrom(capabilities!),
    openOperations: operationsFrom(open!),
    recentOperations: operationsFrom(recent!),
    workpieces: workpiecesFrom(possession!),
  };
}
