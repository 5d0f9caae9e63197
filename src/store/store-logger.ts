/** The logging calls the store makes; a pino logger fits. */
export interface StoreLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The embedded store's logger when none is given: warnings and errors to stderr. */
export const stderrLogger: StoreLogger = {
  info: () => undefined,
  warn: (obj, msg) => console.error(`embedded store warning: ${msg}`, obj),
  error: (obj, msg) => console.error(`embedded store error: ${msg}`, obj),
};
