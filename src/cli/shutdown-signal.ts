import type { Logger } from '../lib/logger.js';

/**
 * An AbortSignal that fires on the first SIGTERM or SIGINT, for the long-running commands
 * (`store serve`, `start`, `watchdog`). Both handlers are removed then, so a second signal gets
 * Node's default and quits at once. `dispose` removes them early (when the command ends by
 * itself).
 * @example
 * const { signal, dispose } = shutdownSignal();
 * try { await serveUntil(signal); } finally { dispose(); }
 */
export function shutdownSignal(logger?: Pick<Logger, 'info'>): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    dispose();
    logger?.info({ signal: name }, 'signal received');
    controller.abort(name);
  };
  const dispose = (): void => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return { signal: controller.signal, dispose };
}

/** Resolves when `signal` aborts (at once if it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * Runs a long-running command with a {@link shutdownSignal}, removing the signal handlers when
 * it ends by itself.
 * @example .action((flags) => untilShutdown((signal) => runStart(flags, io, signal)))
 */
export async function untilShutdown<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { signal, dispose } = shutdownSignal();
  try {
    return await run(signal);
  } finally {
    dispose();
  }
}
