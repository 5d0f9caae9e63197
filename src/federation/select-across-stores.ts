/**
 * One SELECT read from several SPARQL endpoints at once (one store per hall, say) through
 * Comunica, each row naming the store it came from. Reads only: dispatch and every write stay
 * within one store.
 */
import type * as RDF from '@rdfjs/types';
import { StoreError } from '../errors.js';
import type { Term } from '../store/terms.js';
import type { Bindings } from '../store/triple-store.js';
import { w3 } from '../vocab/terms.js';
import { comunicaEngine } from './comunica-engine.js';
import { fetchFailureText } from './fetch-failure.js';
import { readConnections } from './read-connections.js';

/** A SPARQL 1.1 query endpoint to read from. */
export interface StoreEndpoint {
  /** The query URL, without credentials: rows name their store by it. */
  readonly url: string;
  /** Basic-auth credentials, when the endpoint needs them. */
  readonly user?: string;
  readonly password?: string;
  /** Per-request timeout in milliseconds; none by default. */
  readonly timeoutMs?: number;
}

/** One solution of the query and the store that gave it. */
export interface StoreRow {
  /** The {@link StoreEndpoint.url} of the store that answered this row. */
  readonly store: string;
  readonly row: Bindings;
}

/**
 * Runs `query` (a SELECT built with the `sparql` template) against every store at once and
 * resolves to all rows, each with its store, in the order of `stores` (each store's rows in its
 * own order). The query is evaluated by each store on its own, exactly as the one-store read
 * path sends it (its `GRAPH` clauses, its union default graph or not): a row is never a join of
 * one store's triples with another's, so a Capability of one hall is never offered by a Service
 * of another. Comunica is loaded on the first call (about a second; see
 * {@link comunicaEngine}); a store that fails fails the whole read with a `StoreError` naming it.
 * @example
 * const rows = await selectAcrossStores([{ url: 'http://hall1:7878/sparql' }, { url: 'http://hall2:7878/sparql' }], query);
 * rows.map(({ store, row }) => [store, row.svc?.value]);
 */
export async function selectAcrossStores(stores: readonly StoreEndpoint[], query: string): Promise<StoreRow[]> {
  const engine = await comunicaEngine();
  // Asked for only now, after the (blocking) engine load: see read-connections.ts.
  const fetch = readConnections();
  const perStore = await Promise.all(
    stores.map(async (store) => {
      const rows = await selectFrom(engine, store, query, fetch);
      return rows.map((row): StoreRow => ({ store: store.url, row }));
    }),
  );
  return perStore.flat();
}

type Engine = Awaited<ReturnType<typeof comunicaEngine>>;

async function selectFrom(engine: Engine, store: StoreEndpoint, query: string, fetch: typeof globalThis.fetch): Promise<Bindings[]> {
  const context = {
    sources: [{ type: 'sparql' as const, value: store.url }],
    fetch,
    ...(store.user !== undefined && { httpAuth: `${store.user}:${store.password ?? ''}` }),
    ...(store.timeoutMs !== undefined && { httpTimeout: store.timeoutMs }),
  };
  try {
    const stream = await engine.queryBindings(query, context);
    return (await stream.toArray()).map(toBindings);
  } catch (error) {
    throw new StoreError(`store ${store.url} failed a read across stores: ${fetchFailureText(error)}`, store.url, undefined, {
      cause: error,
    });
  }
}

function toBindings(solution: RDF.Bindings): Bindings {
  const row: Bindings = {};
  for (const [variable, term] of solution) {
    const converted = toTerm(term);
    if (converted) row[variable.value] = converted;
  }
  return row;
}

// The product's plain term objects, as the one-store path returns them (no RDF-star terms).
function toTerm(term: RDF.Term): Term | undefined {
  switch (term.termType) {
    case 'NamedNode':
    case 'BlankNode':
      return { termType: term.termType, value: term.value };
    case 'Literal':
      return term.language
        ? { termType: 'Literal', value: term.value, datatype: w3.langString, language: term.language }
        : { termType: 'Literal', value: term.value, datatype: term.datatype.value };
    default:
      return undefined;
  }
}
