/** Where a CLI run writes and what it reads from its environment; injected so tests need no process. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

export const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };
