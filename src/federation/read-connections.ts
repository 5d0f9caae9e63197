/**
 * The HTTP connections of one read across stores: a connection pool of its own, opened after
 * Comunica is loaded and destroyed when the read ends.
 *
 * Why not the process's shared pool (the global fetch, which the remote store uses too): the
 * first read loads Comunica synchronously, which stalls the event loop for a second, and for
 * several under CPU load. A keep-alive connection left idle in the shared pool before the stall
 * has by then been closed by the store (Node servers close idle connections after 5 s), but the
 * pool only learns so once the loop runs its timers and I/O again, after the read has already
 * sent its first request on it: the request fails with "other side closed" (UND_ERR_SOCKET).
 * A pool per read holds no connection from before the read, and none idles past its end.
 */
import { Agent, fetch as undiciFetch } from 'undici';

/** One read's transport: give `fetch` to Comunica, call `close` once the read is over. */
export interface ReadConnections {
  readonly fetch: typeof globalThis.fetch;
  /** Closes every connection of the read, aborting what is still in flight (nothing is needed from it). */
  close(): Promise<void>;
}

/** A fresh pool for one read. */
export function openReadConnections(): ReadConnections {
  const agent = new Agent();
  const send = (input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
    undiciFetch(input, { ...init, dispatcher: agent });
  return {
    fetch: send as unknown as typeof globalThis.fetch,
    close: () => agent.destroy(),
  };
}
