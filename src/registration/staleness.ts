import { LIMITS } from '../limits.js';

/**
 * The per-Service staleness rule, one place for the watchdog's sweep, queue reconstruction and
 * discovery. A Service is stale when its last heartbeat is older than
 * `max(threshold, LIMITS.heartbeatsBeforeStale x its own interval)`: the threshold is the floor,
 * so a watchdog configured shorter than a sidecar's heartbeat never takes it for dead between two
 * heartbeats. A Service without `sm:heartbeatInterval` (one the Python reference wrote) is judged
 * by the threshold alone, as before.
 *
 * The rule is evaluated here, on the few rows a query returns, not in SPARQL: SPARQL 1.1 has no
 * arithmetic on `xsd:dateTime`, and the extensions that do (Oxigraph's durations, Virtuoso's
 * `bif:dateadd`) differ. The queries narrow the candidates by the threshold, which the rule
 * never undercuts.
 */

/**
 * The interval honoured for a Service from the lexical values of its `sm:heartbeatInterval`:
 * the smallest that is a positive integer of milliseconds, capped at
 * `LIMITS.maxHonoredHeartbeatIntervalMs`; undefined when none is (the threshold alone applies).
 * The smallest, so that a second, larger value written by someone else never prolongs a life.
 */
export function honoredIntervalMs(values: readonly string[]): number | undefined {
  let honored: number | undefined;
  for (const value of values) {
    if (!/^\+?\d{1,16}$/u.test(value.trim())) continue;
    const ms = Number(value);
    if (ms < 1) continue;
    honored = Math.min(honored ?? Infinity, ms, LIMITS.maxHonoredHeartbeatIntervalMs);
  }
  return honored;
}

/** How old a heartbeat may be before the Service is stale: `max(thresholdMs, k x intervalMs)`. */
export function staleAfterMs(thresholdMs: number, intervalMs: number | undefined): number {
  return intervalMs === undefined ? thresholdMs : Math.max(thresholdMs, LIMITS.heartbeatsBeforeStale * intervalMs);
}

/** The instant before which the Service's heartbeat is stale at `now`. */
export function serviceCutoff(now: Date, thresholdMs: number, intervalMs: number | undefined): Date {
  return new Date(now.getTime() - staleAfterMs(thresholdMs, intervalMs));
}

/**
 * Whether a Service the store found older than the threshold is still alive by its own interval:
 * one of its heartbeats (lexical `xsd:dateTime` values, compared as instants since stores
 * normalise the form) is at or after its own cutoff.
 */
export function aliveByOwnInterval(
  heartbeats: readonly string[],
  intervalValues: readonly string[],
  now: Date,
  thresholdMs: number,
): boolean {
  const intervalMs = honoredIntervalMs(intervalValues);
  if (intervalMs === undefined) return false;
  const cutoff = serviceCutoff(now, thresholdMs, intervalMs).getTime();
  return heartbeats.some((hb) => Date.parse(hb) >= cutoff);
}

/**
 * Whether a Service is alive at `now` by the rule, from all its heartbeats and interval values:
 * one heartbeat at or after its own cutoff, or one that cannot be read as an instant (counted as
 * fresh, as the stores' comparison and the Python reference do). No heartbeat: not alive.
 */
export function aliveAt(heartbeats: readonly string[], intervalValues: readonly string[], now: Date, thresholdMs: number): boolean {
  const cutoff = serviceCutoff(now, thresholdMs, honoredIntervalMs(intervalValues)).getTime();
  return heartbeats.some((hb) => {
    const at = Date.parse(hb);
    return Number.isNaN(at) || at >= cutoff;
  });
}
