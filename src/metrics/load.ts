import type { MiddlewareContext } from '../middleware/runtime/context.js';
import type { MiddlewareMetrics } from './middleware-metrics.js';

/**
 * The metrics of a starting instance. prom-client is loaded here, on the first start, and not
 * when the library or the CLI is imported: a caller that only requests never pays for it.
 */
export async function loadMiddlewareMetrics(ctx: MiddlewareContext): Promise<MiddlewareMetrics> {
  const { MiddlewareMetrics } = await import('./middleware-metrics.js');
  return new MiddlewareMetrics(ctx);
}
