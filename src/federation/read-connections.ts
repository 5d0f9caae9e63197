/**
 * The HTTP connections of the reads across stores: a connection pool of their own, opened the
 * first time a read asks for it, which is after Comunica is loaded.
 *
 * Why not the process's shared pool (the global fetch's): the first read loads Comunica
 * synchronously, which stalls the event loop for a second, and for several under CPU load. A
 * keep-alive connection left idle in a pool before the stall has by then been closed by the
 * store (Node servers close idle connections after 5 s), but the pool only learns so once the
 * loop runs its timers and I/O again, after the read has already sent its first request on it:
 * the request fails with "other side closed" (UND_ERR_SOCKET). This pool holds no connection
 * from before the load. (The remote store has connections of its own, and sends a read again
 * when that happens to one of them.)
 *
 * One pool for the process, not one per read: Comunica keeps each endpoint's source across
 * queries and sends a query's requests with the context of the latest query on it, so a read
 * may send on another read's fetch; a pool closed at the end of one read would fail the other.
 */
import { Agent, fetch as undiciFetch } from 'undici';

let readFetch: typeof globalThis.fetch | undefined;

/** The fetch every read across stores gives Comunica; its pool is created on the first call. */
export function readConnections(): typeof globalThis.fetch {
  if (readFetch === undefined) {
    const agent = new Agent();
    const send = (input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher: agent });
    readFetch = send as unknown as typeof globalThis.fetch;
  }
  return readFetch;
}
