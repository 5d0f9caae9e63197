/**
 * The middleware's modes of the spec's constructor table: plain string constants, so a bare
 * string (`'resource'`) is accepted wherever a constant is, as the spec's `Mode` (a `str`
 * subclass) allows. The connector sync directions are in `connectors/wiring.ts`.
 */

/**
 * What an instance does.
 * - `RESOURCE`: wraps one resource IRI; registers a Service, serves its workflows and state
 *   properties, holds a heartbeat. The only mode with runtime consequence.
 * - `SERVER`: reserved by the spec and not implemented; constructing one throws.
 * - `WATCHDOG`: sweeps stale Services every `sweepInterval`; registers nothing of its own.
 */
export const Mode = Object.freeze({
  RESOURCE: 'resource',
  SERVER: 'server',
  WATCHDOG: 'watchdog',
} as const);

export type Mode = (typeof Mode)[keyof typeof Mode];

/** Every mode value, in the order error messages list them. */
export const MODES: readonly Mode[] = Object.freeze(Object.values(Mode));
