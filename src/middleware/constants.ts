/**
 * Fixed texts of the middleware: the application's title and welcome message (as the Python
 * reference serves them, so both answer `GET /` alike) and the reasons written into
 * `svc:executionResult` when the middleware itself fails an Operation.
 */

/** Title of the web application. */
export const APP_TITLE = 'semantic-middleware';

/** Body of `GET /`, served as a JSON string. */
export const APP_WELCOME = 'Welcome to semantic middleware!';

/**
 * Request header of a twin's start-up probe (`GET /healthz`): the Service IRI it expects at that
 * address. The answer carries {@link TWIN_MATCH_HEADER}: `true` when this instance is that
 * Service, `false` when another one (or a watchdog) answers there.
 */
export const TWIN_PROBE_HEADER = 'sm-expect-service';

/** Answer header to {@link TWIN_PROBE_HEADER}. */
export const TWIN_MATCH_HEADER = 'sm-service-match';

/** Reason written for a `running` Operation of this Service found at start-up (the reference's text). */
export const RECLAIM_REASON = 'orphaned running operation reclaimed at startup, not auto-rerun';

/** Reason written for in-flight work that did not finish within the shutdown grace period. */
export const SHUTDOWN_REASON = 'in-flight operation failed at shutdown: it did not finish within the grace period';
