/**
 * Credentials and TLS of the transports connectors reach (MQTT brokers): one default and
 * per-transport entries keyed by `host:port`. Checked once, at construction; error messages
 * name the option and the key, never a password or a key. These values are southbound secrets:
 * never logged, never served.
 */
import { isIP } from 'node:net';
import { ValueError } from '../errors.js';
import { preview } from '../iri/validate.js';
import type { TransportAddress } from './binding.js';

/** The credentials of one transport: PEM text, not file names. Every field optional. */
export interface TransportCredentials {
  /** User name sent when connecting. */
  username?: string;
  /** Password sent when connecting (with `username`). */
  password?: string;
  /** Connect with TLS; implied by `ca`, `cert` or `key`. Default false. */
  tls?: boolean;
  /** PEM CA certificate(s) the server's certificate must chain to; default the system's. */
  ca?: string;
  /** PEM client certificate (chain), for brokers that ask for one (with `key`). */
  cert?: string;
  /** PEM private key of `cert`. */
  key?: string;
}

/**
 * Credentials of the connector transports: `default` for every transport without an entry of
 * its own in `byAddress`, keyed `host:port` (`broker.plant.local:8883`, `[::1]:1883`).
 * @example { default: { username: 'sidecar', password, tls: true, ca: caPem }, byAddress: { 'edge7:1883': { username: 'edge' } } }
 */
export interface ConnectorCredentials {
  default?: TransportCredentials;
  byAddress?: Readonly<Record<string, TransportCredentials>>;
}

/** {@link ConnectorCredentials} after validation: keys normalized. */
export interface ResolvedConnectorCredentials {
  readonly default: Readonly<TransportCredentials> | undefined;
  readonly byAddress: ReadonlyMap<string, Readonly<TransportCredentials>>;
}

const FIELDS = ['username', 'password', 'tls', 'ca', 'cert', 'key'] as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The key of a transport in `byAddress`: lower-case host (IPv6 in brackets), colon, port. */
export function transportKey(transport: TransportAddress): string {
  const host = transport.host.toLowerCase();
  return `${isIP(host) === 6 ? `[${host}]` : host}:${transport.port}`;
}

function parseKey(text: string, what: string): string {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]\s]+):(\d{1,5})$/u.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535)
    throw new ValueError(`${what} key ${preview(text)} is not "host:port" (e.g. "broker.plant.local:8883")`);
  return transportKey({ host: match[1]!.replace(/^\[|\]$/gu, ''), port });
}

function checkEntry(value: unknown, what: string): Readonly<TransportCredentials> {
  if (!isPlainObject(value)) throw new ValueError(`${what} must be an object { ${FIELDS.join(', ')} }`);
  const unknown = Object.keys(value).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw new ValueError(`${what} has the unknown key ${preview(unknown)} (expected ${FIELDS.join(', ')})`);
  for (const field of FIELDS) {
    const v = value[field];
    if (v === undefined) continue;
    const expected = field === 'tls' ? 'boolean' : 'string';
    // The value is not shown: it may be a password or a key given in the wrong place.
    if (typeof v !== expected || v === '') throw new ValueError(`${what}.${field} must be a non-empty ${expected}`);
  }
  if (value.password !== undefined && value.username === undefined) throw new ValueError(`${what}.password needs ${what}.username`);
  if ((value.cert === undefined) !== (value.key === undefined)) throw new ValueError(`${what}.cert and ${what}.key go together`);
  for (const pem of ['ca', 'cert', 'key'] as const)
    if (value[pem] !== undefined && !(value[pem] as string).includes('-----BEGIN '))
      throw new ValueError(`${what}.${pem} holds no PEM block (expected "-----BEGIN ..."; give the file's content, not its name)`);
  return Object.freeze({ ...(value as TransportCredentials) });
}

/**
 * `connectorCredentials`: undefined for `null`/undefined (anonymous, plain TCP), else the checked entries.
 * @throws ValueError naming the option and key (never the secret) for anything unusable.
 */
export function checkConnectorCredentials(value: unknown): ResolvedConnectorCredentials | undefined {
  if (value == null) return undefined;
  if (!isPlainObject(value)) throw new ValueError('connectorCredentials must be an object { default?, byAddress? }');
  const unknown = Object.keys(value).find((k) => k !== 'default' && k !== 'byAddress');
  if (unknown !== undefined)
    throw new ValueError(`connectorCredentials has the unknown key ${preview(unknown)} (expected default, byAddress)`);
  const byAddress = new Map<string, Readonly<TransportCredentials>>();
  const given = value.byAddress ?? {};
  if (!isPlainObject(given)) throw new ValueError('connectorCredentials.byAddress must be an object keyed by "host:port"');
  for (const [address, entry] of Object.entries(given)) {
    const key = parseKey(address, 'connectorCredentials.byAddress');
    if (byAddress.has(key)) throw new ValueError(`connectorCredentials.byAddress names ${preview(key)} twice`);
    byAddress.set(key, checkEntry(entry, `connectorCredentials.byAddress[${preview(address)}]`));
  }
  const fallback = value.default == null ? undefined : checkEntry(value.default, 'connectorCredentials.default');
  return Object.freeze({ default: fallback, byAddress });
}

/** The credentials of `transport`: its own entry, else the default, else undefined (anonymous). */
export function credentialsFor(
  credentials: ResolvedConnectorCredentials | undefined,
  transport: TransportAddress,
): Readonly<TransportCredentials> | undefined {
  return credentials?.byAddress.get(transportKey(transport)) ?? credentials?.default;
}

/** Whether a connection with these credentials uses TLS. */
export const usesTls = (credentials: TransportCredentials | undefined): boolean =>
  credentials !== undefined && (credentials.tls === true || credentials.ca !== undefined || credentials.cert !== undefined);
