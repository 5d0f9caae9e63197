/**
 * Failures of a call to the co-located device, whatever binding made it. Each names the device
 * target and what was asked of it, and says what to check. All answer 502 on the HTTP surface,
 * except a timeout (504), so a caller can tell "the device misbehaved" from "the sidecar refused
 * the request".
 */
import { SemanticMiddlewareError } from '../errors.js';

/** Where a failed device call was going, in the words of the binding that made it. */
export interface DeviceCall {
  /** The device target as logs show it, e.g. `unix:/run/door.sock` or `http://127.0.0.1:9000`. */
  target: string;
  /** What the binding did: for HTTP the method (`POST`, `GET`). */
  method: string;
  /** Where on the device: for HTTP the path, e.g. `/open`. */
  path: string;
}

/** A call as messages name it: `POST /open on device unix:/run/door.sock`. */
export function callSite(call: DeviceCall): string {
  return `${call.method} ${call.path} on device ${call.target}`;
}

/** Base class of every device failure; `call` says where the request was going. */
export class DeviceError extends SemanticMiddlewareError {
  override readonly code: string = 'SM_DEVICE';
  override readonly status: number = 502;
  constructor(
    message: string,
    readonly call: DeviceCall,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The device could not be reached or dropped the connection before answering: refused
 * connection, missing socket file, permission denied, reset or hang-up mid-request.
 */
export class DeviceUnreachableError extends DeviceError {
  override readonly code = 'SM_DEVICE_UNREACHABLE';
  override readonly status = 502;
  constructor(
    message: string,
    call: DeviceCall,
    /** The system error code behind it (`ECONNREFUSED`, `ENOENT`, `ECONNRESET`, ...). */
    readonly reasonCode: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, call, options);
  }
}

/** The device did not answer (headers and body) within the call's timeout. */
export class DeviceTimeoutError extends DeviceError {
  override readonly code = 'SM_DEVICE_TIMEOUT';
  override readonly status = 504;
  constructor(
    message: string,
    call: DeviceCall,
    /** The timeout that ran out, in milliseconds. */
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, call, options);
  }
}

/** What a device said when it answered that the call failed. */
export interface DeviceAnswer {
  /** The device's status code (for HTTP, the non-2xx status). */
  deviceStatus: number;
  /** The start of the device's body, as text. */
  bodyPreview: string;
  /** The `detail` of a FastAPI-style `{"detail": ...}` body, when the device sent one. */
  detail?: unknown;
}

/**
 * The device answered that the call failed (for HTTP, a non-2xx status). Keeps the device's status, a preview of its body and
 * its `detail`, so a bridge's own error message reaches the caller and the Operation's reason.
 */
export class DeviceAnswerError extends DeviceError {
  override readonly code = 'SM_DEVICE_ANSWER';
  override readonly status = 502;
  readonly deviceStatus: number;
  readonly bodyPreview: string;
  readonly detail: unknown;
  constructor(message: string, call: DeviceCall, answer: DeviceAnswer) {
    super(message, call);
    this.deviceStatus = answer.deviceStatus;
    this.bodyPreview = answer.bodyPreview;
    this.detail = answer.detail;
  }
}

/** The device answered success with a reply that is not acceptable: not JSON, or too large. */
export class DeviceReplyError extends DeviceError {
  override readonly code = 'SM_DEVICE_REPLY';
  override readonly status = 502;
}
