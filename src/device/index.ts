/**
 * The device side of the sidecar: the transport to the co-located device (HTTP or Unix socket),
 * its typed failures, and the proxies that turn configured workflows and state properties into
 * handlers.
 */
export {
  DeviceAnswerError,
  DeviceError,
  DeviceReplyError,
  DeviceTimeoutError,
  DeviceUnreachableError,
  type DeviceAnswer,
  type DeviceCall,
} from './errors.js';
export {
  operationRunner,
  stateProxy,
  workflowProxy,
  type ClaimedForDevice,
  type StateDeclaration,
  type WorkflowDeclaration,
} from './proxy.js';
export { assertDevicePath, parseDeviceTarget, resolveTarget, type ResolvedTarget } from './target.js';
export {
  openDeviceTransport,
  type DeviceRequest,
  type DeviceTarget,
  type DeviceTransport,
  type DeviceTransportOptions,
} from './transport.js';
