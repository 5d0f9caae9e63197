/**
 * The device side of the sidecar: the co-located device reached through a binding chosen by the
 * target's scheme (HTTP over TCP or a Unix socket today), its typed failures, and the proxies that
 * turn configured workflows and state properties into handlers.
 */
export type {
  DeviceBinding,
  DeviceClient,
  DeviceClientOptions,
  DeviceClientSettings,
  DeviceForm,
  DeviceHealth,
  InvokeOptions,
  StateReader,
  WorkflowInvoker,
} from './client.js';
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
export { deviceHealthProbe } from './health.js';
export { openDevice, parseDeviceTarget, registerDeviceBinding } from './registry.js';
