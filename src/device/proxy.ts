/**
 * Proxies that turn configured workflows and state properties into handlers backed by the device:
 * a workflow POSTs its JSON arguments to the device, a state property GETs the live value, and an
 * Operation claimed by this resource runs through the device the same way.
 */
import { ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { assertDevicePath, assertTimeout, shown } from './target.js';
import type { DeviceTransport } from './transport.js';

/** A workflow declared in configuration and served by the device. */
export interface WorkflowDeclaration {
  /** Workflow name: `POST /workflows/{name}/execute`, and the last segment of its IRI. */
  name: string;
  /** Capability class the workflow realizes (an IRI in the ontology). */
  capabilityClass: string;
  /** Workflow class (an IRI in the ontology). */
  workflowClass: string;
  /** Path on the device the arguments are POSTed to, e.g. `/open`. */
  path: string;
  /** HTTP method on the device; only POST. Default `'POST'`. */
  method?: 'POST';
  /** Time the device gets to answer. Default {@link LIMITS.deviceTimeoutMs}. */
  timeoutMs?: number;
}

/** A state property declared in configuration and read live from the device. */
export interface StateDeclaration {
  /** State property name: `GET /state/{name}`. */
  name: string;
  /** Capability class the state property provides. */
  capabilityClass: string;
  /** StateProperty class (an IRI in the ontology). */
  statePropertyClass: string;
  /** Path on the device that is read with GET, e.g. `/state/door`. */
  path: string;
  /** Time the device gets to answer. Default {@link LIMITS.deviceTimeoutMs}. */
  timeoutMs?: number;
}

/** An Operation claimed by this resource, as the middleware hands it to the runner. */
export interface ClaimedForDevice {
  operationIri: string;
  /** Name of the workflow of this Service that realizes the Operation's Capability. */
  workflowName?: string;
  /** The Operation's data fields. */
  data: Record<string, unknown>;
}

/** Checks a declaration's path and timeout once, when its proxy is built. */
function checked(decl: WorkflowDeclaration | StateDeclaration, kind: string): { path: string; timeoutMs: number } {
  const what = `${kind} ${shown(decl?.name)}`;
  if (typeof decl?.name !== 'string' || decl.name === '') throw new ValueError(`${what} has no name`);
  if ('method' in decl && decl.method !== undefined && decl.method !== 'POST') {
    throw new ValueError(`${what} has method ${shown(decl.method)}; device workflows are called with POST`);
  }
  return {
    path: assertDevicePath(decl.path, `${what} path`),
    timeoutMs: assertTimeout(decl.timeoutMs ?? LIMITS.deviceTimeoutMs, `${what} timeoutMs`),
  };
}

function assertArguments(args: unknown, what: string): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ValueError(`${what} takes a JSON object of arguments, got ${Array.isArray(args) ? 'an array' : shown(args)}`);
  }
  return args as Record<string, unknown>;
}

/**
 * A workflow handler that POSTs its arguments as JSON to `decl.path` and returns the device's JSON
 * answer (`null` for an empty one).
 * @throws ValueError at build time for a bad path or timeout, and per call for non-object
 * arguments; the transport's DeviceErrors per call.
 * @example
 * const open = workflowProxy(device, { name: 'open', capabilityClass, workflowClass, path: '/open' });
 * await open({ speed: 2 }); // { ok: true, door: 'open' }
 */
export function workflowProxy(transport: DeviceTransport, decl: WorkflowDeclaration): (args: Record<string, unknown>) => Promise<unknown> {
  const { path, timeoutMs } = checked(decl, 'workflow');
  const what = `workflow ${shown(decl.name)}`;
  return async (args) => transport.request({ method: 'POST', path, body: assertArguments(args, what), timeoutMs });
}

/**
 * A state getter that reads `decl.path` on the device with GET and returns its raw JSON value.
 * @throws ValueError at build time for a bad path or timeout; the transport's DeviceErrors per call.
 * @example
 * const door = stateProxy(device, { name: 'door', capabilityClass, statePropertyClass, path: '/state/door' });
 * await door(); // 'closed'
 */
export function stateProxy(transport: DeviceTransport, decl: StateDeclaration): () => Promise<unknown> {
  const { path, timeoutMs } = checked(decl, 'state property');
  return async () => transport.request({ method: 'GET', path, timeoutMs });
}

/**
 * The work function for Operations claimed by this resource: POSTs `{ "operation": <IRI>, ...data }`
 * to the path of the workflow named `claimed.workflowName` and returns the device's answer, which
 * the middleware records as `svc:executionResult`. A thrown error (a DeviceError, or a ValueError
 * for an unknown workflow) makes the Operation failed with the error's message as the reason.
 * @throws ValueError at build time for a bad declaration or a duplicate name.
 * @example
 * const run = operationRunner(device, workflows);
 * await run({ operationIri, workflowName: 'open', data: { speed: 2 } });
 */
export function operationRunner(
  transport: DeviceTransport,
  workflows: readonly WorkflowDeclaration[],
): (claimed: ClaimedForDevice) => Promise<unknown> {
  const routes = new Map<string, { path: string; timeoutMs: number }>();
  for (const decl of workflows) {
    const route = checked(decl, 'workflow');
    if (routes.has(decl.name)) throw new ValueError(`workflow ${shown(decl.name)} is declared twice`);
    routes.set(decl.name, route);
  }
  const known = [...routes.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none';
  return async (claimed) => {
    const route = claimed.workflowName === undefined ? undefined : routes.get(claimed.workflowName);
    if (!route) {
      throw new ValueError(
        `operation ${claimed.operationIri} names workflow ${shown(claimed.workflowName)}, which this device does not declare (declared: ${known})`,
      );
    }
    // The Operation's IRI is set last so a data field called "operation" cannot replace it.
    const body = { operation: claimed.operationIri, ...claimed.data };
    body.operation = claimed.operationIri;
    return transport.request({ method: 'POST', path: route.path, body, timeoutMs: route.timeoutMs });
  };
}
