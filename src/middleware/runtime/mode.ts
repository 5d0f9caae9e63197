/**
 * The middleware's modes and the connector sync directions of the spec's constructor table.
 * Both are plain string constants, so a bare string (`'resource'`) is accepted wherever a
 * constant is, as the spec's `Mode` (a `str` subclass) allows.
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

/**
 * Direction in which semantic connectors would sync. Accepted and validated for parity with
 * the spec's `connector_sync_direction`; this package ships no connectors, so it has no effect.
 */
export const SyncDirection = Object.freeze({
  PULL: 'pull',
  PUSH: 'push',
  BIDIRECTIONAL: 'bidirectional',
} as const);

export type SyncDirection = (typeof SyncDirection)[keyof typeof SyncDirection];

/** Every sync direction value. */
export const SYNC_DIRECTIONS: readonly SyncDirection[] = Object.freeze(Object.values(SyncDirection));
