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
