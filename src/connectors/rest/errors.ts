import { SemanticMiddlewareError } from '../../errors.js';

/**
 * A peer middleware refused a setpoint for a reason this instance cannot fix by retrying (no
 * such parameter, a refused token, an unexpected status). Answered as 502: the peer, not the
 * caller, is at fault. The message names the parameter and the status, never the peer's address.
 */
export class PeerAnswerError extends SemanticMiddlewareError {
  override readonly code: string = 'SM_PEER_ANSWER';
  override readonly status = 502;
}
