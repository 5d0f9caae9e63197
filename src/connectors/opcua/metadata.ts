/**
 * The OPC UA connection metadata of a parameter or workflow node, checked: the server's endpoint
 * URL, NodeIds, sampling interval, security mode and policy, user name. Problems name the node
 * and the metadata property, never the value (metadata is southbound only).
 */
import { sm } from '../../vocab/terms.js';
import type { ParameterDeclaration, TransportAddress } from '../binding.js';
import { metadataFault, type MetadataFault } from '../mqtt/metadata.js';

/** The OPC UA default port, used when an endpoint URL names none. */
export const OPCUA_DEFAULT_PORT = 4840;
/** Sampling interval of a monitored item when the node names none, in ms. */
export const OPCUA_DEFAULT_SAMPLING_MS = 250;

/** Message security modes, by the names OPC UA gives them. */
export const SECURITY_MODES = ['None', 'Sign', 'SignAndEncrypt'] as const;
export type SecurityModeName = (typeof SECURITY_MODES)[number];
/** Security policies accepted (Basic128Rsa15 and Basic256 are deprecated and need PKCS#1 v1.5, which Node 20 refuses). */
export const SECURITY_POLICIES = ['None', 'Basic256Sha256', 'Aes128_Sha256_RsaOaep', 'Aes256_Sha256_RsaPss'] as const;
export type SecurityPolicyName = (typeof SECURITY_POLICIES)[number];

/** How one server is reached: the same for every node on one `host:port`. */
export interface OpcuaEndpoint {
  readonly transport: TransportAddress;
  /** The endpoint URL as connected to (host lower-cased). */
  readonly url: string;
  readonly securityMode: SecurityModeName;
  readonly securityPolicy: SecurityPolicyName;
  /** User name from the graph; undefined: the credentials' user name, else anonymous. */
  readonly userName: string | undefined;
}

/** A parameter's checked OPC UA metadata. */
export interface OpcuaMetadata {
  readonly endpoint: OpcuaEndpoint;
  readonly nodeId: string;
  readonly samplingIntervalMs: number;
}

// opc.tcp://host[:port][/path]: a host name, an IPv4 address or a bracketed IPv6 address.
const ENDPOINT =
  /^opc\.tcp:\/\/([A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?(\/[A-Za-z0-9._~/-]{0,256})?$/u;
// The standard string form of a NodeId: optional ns= or nsu=, then i=, s=, g= or b=. No control characters.
const NODE_ID = /^(?:ns=\d{1,5};|nsu=[^;\p{Cc}]{1,512};)?(?:i=\d{1,10}|s=[^\p{Cc}]{1,4096}|g=[0-9A-Fa-f-]{36}|b=[A-Za-z0-9+/=]{1,4096})$/u;

/**
 * The server of a node from `sm:hasOPCUAEndpoint`, `sm:hasOPCUASecurityMode`,
 * `sm:hasOPCUASecurityPolicy` and `sm:hasOPCUAUserName`.
 * @throws the fault's ValueError when one of them is missing or unusable.
 */
export function opcuaEndpoint(meta: ReadonlyMap<string, string>, fault: MetadataFault): OpcuaEndpoint {
  const text = meta.get(sm.hasOPCUAEndpoint)?.trim();
  if (text === undefined || text === '') throw fault(sm.hasOPCUAEndpoint, 'is missing');
  const match = ENDPOINT.exec(text);
  const port = match?.[2] === undefined ? OPCUA_DEFAULT_PORT : Number(match[2]);
  if (!match || port < 1 || port > 65_535) throw fault(sm.hasOPCUAEndpoint, 'is not an opc.tcp://host:port/path URL');
  const host = match[1]!.toLowerCase().replace(/^\[|\]$/gu, '');
  const securityMode = oneOf(meta.get(sm.hasOPCUASecurityMode), SECURITY_MODES, 'None', () =>
    fault(sm.hasOPCUASecurityMode, `is not one of ${SECURITY_MODES.join(', ')}`),
  );
  const securityPolicy = oneOf(
    meta.get(sm.hasOPCUASecurityPolicy),
    SECURITY_POLICIES,
    securityMode === 'None' ? 'None' : 'Basic256Sha256',
    () => fault(sm.hasOPCUASecurityPolicy, `is not one of ${SECURITY_POLICIES.join(', ')}`),
  );
  if ((securityMode === 'None') !== (securityPolicy === 'None'))
    throw fault(sm.hasOPCUASecurityPolicy, 'must be None exactly when the security mode is None');
  const userName = meta.get(sm.hasOPCUAUserName);
  if (userName !== undefined && (userName === '' || userName.length > 256 || /\p{Cc}/u.test(userName)))
    throw fault(sm.hasOPCUAUserName, 'is not a user name of 1 to 256 characters without control characters');
  const url = `opc.tcp://${match[1]!.toLowerCase()}:${port}${match[3] ?? ''}`;
  return { transport: { host, port }, url, securityMode, securityPolicy, userName };
}

/**
 * A NodeId in the standard string form.
 * @throws the fault's ValueError when it is missing or not one.
 */
export function checkedNodeId(text: string | undefined, property: string, fault: MetadataFault): string {
  const nodeId = text?.trim();
  if (nodeId === undefined || nodeId === '') throw fault(property, 'is missing');
  if (!NODE_ID.test(nodeId)) throw fault(property, 'is not a NodeId in the standard string form (e.g. ns=2;s=Line1.Speed)');
  return nodeId;
}

/**
 * Reads and checks the OPC UA metadata of `parameter`.
 * @throws ValueError naming the parameter and the property at fault.
 */
export function opcuaMetadata(parameter: ParameterDeclaration): OpcuaMetadata {
  const meta = parameter.metadata;
  const fault = metadataFault(`parameter "${parameter.name}"`);
  const samplingText = meta.get(sm.hasOPCUASamplingIntervalMs)?.trim();
  const samplingIntervalMs = samplingText === undefined ? OPCUA_DEFAULT_SAMPLING_MS : Number(samplingText);
  if (!/^\d{1,7}$/u.test(samplingText ?? '0'))
    throw fault(sm.hasOPCUASamplingIntervalMs, 'is not a number of milliseconds from 0 to 9999999');
  return {
    endpoint: opcuaEndpoint(meta, fault),
    nodeId: checkedNodeId(meta.get(sm.hasOPCUANodeId), sm.hasOPCUANodeId, fault),
    samplingIntervalMs,
  };
}

function oneOf<T extends string>(text: string | undefined, allowed: readonly T[], fallback: T, fault: () => Error): T {
  if (text === undefined) return fallback;
  const found = allowed.find((a) => a === text.trim());
  if (found === undefined) throw fault();
  return found;
}
