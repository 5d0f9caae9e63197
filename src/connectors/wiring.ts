/**
 * The wiring of the semantic connectors: the spec's `connector_sync_direction`, bounded by
 * `autoregister_connectors`, decides which connectors may exist at all. The parameter's own
 * `inf:accessMode` bounds it further (a write connector needs `readwrite`).
 */

/**
 * Direction in which the semantic connectors sync, with the Python reference's three names.
 * - `BIDIRECTIONAL` (driving, the default): reads live values and may write setpoints.
 * - `TO_PERSISTENCE` (observing): reads live values only; no write connector is ever built.
 * - `FROM_PERSISTENCE`: writes setpoints only; no read subscription is made.
 *
 * Plain string constants, so a bare string (`'to_persistence'`) is accepted wherever a constant is.
 */
export const SyncDirection = Object.freeze({
  BIDIRECTIONAL: 'bidirectional',
  TO_PERSISTENCE: 'to_persistence',
  FROM_PERSISTENCE: 'from_persistence',
} as const);

export type SyncDirection = (typeof SyncDirection)[keyof typeof SyncDirection];

/** Every sync direction value, in the order error messages list them. */
export const SYNC_DIRECTIONS: readonly SyncDirection[] = Object.freeze(Object.values(SyncDirection));

/** What the wiring lets connectors do. */
export interface Wiring {
  /** Whether read connectors (subscriptions) are built. */
  readonly reads: boolean;
  /** Whether write connectors are built (for `readwrite` parameters only). */
  readonly writes: boolean;
}

/**
 * The wiring of `autoregister` and `direction`: inspecting (autoregister off) connects nothing;
 * otherwise the direction says which way values may flow.
 * @example wiringOf(true, SyncDirection.TO_PERSISTENCE) // { reads: true, writes: false }
 */
export function wiringOf(autoregister: boolean, direction: SyncDirection): Wiring {
  if (!autoregister) return { reads: false, writes: false };
  return {
    reads: direction !== SyncDirection.FROM_PERSISTENCE,
    writes: direction !== SyncDirection.TO_PERSISTENCE,
  };
}
