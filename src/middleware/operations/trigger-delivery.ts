import { TriggerDeliveryError } from '../../errors.js';
import { buildEventTriggerUrl } from '../../iri/endpoints.js';
import { untrustedCertificateHint } from '../../lib/tls-trust.js';
import { LIMITS } from '../../limits.js';
import type { FetchFunction } from '../options.js';
import type { OperationDescription } from './operation-description.js';
import { OUTCOME_STREAM_TYPE, parseOutcome, type Outcome } from './outcome-channel.js';

const BODY_PREVIEW = 200;

/** Options of {@link deliverTrigger}. */
export interface DeliveryOptions {
  /** Bearer token sent as `Authorization: Bearer <token>`; default none (no header). */
  token?: string;
  /** Time the receiver gets to answer; default `LIMITS.triggerTimeoutMs`. */
  timeoutMs?: number;
  /** W3C `traceparent` sent with the trigger, so the receiver's work continues the caller's trace; default none. */
  traceparent?: string;
  /** The Operation as the requester wrote it, sent as `"operation"`: the receiver claims it without reading it first. */
  description?: OperationDescription;
  /** Ask for the outcome channel (`Accept: application/x-ndjson`); default false. */
  outcome?: boolean;
}

/** What a delivered trigger leaves: the outcome channel, when the receiver opened one. */
export interface Delivered {
  /** Resolves with the outcome the receiver announces, or null (the channel ended without one). */
  outcome?: Promise<Outcome>;
  /** Closes the channel (its outcome then resolves null). */
  close?: () => void;
}

// Longest outcome line read: a result and a failure state of the largest literal each, with room for the rest.
const MAX_OUTCOME_CHARS = 2 * LIMITS.maxLiteralLength + 4096;

/**
 * Rings a receiver's event trigger: `POST {address}/workflows/event_trigger/execute` with
 * `{"operation_iri": "<iri>"}` (the Python reference's payload, plus `"operation"` when a
 * description is given), within `timeoutMs`, with the bearer token when one is given. With
 * `outcome`, a receiver that opens the outcome channel answers in two lines: this resolves after
 * the first, and the second comes as `outcome`.
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
): Promise<Delivered> {
  const { token, timeoutMs = LIMITS.triggerTimeoutMs, traceparent, description } = options;
  const url = buildEventTriggerUrl(address);
  const accept = options.outcome ? `${OUTCOME_STREAM_TYPE}, application/json` : 'application/json';
  const headers: Record<string, string> = { 'content-type': 'application/json', accept };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (traceparent !== undefined) headers.traceparent = traceparent;
  // The timeout covers the answer, not the outcome channel that may follow it.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  try {
    let response: Awaited<ReturnType<FetchFunction>>;
    try {
      const body = JSON.stringify({ operation_iri: operationIri, ...(description && { operation: description }) });
      // Sent again when a kept-alive connection was closed under it (a receiver that stopped or
      // restarted): the receiver acknowledges a duplicate trigger without enqueueing it twice.
      response = await fetch(url, { method: 'POST', headers, body, signal: abort.signal, idempotent: true });
      const channel = response.ok && options.outcome ? await openChannel(response, operationIri, abort) : undefined;
      if (channel) return channel;
    } catch (cause) {
      const why = errorField(cause, 'name') === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : causeText(cause);
      const code = errorCode(cause);
      const neverReached = typeof code === 'string' && NEVER_REACHED.has(code);
      throw deliveryError(`event trigger of the receiver at ${url} was not delivered: ${why}`, neverReached, { cause });
    }
    const body = await response.text().catch(() => '');
    if (response.status === 401) throw new TriggerDeliveryError(refusedText(url, address, token !== undefined));
    if (!response.ok) {
      // A receiver (or a proxy in front of it) might echo the request's headers.
      const safe = token === undefined ? body : body.split(token).join('[redacted]');
      const preview = safe.length > BODY_PREVIEW ? `${safe.slice(0, BODY_PREVIEW)}...` : safe;
      throw deliveryError(
        `event trigger of the receiver at ${url} answered ${response.status}${preview ? `: ${preview}` : ''}`,
        response.status === 503,
      );
    }
    return {};
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads the answer line of an outcome channel, when the receiver opened one; the rest of the
 * response becomes the outcome. Undefined when the answer is a plain JSON object.
 * @throws the transport's error (the timeout included) before the answer line is complete.
 */
