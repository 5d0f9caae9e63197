import { collectDefaultMetrics, Registry } from 'prom-client';

/** A `/metrics` answer: the Prometheus text exposition and its content type. */
export interface MetricsText {
  contentType: string;
  body: string;
}

/** The process metrics (CPU, memory, event loop, GC): one registry per process, made on first scrape. */
let processRegistry: Registry | undefined;

/**
 * prom-client's process metrics belong to the process, not to a component: several components
 * of one process (two middlewares in a test) share this registry, so its collectors (a GC
 * observer, an event-loop monitor) are started once, and only by a process that is scraped.
 */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The text of one component's registry followed by the process metrics, in the Prometheus text
 * format (version 0.0.4). The two registries hold different names, so the text is one valid
 * exposition.
 */
export async function exposition(component: Registry): Promise<MetricsText> {
  const [own, proc] = await Promise.all([component.metrics(), processMetrics().metrics()]);
  return { contentType: component.contentType, body: `${own.trimEnd()}\n${proc}` };
}
