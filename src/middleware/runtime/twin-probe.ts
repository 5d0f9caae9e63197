import { buildHealthUrl } from '../../iri/endpoints.js';
import { LIMITS } from '../../limits.js';
import type { SurvivingService } from '../../registration/liveness.js';
import { TWIN_MATCH_HEADER, TWIN_PROBE_HEADER } from '../constants.js';
import type { FetchFunction } from '../options.js';

/**
 * The twins among `twins` that are alive: their `GET /healthz` answers 2xx within `timeoutMs`,
 * as opposed to ones whose heartbeat still looks fresh because they died moments ago. Each is
 * asked once, all at the same time, naming the Service expected there; an answer that says
 * another Service serves that address now (its port was taken by another sidecar) counts as
 * dead, as do an error and a timeout. An answer that does not say (a build before the question
 * existed) counts as alive, so a twin is never taken for dead during a rolling upgrade.
 * @example await liveTwins(fetch, [{ serviceIri, address: 'http://10.0.0.5:8001' }]) // Set { serviceIri }
 * @returns the Service IRIs of the live twins.
 */
export async function liveTwins(
  fetch: FetchFunction,
  twins: readonly SurvivingService[],
  timeoutMs: number = LIMITS.twinProbeTimeoutMs,
): Promise<Set<string>> {
  const alive = await Promise.all(
    twins.map(async ({ serviceIri, address }) => {
      try {
        const res = await fetch(buildHealthUrl(address), {
          method: 'GET',
          headers: { accept: 'application/json', [TWIN_PROBE_HEADER]: serviceIri },
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.text().catch(() => '');
        return res.ok && res.headers?.get(TWIN_MATCH_HEADER) !== 'false';
      } catch {
        return false;
      }
    }),
  );
  return new Set(twins.filter((_, i) => alive[i]).map((twin) => twin.serviceIri));
}
