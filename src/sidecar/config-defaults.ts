/**
 * The frozen defaults, the lowest layer of the configuration (flags > environment > file >
 * these). Defaults that depend on other settings (the store's data directory, the local API
 * socket, `provisionOntology`, `address`) are derived in `config-resolve*.ts`.
 */
import { LIMITS } from '../limits.js';
import { DEFAULT_DATA_GRAPH } from '../vocab/defaults.js';
import { svc } from '../vocab/terms.js';

/** Defaults of the settings that do not depend on others; values as in the spec where it has them. */
export const CONFIG_DEFAULTS = Object.freeze({
  serviceClass: svc.Service,
  namedGraph: DEFAULT_DATA_GRAPH,
  host: '127.0.0.1',
  port: 8000,
  heartbeatInterval: 30,
  stalenessThreshold: 90,
  sweepInterval: 30,
  activityFeed: false,
  activityCapacity: 200,
  log: Object.freeze({ level: 'info' as const }),
  shutdownGraceMs: LIMITS.shutdownGraceMs,
});