async function openChannel(
  response: Awaited<ReturnType<FetchFunction>>,
  operationIri: string,
  abort: AbortController,
): Promise<Delivered | undefined> {
  if (!response.headers?.get('content-type')?.startsWith(OUTCOME_STREAM_TYPE) || !response.body) return undefined;
  // fetch's web stream and a Node stream alike: leaving the iteration cancels either.
  const chunks = (response.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let text = '';
  const readLine = async (): Promise<string | undefined> => {
    for (;;) {
      const newline = text.indexOf('\n');
      if (newline >= 0) {
        const line = text.slice(0, newline);
        text = text.slice(newline + 1);
        return line;
      }
      const chunk = await chunks.next();
      if (chunk.done === true || text.length > MAX_OUTCOME_CHARS) return undefined;
      text += decoder.decode(chunk.value, { stream: true });
    }
  };
  if ((await readLine()) === undefined) throw new Error('the receiver ended its answer before the first line');
  const outcome = readLine()
    .then((line) => (line === undefined ? null : parseOutcome(line, operationIri)))
    .catch(() => null)
    .finally(() => void drain(chunks));
  return { outcome, close: () => abort.abort() };
}

/**
 * Reads the response to its end, so its connection goes back to the pool: leaving the iteration
 * early destroys the stream, and each trigger would then open a connection of its own. The
 * receiver ends the response with the outcome line; one that sends more, or does not end
 * within {@link LIMITS.outcomeDrainMs}, has its connection closed.
 */
async function drain(chunks: AsyncIterator<Uint8Array>): Promise<void> {
  const timer = setTimeout(() => void chunks.return?.().catch(() => undefined), LIMITS.outcomeDrainMs).unref();
  try {
    let extra = 0;
    for (let chunk = await chunks.next(); chunk.done !== true; chunk = await chunks.next()) {
      extra += chunk.value.byteLength;
      if (extra > MAX_OUTCOME_CHARS) break;
    }
  } catch {
    // The channel failed after its outcome: nothing is waiting for it any more.
  } finally {
    clearTimeout(timer);
    await chunks.return?.().catch(() => undefined);
  }
}

// Connection errors that say the trigger never reached a receiver: nothing listens at its address.
const NEVER_REACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);
// Delivery errors that say the receiver did not take the Operation (see declinedByReceiver).
const declined = new WeakSet<Error>();

/**
 * Whether `error` is a failed delivery that says the receiver did not take the Operation: the
 * connection was refused (nothing listens at its address), or it answered 503, which a receiver
 * answers when it is stopping or its device or store is unavailable, before it enqueues or once
 * its claim failed. Such an Operation, reverted, may go to another receiver: should the claim have
 * applied after all, the revert (conditional on `queued`) fails and says so. A timeout, a reset
 * or another answer proves no such thing.
 */
export function declinedByReceiver(error: unknown): boolean {
  return error instanceof TriggerDeliveryError && declined.has(error);
}

/** A TriggerDeliveryError, marked for {@link declinedByReceiver} when the receiver `declinedIt`. */
function deliveryError(message: string, declinedIt: boolean, options?: ErrorOptions): TriggerDeliveryError {
  const error = new TriggerDeliveryError(message, options);
  if (declinedIt) declined.add(error);
  return error;
}

// The receiver's 401 body is left out: this side's configuration is what needs fixing.
function refusedText(url: string, address: string, sent: boolean): string {
  const configure = `configure the receiver's token for ${address} in outgoingTokens.byAddress, or the plant token in outgoingTokens.default (a sidecar: outgoingTokens.byAddressFiles / defaultFile, or SIDECAR_OUTGOING_TOKEN_FILE)`;
  return sent
    ? `event trigger of the receiver at ${url} answered 401: the receiver refused the token sent; ${configure}`
    : `event trigger of the receiver at ${url} answered 401: the receiver requires a bearer token and none is configured for it; ${configure}`;
}

// Read by field, not instanceof: fetch's errors may come from another realm (a VM context).
function errorField(value: unknown, field: 'name' | 'message' | 'code' | 'cause'): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
}

/** The error's code: Node's client puts it on the error, fetch on its cause. */
function errorCode(cause: unknown): unknown {
  const own = errorField(cause, 'code');
  return typeof own === 'string' ? own : errorField(errorField(cause, 'cause'), 'code');
}

/**
 * The error's message and code: Node's client puts the code on the error (`connect ECONNREFUSED
 * ...`, `self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`), fetch on its cause (`fetch
 * failed (ECONNREFUSED)`).
 */
function causeText(cause: unknown): string {
  const message = errorField(cause, 'message');
  if (typeof message !== 'string') return String(cause);
  const code = errorCode(cause);
  if (typeof code !== 'string' && typeof code !== 'number') return message;
  const named = message.includes(String(code)) ? message : `${message} (${String(code)})`;
  return `${named}${untrustedCertificateHint(code, "the receiver's")}`;
}
