import { buildHealthUrl } from '../../iri/endpoints.js';
import { LIMITS } from '../../limits.js';
import type { FetchFunction } from '../options.js';

/**
 * The addresses among `addresses` whose `GET /healthz` answers 2xx within `timeoutMs`: the twin
 * instances that are alive, as opposed to ones whose heartbeat still looks fresh because they
 * died moments ago. Each address is asked once, all at the same time; an error or a timeout
 * counts as dead.
 * @example await liveAddresses(fetch, ['http://10.0.0.5:8001']) // Set { 'http://10.0.0.5:8001' }
 */
export async function liveAddresses(
  fetch: FetchFunction,
  addresses: Iterable<string>,
  timeoutMs: number = LIMITS.twinProbeTimeoutMs,
): Promise<Set<string>> {
  const distinct = [...new Set(addresses)];
  const alive = await Promise.all(
    distinct.map(async (address) => {
      try {
        const res = await fetch(buildHealthUrl(address), {
          method: 'GET',
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.text().catch(() => '');
        return res.ok;
      } catch {
        return false;
      }
    }),
  );
  return new Set(distinct.filter((_, i) => alive[i]));
}
