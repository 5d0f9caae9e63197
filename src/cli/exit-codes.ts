/** Exit codes of `semantic-sidecar`: 0 success, 1 the command failed, 2 it was used wrongly. */
export const EXIT = Object.freeze({ OK: 0, FAILURE: 1, USAGE: 2 } as const);

/** A command-line mistake (a bad flag value, a bad store location): exit code 2. */
export class UsageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UsageError';
  }
}

/**
 * An expected negative outcome that scripts test for, such as "no receiver found": exit code
 * 1, with the message printed as is (not as an error). Output written before it stands.
 */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}
