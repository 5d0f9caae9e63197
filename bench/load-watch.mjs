// Follows the activity streams of the load test's receivers: resolves a caller's wait when its
// Operation's `done` or `failed` entry arrives (pushed, so no status polling loads the store),
// and counts every `claim` entry per Operation, the receivers' own record of how often each
// Operation was started. A stream that ends is resumed after its last entry; entries the
// receiver no longer holds (a gap in the sequence numbers) are counted as missed.
import { createInterface } from 'node:readline';
import { Client } from 'undici';

/** Follows one receiver's `GET /activity/stream`, resuming after its last seq until `signal` aborts. */
async function follow(address, onEntry, counters, signal) {
  const client = new Client(address);
  let last;
  try {
    while (!signal.aborted) {
      const path = last === undefined ? '/activity/stream' : `/activity/stream?after=${last}`;
      try {
        const res = await client.request({ method: 'GET', path, signal });
        if (res.statusCode !== 200) throw new Error(`GET ${address}${path} -> ${res.statusCode}; start the sidecar with --activity-feed`);
        let event;
        for await (const line of createInterface({ input: res.body })) {
          if (line.startsWith('event: ')) event = line.slice(7);
          if (!line.startsWith('data: ')) continue;
          const data = JSON.parse(line.slice(6));
          if (event === 'dropped') counters.missed += data.dropped;
          else if (typeof data.seq === 'number') {
            if (last !== undefined && data.seq > last + 1) counters.missed += data.seq - last - 1;
            last = data.seq;
            onEntry(data);
          }
        }
      } catch (error) {
        if (signal.aborted) return;
        counters.streamErrors += 1;
        counters.lastStreamError = error.message;
      }
      if (!signal.aborted) {
        counters.resumed += 1;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await client.destroy().catch(() => undefined);
  }
}

/**
 * Follows every receiver's stream. `terminal(iri, timeoutMs)` resolves with `{ kind, error,
 * receiver }` for the Operation's first `done`/`failed` entry (kept if it came before the wait);
 * `claims` maps each Operation to the number of `claim` entries seen, `terminals` to the number
 * of `done`/`failed` entries; `counters` holds missed entries and stream errors.
 */
export async function watchReceivers(receivers) {
  const abort = new AbortController();
  const waiting = new Map();
  const early = new Map();
  const claims = new Map();
  const terminals = new Map();
  const counters = { missed: 0, resumed: 0, streamErrors: 0 };
  const onEntry = (receiver) => (entry) => {
    if (entry.kind === 'claim') claims.set(entry.operation, (claims.get(entry.operation) ?? 0) + 1);
    if (entry.kind !== 'done' && entry.kind !== 'failed') return;
    terminals.set(entry.operation, (terminals.get(entry.operation) ?? 0) + 1);
    const outcome = { kind: entry.kind, error: entry.error, receiver: receiver.name };
    const settle = waiting.get(entry.operation);
    if (settle) {
      waiting.delete(entry.operation);
      settle(outcome);
    } else if (!early.has(entry.operation)) early.set(entry.operation, outcome);
  };
  const running = receivers.map((r) => follow(r.address, onEntry(r), counters, abort.signal));
  return {
    claims,
    terminals,
    counters,
    terminal(iri, timeoutMs) {
      const seen = early.get(iri);
      if (seen) return (early.delete(iri), Promise.resolve(seen));
      return new Promise((ok, fail) => {
        const timer = setTimeout(
          () => (
            waiting.delete(iri),
            fail(Object.assign(new Error(`no done/failed entry for ${iri} within ${timeoutMs} ms`), { code: 'NO_TERMINAL_ENTRY' }))
          ),
          timeoutMs,
        );
        waiting.set(iri, (outcome) => (clearTimeout(timer), ok(outcome)));
      });
    },
    async close() {
      abort.abort();
      await Promise.allSettled(running);
    },
  };
}
