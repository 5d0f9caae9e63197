import { TriggerDeliveryError } from '../errors.js';
import { buildEventTriggerUrl } from '../iri/endpoints.js';
import { LIMITS } from '../limits.js';
import type { FetchFunction } from './options.js';

const BODY_PREVIEW = 200;

/**
 * Rings a receiver's event trigger: `POST {address}/workflows/event_trigger/execute` with
 * `{"operation_iri": "<iri>"}` (the Python reference's payload), within
 * `LIMITS.triggerTimeoutMs`.
 * @throws TriggerDeliveryError naming the receiver's URL and the cause: the network error, the
 *   timeout, or the non-2xx status with the start of the body.
 */
export async function deliverTrigger(fetch: FetchFunction, address: string, operationIri: string, timeoutMs = LIMITS.triggerTimeoutMs): Promise<void> {
  const url = buildEventTriggerUrl(address);
  let response: Awaited<ReturnType<FetchFunction>>;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ operation_iri: operationIri }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    const why = cause instanceof Error && cause.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : causeText(cause);
    throw new TriggerDeliveryError(`event trigger of the receiver at ${url} was not delivered: ${why}`, { cause });
  }
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    const preview = body.length > BODY_PREVIEW ? `${body.slice(0, BODY_PREVIEW)}...` : body;
    throw new TriggerDeliveryError(`event trigger of the receiver at ${url} answered ${response.status}${preview ? `: ${preview}` : ''}`);
  }
  // Read the body so the connection can be reused.
  await response.text().catch(() => '');
}

function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: unknown }).cause;
  const code = inner && typeof inner === 'object' && 'code' in inner ? ` (${String((inner as { code: unknown }).code)})` : '';
  return `${cause.message}${code}`;
}
