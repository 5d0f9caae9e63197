import { assertName } from './mint.js';

/** The reserved built-in workflow name of the receiver event-trigger endpoint. */
export const EVENT_TRIGGER_WORKFLOW_NAME = 'event_trigger';

function base(address: string): string {
  return address.replace(/\/+$/u, '');
}

/** `{address}/workflows/{name}/execute` */
export function buildWorkflowEndpoint(address: string, workflowName: string): string {
  return `${base(address)}/workflows/${assertName(workflowName, 'workflow name')}/execute`;
}

/** `{address}/state/{name}` */
export function buildStateEndpoint(address: string, stateName: string): string {
  return `${base(address)}/state/${assertName(stateName, 'state property name')}`;
}

/** `{address}/workflows/event_trigger/execute` */
export function buildEventTriggerUrl(address: string): string {
  return buildWorkflowEndpoint(address, EVENT_TRIGGER_WORKFLOW_NAME);
}

/** The path of a surface's liveness probe. */
export const HEALTH_PATH = '/healthz';

/** `{address}/healthz` */
export function buildHealthUrl(address: string): string {
  return `${base(address)}${HEALTH_PATH}`;
}
