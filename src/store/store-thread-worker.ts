/**
 * The worker side of {@link openEmbeddedStoreThread}: an {@link EmbeddedStore} that answers the
 * requests the opening thread posts, one message per request and one per answer.
 */
import { inspect } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { openEmbeddedStore } from './embedded-store.js';
import type { StoreLogger } from './store-logger.js';
import { errorShape, type ThreadAnswer, type ThreadRequest, type ThreadStoreOptions } from './store-thread-protocol.js';

const port = parentPort!;
const options = workerData as ThreadStoreOptions;
const post = (answer: ThreadAnswer): void => port.postMessage(answer);
// A log line must not fail the store's work: an object that cannot cross threads goes as text.
const log =
  (level: 'info' | 'warn' | 'error') =>
  (obj: object, msg: string): void => {
    try {
      post({ log: level, obj, msg });
    } catch {
      post({ log: level, obj: { detail: inspect(obj, { depth: 3 }) }, msg });
    }
  };
const logger: StoreLogger = { info: log('info'), warn: log('warn'), error: log('error') };

try {
  const store = await openEmbeddedStore({ ...options, logger });
  // Each request is one synchronous Oxigraph call followed by the journal's fsync, as in the
  // opening thread: requests posted together are applied in the order they were posted.
  const answer = async (request: ThreadRequest): Promise<unknown> => {
    switch (request.method) {
      case 'select':
        return store.select(request.text);
      case 'ask':
        return store.ask(request.text);
      case 'update':
        return store.update(request.text);
      case 'conditionalUpdate':
        return store.conditionalUpdate(request.text, { before: request.before, after: request.after });
      case 'load': {
        let written = 0;
        await store.load(request.text, { ...request.options, onProgress: (n) => (written = n) });
        return written;
      }
      case 'dump':
        return store.dump(request.options);
      case 'close':
        return store.close();
    }
  };
  port.on('message', (request: ThreadRequest) => {
    void answer(request)
      .then(
        (value) => post({ id: request.id, value, requests: store.requestCount }),
        (error: unknown) => post({ id: request.id, error: errorShape(error), requests: store.requestCount }),
      )
      .finally(() => request.method === 'close' && port.close());
  });
  post({ ready: store.description });
} catch (error) {
  post({ failed: errorShape(error) });
}
