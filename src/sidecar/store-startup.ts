/**
 * Opening the configured store at start-up: a remote store that does not answer yet (it is
 * starting too, or the network is down) is waited for with backoff instead of failing the
 * process into a restart loop; then the ontology is provisioned when configured.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError } from '../errors.js';
import type { Logger } from '../lib/logger.js';
import { LIMITS } from '../limits.js';
import { BUNDLED_ONTOLOGY_FILES } from '../ontology/files.js';
import { ANY_TRIPLE_ASK } from '../queries/probes.js';
import { loadOntologyFiles, provisionOntology } from '../ontology/provision.js';
import { MeasuredStore } from '../store/measured-store.js';
import { openStore } from '../store/open-store.js';
import type { TripleStore } from '../store/triple-store.js';
import { storeSpecOf } from './config.js';
import type { SidecarConfig } from './config-types.js';

async function openAnswering(config: SidecarConfig): Promise<TripleStore> {
  const store = await openStore(storeSpecOf(config.store));
  try {
    await store.ask(ANY_TRIPLE_ASK);
    return store;
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/** Opens the store, retrying a store that does not answer (StoreError) until `signal` aborts. */
async function openWithRetry(config: SidecarConfig, logger: Logger, signal?: AbortSignal): Promise<TripleStore> {
  let delay: number = LIMITS.loopBackoffInitialMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openAnswering(config);
    } catch (err) {
      if (!(err instanceof StoreError) || signal?.aborted) throw err;
      logger.warn({ err, attempt, retryInMs: delay }, `the store at ${config.store.url} does not answer yet; retrying`);
      await sleep(delay, undefined, { signal });
      delay = Math.min(delay * 2, LIMITS.loopBackoffMaxMs);
    }
  }
}

async function provision(store: TripleStore, config: SidecarConfig, logger: Logger): Promise<void> {
  const bundled = config.provisionOntology ? await provisionOntology(store, { files: BUNDLED_ONTOLOGY_FILES }) : undefined;
  const extra = config.ontologyFiles.length > 0 ? await loadOntologyFiles(store, config.ontologyFiles) : undefined;
  if (bundled === undefined && extra === undefined) return;
  const loaded = (bundled?.loaded ?? 0) + (extra?.loaded ?? 0);
  const unchanged = (bundled?.unchanged ?? 0) + (extra?.unchanged ?? 0);
  logger.info({ loaded, unchanged }, 'ontology provisioned');
}

/**
 * The configured store, answering, with the bundled ontology provisioned when
 * `provisionOntology` is set and the `ontologyFiles` loaded (both idempotent). It is measured
 * (a {@link MeasuredStore}), so the middleware on it counts its requests on `/metrics`.
 * @throws the abort reason when `signal` aborts the wait; ValueError for a bad ontology file.
 */
export async function openConfiguredStore(config: SidecarConfig, logger: Logger, signal?: AbortSignal): Promise<TripleStore> {
  const store = await openWithRetry(config, logger, signal);
  try {
    await provision(store, config, logger);
    return new MeasuredStore(store);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}
