/**
 * One store of a read across stores, seen as a read-only {@link TripleStore}, so that the
 * one-store readers (discovery, status, the OGM's TBox) run unchanged on it and send it exactly
 * the queries they send on the one-store path.
 */
import { ValueError } from '../errors.js';
import type { Bindings, TripleStore } from '../store/triple-store.js';
import { selectAcrossStores, type StoreEndpoint } from './select-across-stores.js';

/** A store that answers SELECTs through Comunica and refuses every write. */
export function endpointReader(endpoint: StoreEndpoint): TripleStore {
  let requests = 0;
  const refuse = (what: string) => (): Promise<never> =>
    Promise.reject(new ValueError(`${what} is not done across stores: dispatch and every write stay within one store`));
  return {
    description: `${endpoint.url} (read across stores)`,
    get requestCount() {
      return requests;
    },
    async select(query: string): Promise<Bindings[]> {
      requests += 1;
      return (await selectAcrossStores([endpoint], query)).map(({ row }) => row);
    },
    ask: refuse('an ASK'),
    update: refuse('an update'),
    conditionalUpdate: refuse('an update'),
    load: refuse('a load'),
    dump: refuse('a dump'),
    close: () => Promise.resolve(),
  };
}
