import { TriggerDeliveryError } from '../../errors.js';
import { buildEventTriggerUrl } from '../../iri/endpoints.js';
import { LIMITS } from '../../limits.js';
import type { FetchFunction } from '../options.js';

const BODY_PREVIEW = 200;

/** Options of {@link deliverTrigger}. */
export interface DeliveryOptions {
  /** Bearer token sent as `Authorization: Bearer <token>`; default none (no header). */
  token?: string;
  /** Time the receiver gets to answer; default `LIMITS.triggerTimeoutMs`. */
  timeoutMs?: number;
  /** W3C `traceparent` sent with the trigger, so the receiver's work continues the caller's trace; default none. */
  traceparent?: string;
}

/**
 * Rings a receiver's event trigger: `POST {address}/workflows/event_trigger/execute` with
 * `{"operation_iri": "<iri>"}` (the Python reference's payload), within `timeoutMs`, with the
 * bearer token when one is given.
 * @throws TriggerDeliveryError naming the receiver's URL and the cause: the network error, the
 *   timeout, a refused token (401, with what to configure), or another non-2xx status with the
 *   start of the body. The token never appears in the message.
 * @example await deliverTrigger(fetch, 'https://door1.plant.local:8443', operationIri, { token });
 */
export async function deliverTrigger(
  fetch: FetchFunction,
  address: string,
  operationIri: string,
  options: DeliveryOptions = {},
): Promise<void> {
  const { token, timeoutMs = LIMITS.triggerTimeoutMs, traceparent } = options;
  const url = buildEventTriggerUrl(address);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (traceparent !== undefined) headers.traceparent = traceparent;
  let response: Awaited<ReturnType<FetchFunction>>;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ operation_iri: operationIri }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    const why = errorField(cause, 'name') === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : causeText(cause);
    throw new TriggerDeliveryError(`event trigger of the receiver at ${url} was not delivered: ${why}`, { cause });
  }
  const body = await response.text().catch(() => '');
  if (response.status === 401) throw new TriggerDeliveryError(refusedText(url, address, token !== undefined));
  if (!response.ok) {
    // A receiver (or a proxy in front of it) might echo the request's headers.
    const safe = token === undefined ? body : body.split(token).join('[redacted]');
    const preview = safe.length > BODY_PREVIEW ? `${safe.slice(0, BODY_PREVIEW)}...` : safe;
    throw new TriggerDeliveryError(`event trigger of the receiver at ${url} answered ${response.status}${preview ? `: ${preview}` : ''}`);
  }
}

// The receiver's 401 body is left out: this side's configuration is what needs fixing.
function refusedText(url: string, address: string, sent: boolean): string {
  const configure = `configure the receiver's token for ${address} in outgoingTokens.byAddress, or the plant token in outgoingTokens.default (a sidecar: outgoingTokens.byAddressFiles / defaultFile, or SIDECAR_OUTGOING_TOKEN_FILE)`;
  return sent
    ? `event trigger of the receiver at ${url} answered 401: the receiver refused the token sent; ${configure}`
    : `event trigger of the receiver at ${url} answered 401: the receiver requires a bearer token and none is configured for it; ${configure}`;
}

// TLS verification failures: the receiver's certificate is not one this process trusts.
const UNTRUSTED = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/u;

// Read by field, not instanceof: fetch's errors may come from another realm (a VM context).
function errorField(value: unknown, field: 'name' | 'message' | 'code' | 'cause'): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
}

function causeText(cause: unknown): string {
  const message = errorField(cause, 'message');
  if (typeof message !== 'string') return String(cause);
  const code = errorField(errorField(cause, 'cause'), 'code');
  if (typeof code !== 'string' && typeof code !== 'number') return message;
  const hint = UNTRUSTED.test(String(code))
    ? "; this process does not trust the receiver's certificate (give it the issuing CA, e.g. NODE_EXTRA_CA_CERTS=/path/ca.pem)"
    : '';
  return `${message} (${String(code)})${hint}`;
}
