/**
 * Proxies that turn configured workflows and state properties into handlers backed by the device,
 * whatever binding reaches it: a workflow sends its JSON arguments, a state property reads the live
 * value, and an Operation claimed by this resource runs through the device the same way.
 */
import { ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { DeviceClient, DeviceForm, WorkflowInvoker } from './client.js';
import { assertTimeout, shown } from './values.js';
import { traceAware } from '../tracing/trace-scope.js';

/** A workflow declared in configuration and served by the device. */
export interface WorkflowDeclaration {
  /** Workflow name: `POST /workflows/{name}/execute`, and the last segment of its IRI. */
  name: string;
  /** Capability class the workflow realizes (an IRI in the ontology). */
  capabilityClass: string;
  /** Workflow class (an IRI in the ontology). */
  workflowClass: string;
  /** Where the binding sends the arguments: for HTTP the path they are POSTed to, e.g. `/open`. */
  path: string;
  /** How the binding calls it: for HTTP only POST. Default `'POST'`. */
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
  /** Where the binding reads it: for HTTP the path read with GET, e.g. `/state/door`. */
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
  /** Aborted when the Operation is cancelled while it runs (`claimed.signal`): the device call is aborted. */
  signal?: AbortSignal;
}

/** Checks a declaration's name and timeout once, when its proxy is built; the binding checks the rest. */
function formOf(decl: WorkflowDeclaration | StateDeclaration, kind: string): DeviceForm {
  const label = `${kind} ${shown(decl?.name)}`;
  if (typeof decl?.name !== 'string' || decl.name === '') throw new ValueError(`${label} has no name`);
  return {
    label,
    path: decl.path,
    ...('method' in decl && decl.method !== undefined && { method: decl.method }),
    timeoutMs: assertTimeout(decl.timeoutMs ?? LIMITS.deviceTimeoutMs, `${label} timeoutMs`),
  };
}

function argumentsError(args: unknown, what: string): ValueError {
  return new ValueError(`${what} takes a JSON object of arguments, got ${Array.isArray(args) ? 'an array' : shown(args)}`);
}

const isArguments = (args: unknown): args is Record<string, unknown> => typeof args === 'object' && args !== null && !Array.isArray(args);

/**
 * A workflow handler that sends its arguments to the device and returns the device's JSON answer
 * (`null` for an empty one); over HTTP, a JSON POST to `decl.path`.
 * @throws ValueError at build time for a declaration the binding cannot use or a bad timeout;
 * rejects per call with a ValueError for non-object arguments and with the binding's DeviceErrors.
 * @example
 * const open = workflowProxy(device, { name: 'open', capabilityClass, workflowClass, path: '/open' });
 * await open({ speed: 2 }); // { ok: true, door: 'open' }
 */
export function workflowProxy(device: DeviceClient, decl: WorkflowDeclaration): WorkflowInvoker {
  const form = formOf(decl, 'workflow');
  const invoke = device.invoker(form);
  // Not async: on the hot path a checked call goes straight to the binding, without another promise.
  return traceAware((args, options) => (isArguments(args) ? invoke(args, options) : Promise.reject(argumentsError(args, form.label))));
}

/**
 * A state getter that reads the live value from the device and returns its raw JSON; over HTTP, a
 * GET of `decl.path`.
 * @throws ValueError at build time for a declaration the binding cannot use or a bad timeout;
 * rejects per call with the binding's DeviceErrors.
 * @example
 * const door = stateProxy(device, { name: 'door', capabilityClass, statePropertyClass, path: '/state/door' });
 * await door(); // 'closed'
 */
export function stateProxy(device: DeviceClient, decl: StateDeclaration): () => Promise<unknown> {
  return traceAware(device.reader(formOf(decl, 'state property')));
}

/**
 * The work function for Operations claimed by this resource: sends `{ "operation": <IRI>, ...data }`
 * to the workflow named `claimed.workflowName` and returns the device's answer, which the
 * middleware records as `svc:executionResult`. A rejection (a DeviceError, or a ValueError for an
 * unknown workflow) makes the Operation failed with the error's message as the reason. The call is
 * aborted when `claimed.signal` aborts (the Operation was cancelled while it ran).
 * @throws ValueError at build time for a bad declaration or a duplicate name.
 * @example
 * const run = operationRunner(device, workflows);
 * await run({ operationIri, workflowName: 'open', data: { speed: 2 } });
 */
export function operationRunner(
  device: DeviceClient,
  workflows: readonly WorkflowDeclaration[],
): (claimed: ClaimedForDevice) => Promise<unknown> {
  const invokers = new Map<string, WorkflowInvoker>();
  for (const decl of workflows) {
    const invoke = device.invoker(formOf(decl, 'workflow'));
    if (invokers.has(decl.name)) throw new ValueError(`workflow ${shown(decl.name)} is declared twice`);
    invokers.set(decl.name, invoke);
  }
  const known = [...invokers.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none';
  return traceAware((claimed: ClaimedForDevice) => {
    const invoke = claimed.workflowName === undefined ? undefined : invokers.get(claimed.workflowName);
    if (!invoke) {
      return Promise.reject(
        new ValueError(
          `operation ${claimed.operationIri} names workflow ${shown(claimed.workflowName)}, which this device does not declare (declared: ${known})`,
        ),
      );
    }
    // The Operation's IRI is set last so a data field called "operation" cannot replace it.
    const body = { operation: claimed.operationIri, ...claimed.data };
    body.operation = claimed.operationIri;
    return invoke(body, claimed.signal ? { signal: claimed.signal } : undefined);
  });
}
