/**
 * Turns what a binding's connection throws for a device call (a socket error, or the abort of the
 * call's own timer) into a {@link DeviceError} that says what happened in plant-engineer terms and
 * what to check. The codes are the operating system's, so every binding over a socket shares them.
 */
import { callSite, DeviceTimeoutError, DeviceUnreachableError, type DeviceCall, type DeviceError } from './errors.js';

// What each connection-level code means for a device bridge, and what to look at.
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOENT: 'the socket file does not exist',
  EACCES: 'permission denied on the socket file (check its owner and mode)',
  EPERM: 'permission denied on the socket file (check its owner and mode)',
  ECONNRESET: 'the connection was reset before the device answered (did the bridge crash? check its log)',
  EPIPE: 'the connection was closed while the request was sent (did the bridge crash? check its log)',
  // undici's name for a connection the other side closed before its answer was complete.
  UND_ERR_SOCKET: 'the connection was closed before the device answered (did the bridge crash? check its log)',
  ETIMEDOUT: 'connecting timed out',
  ENOTFOUND: 'the host name does not resolve',
  EHOSTUNREACH: 'the host is unreachable',
};

/** The code of `err` or of the first error in its cause chain that has one. */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 5; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The DeviceError for a call that failed below the binding's protocol. `timedOut` is true when the
 * call's own timer aborted it: the client then reports an abort, which means "no answer in time".
 * @example throw connectionFailure(err, call, 5000, signal.aborted)
 */
export function connectionFailure(err: unknown, call: DeviceCall, timeoutMs: number, timedOut: boolean): DeviceError {
  const where = callSite(call);
  if (timedOut) {
    return new DeviceTimeoutError(
      `${where} got no answer within ${timeoutMs} ms; is the device stuck, or is the workflow's timeoutMs too short?`,
      call,
      timeoutMs,
      { cause: err },
    );
  }
  const code = errorCode(err);
  const reason = (code && REASONS[code]) ?? (err instanceof Error ? err.message : String(err));
  return new DeviceUnreachableError(
    `${where} failed: ${reason}${code ? ` (${code})` : ''}; is the device bridge running on ${call.target}?`,
    call,
    code,
    { cause: err },
  );
}
