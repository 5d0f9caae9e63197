/**
 * Resolves the broker settings into the middleware's `connectorCredentials`: the default user
 * name, password (from `SIDECAR_BROKER_PASSWORD` or the first line of a file, never from a config
 * file or a flag) and TLS files, and per-broker entries keyed `host:port`. Problems name the
 * field and the file, never a password or a key.
 */
import { checkConnectorCredentials, type TransportCredentials } from '../connectors/credentials.js';
import { joinField } from './config-issues.js';
import { readPem } from './config-resolve-http.js';
import type { BrokerConfig, BrokerFilesConfig } from './config-types.js';
import { absolutePath, at, readSecret, report, textAt, type ResolveContext } from './config-values.js';

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One entry's files made absolute and read: what was configured, and the credentials it gives. */
async function resolveEntry(
  ctx: ResolveContext,
  path: readonly string[],
  given: Record<string, unknown>,
  password: string | undefined,
): Promise<{ files: BrokerFilesConfig; credentials: TransportCredentials }> {
  const files: BrokerFilesConfig = {};
  const credentials: TransportCredentials = {};
  if (typeof given.username === 'string') files.username = credentials.username = given.username;
  if (typeof given.tls === 'boolean') files.tls = credentials.tls = given.tls;
  if (password !== undefined) credentials.password = password;
  if (typeof given.passwordFile === 'string') {
    files.passwordFile = absolutePath(ctx, [...path, 'passwordFile'], given.passwordFile);
    const secret = readSecret(ctx, [...path, 'passwordFile'], files.passwordFile);
    if (secret !== undefined) credentials.password = secret;
  }
  for (const [field, pem] of [
    ['caFile', 'ca'],
    ['certFile', 'cert'],
    ['keyFile', 'key'],
  ] as const) {
    const named = given[field];
    if (typeof named !== 'string') continue;
    const file = (files[field] = absolutePath(ctx, [...path, field], named));
    const text = await readPem(ctx, [...path, field], file);
    if (text !== undefined) credentials[pem] = text;
  }
  if ((files.certFile === undefined) !== (files.keyFile === undefined))
    report(
      ctx,
      [...path, files.certFile === undefined ? 'certFile' : 'keyFile'],
      'is required with the other: a client certificate needs its key',
    );
  if (credentials.password !== undefined && credentials.username === undefined)
    report(ctx, [...path, 'username'], 'is required with a password');
  return { files, credentials };
}

/** The default entry: the `broker.*` settings other than `byAddress`. */
function defaults(ctx: ResolveContext): { given: Record<string, unknown>; password: string | undefined } {
  const given = Object.fromEntries(
    ['username', 'passwordFile', 'tls', 'caFile', 'certFile', 'keyFile'].flatMap((k) => {
      const v = at(ctx, ['broker', k]);
      return v === undefined ? [] : [[k, v]];
    }),
  );
  const password = textAt(ctx, ['broker', 'password']);
  if (password !== undefined && given.passwordFile !== undefined)
    report(
      ctx,
      ['broker', 'password'],
      `and ${joinField(['broker', 'passwordFile'])} are both set: give the password or its file, not both`,
    );
  return { given, password };
}

/** `broker`: the resolved credentials, or undefined when no broker setting is given. */
export async function resolveBroker(ctx: ResolveContext): Promise<BrokerConfig | undefined> {
  const { given, password } = defaults(ctx);
  const byAddressGiven = at(ctx, ['broker', 'byAddress']);
  const entries = isMapping(byAddressGiven) ? Object.entries(byAddressGiven) : [];
  if (Object.keys(given).length === 0 && password === undefined && entries.length === 0) return undefined;
  const fallback = await resolveEntry(ctx, ['broker'], given, password);
  const byAddress: Record<string, BrokerFilesConfig> = {};
  const byAddressCredentials: Record<string, TransportCredentials> = {};
  for (const [address, entry] of entries) {
    if (!isMapping(entry)) continue;
    const resolved = await resolveEntry(ctx, ['broker', 'byAddress', address], entry, undefined);
    byAddress[address] = resolved.files;
    byAddressCredentials[address] = resolved.credentials;
  }
  const credentials = {
    ...(Object.keys(fallback.credentials).length > 0 && { default: fallback.credentials }),
    ...(entries.length > 0 && { byAddress: byAddressCredentials }),
  };
  try {
    checkConnectorCredentials(credentials);
  } catch (error) {
    // The message names the option and the key, never the secret.
    report(ctx, ['broker'], (error as Error).message.replace(/connectorCredentials(\.default)?/gu, 'broker'));
  }
  return { ...fallback.files, ...(entries.length > 0 && { byAddress }), credentials };
}
