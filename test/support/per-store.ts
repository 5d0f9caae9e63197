import { afterAll, beforeAll, beforeEach, it } from '@jest/globals';
import { OGM } from '../../src/ogm/index.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { ONTOLOGY_GRAPHS } from '../../src/vocab/index.js';
import { openTestStore, remoteEndpoint, type StoreKind } from './fixtures.js';

/** Whether tests on `kind` can run here: the remote store needs SPARQL_ENDPOINT. */
export function storeConfigured(kind: StoreKind): boolean {
  return kind === 'embedded' || remoteEndpoint() !== undefined;
}

/**
 * Jest's `it` for tests on `kind`, or `it.skip` when that store is not configured, so that the
 * summary counts those tests as skipped rather than passed.
 */
export function itOnStore(kind: StoreKind): typeof it.skip {
  return storeConfigured(kind) ? it : it.skip;
}

/** The shared state of a suite run on one store kind. */
export interface StoreSuite {
  readonly kind: StoreKind;
  store: TripleStore | undefined;
  ogm: OGM;
  /** `it` for this store: `it.skip` when it is not configured (see {@link itOnStore}). */
  readonly it: typeof it.skip;
  /** Registers a test that runs only when this store is configured (a jest skip otherwise). */
  onStore: (name: string, fn: () => Promise<void> | void, timeout?: number) => void;
  /** N-Quads of the suite's data graph. */
  dump: (graph?: string) => Promise<string>;
  /** Requests the store has served so far. */
  requests: () => number;
}

/**
 * Opens the store (embedded, or the remote one when SPARQL_ENDPOINT is set), creates an OGM on
 * `graph` and empties the graphs before each test and at the end. `ontology` is a test-only
 * ontology module loaded for the suite (and removed at the end).
 */
export function storeSuite(
  kind: StoreKind,
  graph: string,
  options: { extraGraphs?: readonly string[]; ontology?: { graph: string; turtle: string } } = {},
): StoreSuite {
  const extraGraphs = options.extraGraphs ?? [];
  const test = itOnStore(kind);
  const suite: StoreSuite = {
    kind,
    store: undefined,
    ogm: undefined as unknown as OGM,
    it: test,
    onStore: (name, fn, timeout) => test(name, fn, timeout),
    dump: (g = graph) => suite.store!.dump({ graph: g }),
    requests: () => suite.store!.requestCount,
  };
  const drop = async (): Promise<void> => {
    for (const g of [graph, ...extraGraphs]) await suite.store?.update(`DROP SILENT GRAPH <${g}>`);
  };
  beforeAll(async () => {
    suite.store = await openTestStore(kind);
    if (suite.store && options.ontology)
      await suite.store.load(options.ontology.turtle, { graph: options.ontology.graph, format: 'text/turtle' });
    if (suite.store) suite.ogm = new OGM({ store: suite.store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  });
  afterAll(async () => {
    await drop();
    if (options.ontology) await suite.store?.update(`DROP SILENT GRAPH <${options.ontology.graph}>`);
    await suite.store?.close();
  });
  beforeEach(async () => {
    await drop();
    // A fresh OGM per test: the type cache must not outlive the triples it describes.
    if (suite.store) suite.ogm = new OGM({ store: suite.store, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  });
  return suite;
}

/** Resolves to the error a promise rejects with (undefined when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}
