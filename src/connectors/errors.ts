import { SemanticMiddlewareError } from '../errors.js';

/**
 * A setpoint was refused before anything was sent: the parameter is read-only, or this
 * instance's wiring (observing, inspecting) builds no write connectors. Answered as 405.
 */
export class ParameterNotWritableError extends SemanticMiddlewareError {
  override readonly code: string = 'PARAMETER_NOT_WRITABLE';
  override readonly status = 405;
}
