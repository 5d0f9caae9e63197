/**
 * A workflow run as an OPC UA Method call: the JSON arguments mapped by name onto the method's
 * input arguments (read from the server once per session) and typed by their data types, the
 * output arguments answered as a JSON object by name. A bad status of the call is a 502 that
 * names the status (`BadOutOfRange`); errors and messages name the workflow, never the server
 * or a NodeId.
 */
import type { Argument, ClientSession } from 'node-opcua-client';
import { RuntimeError, ValueError } from '../../errors.js';
import type { WorkflowInvoker } from '../../device/client.js';
import { DeviceAnswerError, DeviceReplyError, DeviceTimeoutError, DeviceUnreachableError, type DeviceCall } from '../../device/errors.js';
import { withTimeout } from '../mqtt/session.js';
import type { OpcuaConnection } from './connection.js';
import { OPCUA_DEVICE_DESCRIPTION } from './session.js';
import { builtInName, jsonToVariant, variantToJson } from './variants.js';

/** What one method-bound workflow calls. */
export interface MethodTarget {
  /** `workflow "start"`, for messages. */
  readonly label: string;
  readonly objectNodeId: string;
  readonly methodNodeId: string;
  readonly timeoutMs: number;
}

interface Definition {
  readonly inputs: readonly Argument[];
  readonly outputs: readonly Argument[];
}

const isArguments = (args: unknown): args is Record<string, unknown> => typeof args === 'object' && args !== null && !Array.isArray(args);

/** The invocation of `target` on the server of `connection`. */
export function methodInvoker(connection: OpcuaConnection, target: MethodTarget): WorkflowInvoker {
  const definitions = new WeakMap<ClientSession, Promise<Definition>>();
  const call: DeviceCall = { target: OPCUA_DEVICE_DESCRIPTION, method: 'OPC UA Call', path: target.label };
  const definition = (session: ClientSession): Promise<Definition> => {
    let found = definitions.get(session);
    if (found === undefined) {
      found = session
        .getArgumentDefinition(target.methodNodeId)
        .then(({ inputArguments, outputArguments }) => ({ inputs: inputArguments, outputs: outputArguments }));
      found.catch(() => definitions.delete(session)).catch(() => undefined);
      definitions.set(session, found);
    }
    return found;
  };
  return async (args) => {
    if (!isArguments(args))
      throw new ValueError(`${target.label} takes a JSON object of arguments, got ${Array.isArray(args) ? 'an array' : typeof args}`);
    if (connection.isClosed()) throw new RuntimeError(`${target.label}: the OPC UA connection is closed`);
    const session = connection.session();
    if (session === undefined)
      throw new DeviceUnreachableError(`${target.label}: its OPC UA server is not connected; nothing was sent`, call, undefined);
    const work = (async () => {
      const { inputs, outputs } = await definition(session).catch((error: unknown) => {
        throw new DeviceAnswerError(`${target.label}: the server does not describe the method's arguments`, call, answer(error));
      });
      const result = await session.call({
        objectId: target.objectNodeId,
        methodId: target.methodNodeId,
        inputArguments: inputVariants(target, inputs, args),
      });
      if (result.statusCode.isNotGood())
        throw new DeviceAnswerError(`${target.label}: the method answered ${result.statusCode.name}`, call, {
          deviceStatus: 502,
          bodyPreview: result.statusCode.name,
          detail: result.statusCode.name,
        });
      return outputObject(target, call, outputs, result.outputArguments ?? []);
    })();
    return withTimeout(
      work,
      target.timeoutMs,
      () => new DeviceTimeoutError(`${target.label} got no answer over OPC UA within ${target.timeoutMs} ms`, call, target.timeoutMs),
    );
  };
}

function answer(error: unknown): { deviceStatus: number; bodyPreview: string } {
  const name = (error as { statusCode?: { name?: string } } | null)?.statusCode?.name ?? 'error';
  return { deviceStatus: 502, bodyPreview: name };
}

/** The built-in type number of an argument, when its data type is one (namespace 0, 1 to 25). */
function builtInOf(argument: Argument): number | undefined {
  const { namespace, value } = argument.dataType;
  return namespace === 0 && typeof value === 'number' && value >= 1 && value <= 25 ? value : undefined;
}

function inputVariants(
  target: MethodTarget,
  inputs: readonly Argument[],
  args: Record<string, unknown>,
): Array<{ dataType: number; value: unknown }> {
  return inputs.map((argument) => {
    const name = argument.name ?? '';
    const what = `${target.label}: argument "${name}"`;
    if (!Object.hasOwn(args, name)) throw new ValueError(`${what} is missing (the method takes ${inputs.map((a) => a.name).join(', ')})`);
    const dataType = builtInOf(argument);
    if (dataType === undefined || argument.valueRank > 0)
      throw new ValueError(`${what} is not of a scalar built-in type this connector writes`);
    const variant = jsonToVariant(dataType, args[name]);
    if (!variant.ok) throw new ValueError(`${what}: ${variant.reason}`);
    return { dataType: variant.dataType, value: variant.value };
  });
}

function outputObject(
  target: MethodTarget,
  call: DeviceCall,
  outputs: readonly Argument[],
  values: ReadonlyArray<{ dataType: number; arrayType: number; value: unknown }>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  values.forEach((variant, i) => {
    const json = variantToJson(variant);
    if ('reason' in json)
      throw new DeviceReplyError(`${target.label}: output ${i + 1} (${builtInName(variant.dataType)}): ${json.reason}`, call);
    Object.defineProperty(result, outputs[i]?.name ?? `output${i + 1}`, {
      value: json.candidate,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return result;
}
