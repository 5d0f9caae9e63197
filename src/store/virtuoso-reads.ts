/**
 * Queries to Virtuoso that take no read locks.
 *
 * The product needs serializable updates (DESIGN decision 2: a compare-and-set runs in one
 * update whose WHERE carries the expected state), so Virtuoso runs with `DefaultIsolation = 8`.
 * SPARQL over HTTP cannot choose an isolation per request, so every query then runs
 * serializably too, and a serializable read share-locks every row it reads until it ends. A
 * scan over every Service's heartbeat (the watchdog's sweep each second, unpinned discovery)
 * then collides with the heartbeat updates: an update holding its heartbeat row needs the lock
 * the scan holds, the scan needs the row the update just wrote, and Virtuoso rolls one back as
 * a deadlock victim (`status()` counts them as "2r1w"). Its SPARQL endpoint retries a victim
 * itself after sleeping 0.2-1.0 s, then 0.4-2.0 s (`delay` in its `/sparql` handler), so the
 * client sees no error, only a heartbeat that took a second or more while holding one of its
 * connections.
 *
 * The query language has one way out: `define sql:table-option "isolation read committed"`
 * makes each quad access of that query read the last committed version of a row without
 * locking it (Virtuoso's "historical read committed": a row an open transaction changed is read
 * as it was before). Updates keep the server's serializable default. Reads need no more: the
 * product already runs on stores whose reads never block writers (Oxigraph's snapshot reads),
 * and every decision taken on a read is re-checked by the update that acts on it (the sweep's
 * deregistration re-checks staleness; a transition guards the state it expects).
 *
 * Measured on Virtuoso 7.2.5 with 5,000 Services heartbeating at 4 s windows (load average 6):
 * the sweep alone 69 -> 17 ms, unpinned discovery alone 87 -> 18 ms (p50), and with heartbeats
 * running the deadlocks fell from 27-30 to 8-13 per window; with an uncommitted delete holding
 * a heartbeat row, a plain read of it waited 3.0 s, this one answered in 10 ms.
 */

/** `Server: Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu`, as Virtuoso's HTTP server answers. */
const VIRTUOSO_SERVER = /^\s*Virtuoso\//iu;

/** The pragma that turns off read locks for the quad accesses of one query. */
const READ_COMMITTED = 'define sql:table-option "isolation read committed" ';

/** True when an HTTP `Server` header names Virtuoso. */
export function isVirtuosoServer(server: string | null | undefined): boolean {
  return typeof server === 'string' && VIRTUOSO_SERVER.test(server);
}

/**
 * `query` (a SELECT or ASK, whose prologue may start with PREFIX or BASE) made to read without
 * locks on Virtuoso: the `define` goes first, before any other declaration, as Virtuoso requires.
 * @example readCommitted('ASK { ?s ?p ?o }') // 'define sql:table-option "isolation read committed" ASK { ?s ?p ?o }'
 */
export function readCommitted(query: string): string {
  return READ_COMMITTED + query;
}
