/**
 * What a peer middleware's answers mean for a REST parameter: the candidate value in a read, why a
 * read or a setpoint was refused, and which registered addresses a call may go to. Reasons and
 * errors name the parameter and the status, never the peer's address or its own error text.
 */
import { UnavailableError, ValueError } from '../../errors.js';
import { isHttpAddress } from '../../iri/address.js';
import type { Reception } from '../binding.js';
import { ParameterNotWritableError } from '../errors.js';
import { PeerAnswerError } from './errors.js';
import type { RestMetadata } from './metadata.js';

const OUTGOING_TOKEN_HINT =
  'configure it in outgoingTokens (a sidecar: outgoingTokens.byAddressFiles / defaultFile, or SIDECAR_OUTGOING_TOKEN_FILE)';

/** An address a peer call may go to: http(s), a host, and no credentials, query or fragment. */
export function usableAddress(address: string): boolean {
  if (!isHttpAddress(address)) return false;
  const url = new URL(address.trim());
  return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
}

/**
 * The candidate in a peer's answer, why there is none, or undefined when the peer has no value
 * yet. A state property's answer is the raw value (age 0: read live); a parameter's is the peer's
 * view, whose value keeps the peer's age and is refused when the peer itself serves it as stale.
 */
export function receptionOf(metadata: RestMetadata, answer: unknown): Reception | undefined {
  if (metadata.kind === 'state') return { candidate: answer };
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer) || !Object.hasOwn(answer, 'value'))
    return { reason: "the peer's answer is not a parameter view" };
  const view = answer as { value: unknown; ageMs?: unknown; stale?: unknown };
  if (view.value === null) return undefined;
  if (view.stale === true) return { reason: 'the peer serves its value as stale' };
  const ageMs = typeof view.ageMs === 'number' && Number.isFinite(view.ageMs) && view.ageMs > 0 ? view.ageMs : 0;
  return { candidate: view.value, ageMs };
}

/** Why a read the peer refused gave no value. */
export function readRefusal(metadata: RestMetadata, status: number): string {
  if (status === 401 || status === 403) return `the peer refused this instance's token (HTTP ${status}); ${OUTGOING_TOKEN_HINT}`;
  if (status === 404) return `the peer serves no such ${metadata.kind === 'parameter' ? 'parameter' : 'state property'} (HTTP 404)`;
  return `the peer answered HTTP ${status}`;
}

/** The error a setpoint the peer refused is answered with; the peer's own text is not passed on. */
export function setpointRefusal(parameter: string, status: number): Error {
  const where = `parameter "${parameter}": its peer`;
  if (status === 400 || status === 422) return new ValueError(`${where} refused the value (HTTP ${status})`);
  if (status === 405) return new ParameterNotWritableError(`${where} does not take setpoints for it (HTTP 405)`);
  if (status === 503) return new UnavailableError(`${where} could not pass the setpoint on (HTTP 503)`);
  if (status === 401 || status === 403)
    return new PeerAnswerError(`${where} refused this instance's token (HTTP ${status}); ${OUTGOING_TOKEN_HINT}`);
  if (status === 404) return new PeerAnswerError(`${where} serves no such parameter (HTTP 404)`);
  return new PeerAnswerError(`${where} answered HTTP ${status}`);
}
