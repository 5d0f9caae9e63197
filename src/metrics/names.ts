/**
 * Every metric the product exposes on `/metrics`: name, help text and label names, in one place.
 * Labels only ever take values from a closed set or from configuration (workflow and state names),
 * never from a request (no Operation or Service IRIs), so no series count grows with traffic.
 */

/** Where every surface of the product serves its metrics. */
export const METRICS_PATH = '/metrics';

/** Prefix of every metric of this product (process metrics keep prom-client's standard names). */
export const METRIC_PREFIX = 'semantic_middleware_';

/** A metric's definition: its full name, its HELP line and its label names. */
export interface MetricDefinition {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

function metric(name: string, help: string, labelNames: readonly string[] = []): MetricDefinition {
  return Object.freeze({ name: `${METRIC_PREFIX}${name}`, help, labelNames: Object.freeze([...labelNames]) });
}

/** The product's metrics. */
export const METRICS = Object.freeze({
  storeRequests: metric(
    'store_requests_total',
    'Requests to the triple store, by kind (select, ask, update, conditional_update, load, dump) and outcome (ok, error).',
    ['kind', 'outcome'],
  ),
  storeRequestDuration: metric('store_request_duration_seconds', 'Time to the triple store answer, by request kind.', ['kind']),
  heartbeats: metric('heartbeats_total', 'Heartbeats of the Service, by outcome (written, failed).', ['outcome']),
  queueDepth: metric('work_queue_depth', 'Operations queued in this instance and not yet taken.'),
  inFlight: metric('operations_in_flight', 'Operations taken from the queue and not finished yet.'),
  operations: metric(
    'operations_total',
    'Operations this instance finished, by outcome (done, failed) and failure kind (sm:failureKind; none when done, unknown when not recorded).',
    ['outcome', 'failure_kind'],
  ),
  operationDuration: metric(
    'operation_claim_to_terminal_seconds',
    'Time from claiming an Operation to writing its terminal status (receiver side), by outcome.',
    ['outcome'],
  ),
  calls: metric(
    'calls_total',
    'Direct workflow and state calls on the HTTP surface, by call (workflow, state), name and outcome (ok, error).',
    ['call', 'name', 'outcome'],
  ),
  callDuration: metric('call_duration_seconds', 'Time to answer a direct workflow or state call, by call and name.', ['call', 'name']),
  deviceUp: metric('device_up', '1 while the device answers its health probe (or nothing is probed), 0 while it does not.'),
  connectorsUp: metric('connectors_up', '1 while every semantic connector is connected (or there are none), 0 otherwise.'),
  sweeps: metric('sweeps_total', 'Watchdog sweeps, by outcome (done, failed).', ['outcome']),
  sweepDuration: metric('sweep_duration_seconds', 'Time a watchdog sweep took, by outcome.', ['outcome']),
  sweptServices: metric('swept_services_total', 'Services the watchdog deregistered as stale.'),
});

/** Histogram buckets in seconds: from a fast local store request to a slow device call. */
export const LATENCY_BUCKETS: readonly number[] = Object.freeze([
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
]);
