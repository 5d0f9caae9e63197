/**
 * The MQTT connection metadata of a parameter node, checked: broker host and port, read topic,
 * set topic, value path. Problems name the parameter and the metadata property, never the value
 * (metadata is southbound only).
 */
import { ValueError } from '../../errors.js';
import { SM } from '../../vocab/namespaces.js';
import { inf } from '../../vocab/terms.js';
import type { ParameterDeclaration, TransportAddress } from '../binding.js';

/** The MQTT default port, used when a parameter declares no `inf:hasMQTTBrokerPort`. */
export const MQTT_DEFAULT_PORT = 1883;

/** A parameter's checked MQTT metadata. */
export interface MqttMetadata {
  readonly transport: TransportAddress;
  /** Readings topic; undefined when the node declares none (then nothing is subscribed). */
  readonly topic: string | undefined;
  /** Setpoint topic; undefined when the node declares none. */
  readonly setTopic: string | undefined;
  /** Segments of the dotted path into a JSON envelope; empty for a raw scalar payload. */
  readonly valuePath: readonly string[];
}

// A host name or an IPv4/IPv6 address, nothing a URL or option string could be smuggled through.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]{2,45})$/u;
// Segments that would walk into or build an object's prototype.
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);
const MAX_TOPIC_BYTES = 65_535;

/**
 * Reads and checks the MQTT metadata of `parameter`.
 * @throws ValueError naming the parameter and the property at fault.
 */
export function mqttMetadata(parameter: ParameterDeclaration): MqttMetadata {
  const meta = parameter.metadata;
  const fault = metadataFault(`parameter "${parameter.name}"`);
  const topic = checkedTopic(meta.get(inf.hasMQTTTopic), () => fault(inf.hasMQTTTopic, 'is not a valid MQTT topic name'));
  const setTopic = checkedTopic(meta.get(inf.hasMQTTSetTopic), () => fault(inf.hasMQTTSetTopic, 'is not a valid MQTT topic name'));
  const pathText = meta.get(inf.hasMQTTValuePath);
  const valuePath = pathText === undefined || pathText === '' ? [] : pathText.split('.');
  if (valuePath.some((s) => s === '' || FORBIDDEN_SEGMENTS.has(s)))
    throw fault(inf.hasMQTTValuePath, 'is not a dotted path of non-empty keys');
  return { transport: brokerTransport(meta, fault), topic, setTopic, valuePath };
}

/** Builds the error of a metadata property: `<what>: inf:<property> <rule>`, never the value. */
export type MetadataFault = (property: string, rule: string) => ValueError;

/** The {@link MetadataFault} of the node described as `what` (`parameter "speed"`). */
export const metadataFault =
  (what: string): MetadataFault =>
  (property, rule) =>
    new ValueError(`${what}: ${shortName(property)} ${rule}`);

/**
 * The broker of a node from `inf:hasMQTTBrokerIP` and `inf:hasMQTTBrokerPort` (default 1883).
 * @throws the fault's ValueError when the host is missing or not a host, or the port is not one.
 */
export function brokerTransport(meta: ReadonlyMap<string, string>, fault: MetadataFault): TransportAddress {
  const host = meta.get(inf.hasMQTTBrokerIP)?.trim();
  if (host === undefined || host === '') throw fault(inf.hasMQTTBrokerIP, 'is missing');
  if (!HOST.test(host)) throw fault(inf.hasMQTTBrokerIP, 'is not a host name or IP address');
  const portText = meta.get(inf.hasMQTTBrokerPort)?.trim();
  const port = portText === undefined ? MQTT_DEFAULT_PORT : Number(portText);
  if (!/^\d{1,5}$/u.test(portText ?? '1883') || !Number.isSafeInteger(port) || port < 1 || port > 65_535)
    throw fault(inf.hasMQTTBrokerPort, 'is not a port from 1 to 65535');
  return { host: host.toLowerCase(), port };
}

/**
 * A topic name a client may publish to and subscribe to exactly: non-empty, no wildcard (`+`,
 * `#`: a hostile `#` would take every message on the broker for this parameter's value), no
 * control character (Mosquitto 2 drops the connection of a client that sends one, which would
 * cut off every parameter on that broker), at most 65,535 bytes of UTF-8 (MQTT 3.1.1 §4.7).
 */
export function checkedTopic(text: string | undefined, fault: () => ValueError): string | undefined {
  if (text === undefined) return undefined;
  if (text === '' || /[+#]/u.test(text) || hasControlCharacter(text) || Buffer.byteLength(text, 'utf8') > MAX_TOPIC_BYTES) throw fault();
  return text;
}

/** C0 and C1 control characters, NUL included. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

function shortName(iri: string): string {
  const prefix = iri.startsWith(SM.iri) ? 'sm' : 'inf';
  return `${prefix}:${iri.slice(iri.lastIndexOf('#') + 1)}`;
}
