/**
 * Defaults of the web console, apart from its code so that the watchdog names them without
 * loading the console (it imports the console only when `consolePort` is set).
 */

/** Port of `semantic-sidecar console` unless `--port` says otherwise. */
export const CONSOLE_DEFAULT_PORT = 8095;

/** Seconds between two reads of the plant unless configured otherwise. */
export const CONSOLE_DEFAULT_REFRESH_SECONDS = 2;
