/**
 * MQTT payloads of parameter values: a raw scalar (`21.5`, `true`, or the text itself for a
 * string parameter), or a JSON envelope whose dotted value path holds the value.
 */
import { xsd } from '../../vocab/terms.js';
import type { Reception } from '../binding.js';
import type { ParameterValue } from '../datatypes.js';

/**
 * The candidate value in a received payload, or why there is none. Oversized payloads are
 * refused before they are decoded.
 */
export function readPayload(payload: Buffer, datatype: string, valuePath: readonly string[], maxBytes: number): Reception {
  if (payload.length > maxBytes) return { reason: `payload of ${payload.length} bytes exceeds the limit of ${maxBytes}` };
  const text = payload.toString('utf8');
  if (valuePath.length === 0 && datatype === xsd.string) return { candidate: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { reason: valuePath.length === 0 ? 'payload is not a JSON scalar' : 'payload is not JSON' };
  }
  let at: unknown = parsed;
  for (const key of valuePath) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !Object.hasOwn(at, key))
      return { reason: "payload has no value at the parameter's value path" };
    at = (at as Record<string, unknown>)[key];
  }
  return { candidate: at };
}

/** The payload that sets a parameter: the raw scalar, or the value wrapped in its envelope. */
export function writePayload(value: ParameterValue, valuePath: readonly string[]): string {
  if (valuePath.length === 0) return typeof value === 'string' ? value : JSON.stringify(value);
  let envelope: unknown = value;
  for (const key of [...valuePath].reverse()) envelope = { [key]: envelope };
  return JSON.stringify(envelope);
}
