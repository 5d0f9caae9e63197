/** Exit codes of `semantic-sidecar`: 0 success, 1 the command failed, 2 it was used wrongly. */
export const EXIT = Object.freeze({ OK: 0, FAILURE: 1, USAGE: 2 } as const);

/** A command-line mistake (a bad flag value, a bad store location): exit code 2. */
export class UsageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UsageError';
  }
}
