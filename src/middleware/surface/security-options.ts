/**
 * The security options of a middleware instance, checked once at construction: the token its
 * HTTP surface requires, the tokens it sends to other Services, and its TLS certificate. Error
 * messages name the option and what is wrong, never a token or a key.
 */
import { createSecureContext } from 'node:tls';
import { ValueError } from '../../errors.js';
import { normalizeAddress, normalizeHttpAddress } from '../../iri/address.js';
import { preview } from '../../iri/validate.js';
import type { OutgoingTokens, ResolvedOutgoingTokens, TlsOptions } from '../options.js';
import { assertToken } from '../../http/bearer-auth.js';
import { assertNamedTokens, type TokenSet } from '../../http/named-tokens.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// What a wrong value is, without its content: a token or a PEM key passed in the wrong place
// must not end up in an error message.
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return value === null ? 'null' : 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function refuseUnknownKeys(value: Record<string, unknown>, what: string, known: readonly string[]): void {
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new ValueError(`${what} has the unknown key ${preview(unknown[0])} (expected ${known.join(', ')})`);
}

/**
 * `httpToken`: undefined for `null`/undefined (no authentication), else the checked token or
 * named tokens.
 * @throws ValueError when a token is too short or holds characters a header cannot carry, or a
 *   name is unusable or repeated.
 */
export function checkHttpToken(value: unknown): TokenSet | undefined {
  if (value == null) return undefined;
  return Array.isArray(value) ? assertNamedTokens(value, 'httpToken') : assertToken(value, 'httpToken');
}

/**
 * `outgoingTokens`: the default token and the per-address tokens, addresses normalized.
 * @throws ValueError for a bad token, an address that is not an absolute http(s) URL, or two
 *   spellings of one address with different tokens.
 */
export function checkOutgoingTokens(value: unknown): ResolvedOutgoingTokens | undefined {
  if (value == null) return undefined;
  if (!isPlainObject(value)) throw new ValueError(`outgoingTokens must be an object { default?, byAddress? }, got ${kindOf(value)}`);
  refuseUnknownKeys(value, 'outgoingTokens', ['default', 'byAddress']);
  const { default: fallback, byAddress = {} } = value as OutgoingTokens;
  if (!isPlainObject(byAddress))
    throw new ValueError(`outgoingTokens.byAddress must be an object keyed by address, got ${kindOf(byAddress)}`);
  const map = new Map<string, string>();
  for (const [address, token] of Object.entries(byAddress)) {
    const key = normalizeHttpAddress(address, 'outgoingTokens.byAddress key');
    assertToken(token, `outgoingTokens.byAddress[${preview(address)}]`);
    if (map.has(key) && map.get(key) !== token)
      throw new ValueError(`outgoingTokens.byAddress names ${preview(key)} twice with different tokens`);
    map.set(key, token);
  }
  return Object.freeze({ default: fallback == null ? undefined : assertToken(fallback, 'outgoingTokens.default'), byAddress: map });
}

/**
 * The token to send to the Service at `address`: its own entry (by normalized address), else
 * the default, else undefined (no Authorization header).
 * @example outgoingTokenFor(tokens, 'https://Robot1.plant.local:8443/')
 */
export function outgoingTokenFor(tokens: ResolvedOutgoingTokens | undefined, address: string): string | undefined {
  if (tokens === undefined) return undefined;
  let key = address;
  try {
    key = normalizeAddress(address);
  } catch {
    // An address another implementation registered unnormalized still gets the default.
  }
  return tokens.byAddress.get(key) ?? tokens.default;
}

/**
 * What keeps `cert` and `key` (PEM text) from serving TLS, or undefined when they form a usable
 * pair. The text is the TLS library's reason; it holds no key material.
 * @example tlsProblem(cert, otherKey) // 'error:05800074:x509 certificate routines::key values mismatch'
 */
export function tlsProblem(cert: string, key: string): string | undefined {
  try {
    createSecureContext({ cert, key });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * `tls`: the PEM certificate (chain) and private key, checked to form a usable pair now, so a
 * bad file fails the construction instead of the first connection.
 * @throws ValueError naming what is missing or the TLS library's reason (no key material).
 */
export function checkTls(value: unknown): TlsOptions | undefined {
  if (value == null) return undefined;
  if (!isPlainObject(value)) throw new ValueError(`tls must be an object { cert, key } of PEM text, got ${kindOf(value)}`);
  refuseUnknownKeys(value, 'tls', ['cert', 'key']);
  for (const part of ['cert', 'key'] as const) {
    const pem = value[part];
    if (typeof pem !== 'string' || !pem.includes('-----BEGIN '))
      throw new ValueError(
        `tls.${part} must be PEM text (-----BEGIN ...), got ${typeof pem === 'string' ? 'text without a PEM block' : kindOf(pem)}`,
      );
  }
  const tls = { cert: value.cert as string, key: value.key as string };
  const problem = tlsProblem(tls.cert, tls.key);
  if (problem !== undefined) throw new ValueError(`tls.cert and tls.key are not a usable certificate and private key: ${problem}`);
  return Object.freeze(tls);
}
