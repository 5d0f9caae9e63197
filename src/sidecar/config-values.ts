/**
 * Checks of single configuration values that need more than the schema (IRIs and CURIEs, names,
 * URLs, paths, hosts), and the context the resolvers share to report problems with their source.
 * Each check returns a problem text (or undefined), never throws, so every problem is collected.
 */
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { assertDevicePath } from '../device/bindings/http/target.js';
import { isHttpAddress } from '../iri/address.js';
import { assertName } from '../iri/mint.js';
import { CURIE_PREFIXES, expandCurie } from '../iri/curie.js';
import { iriProblem } from '../iri/validate.js';
import { LIMITS } from '../limits.js';
import { readSecretFile, readSecretText } from '../lib/secret-file.js';
import { tokenProblem } from '../http/bearer-auth.js';
import { parseTokenFile, type TokenSet } from '../http/named-tokens.js';
import { joinField, showValue, type ConfigIssue, type ConfigSource } from './config-issues.js';
import { pathKey, sourceAt, type Deprecation, type Merged } from './config-layers.js';

/** What the resolvers share: the merged settings with their sources, and the problems found. */
export interface ResolveContext {
  merged: Merged;
  issues: ConfigIssue[];
  /** Base of relative paths that did not come from a config file. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  purpose: 'start' | 'watchdog';
  /** Deprecated names used, reported once loading is done. */
  deprecations: Deprecation[];
}

/** The merged value at `path` (`['store', 'url']`), whatever its type. */
export const at = (ctx: ResolveContext, path: readonly string[]): unknown => ctx.merged.get(pathKey(path))?.value;

/** The merged value at `path` when it is text (the schema reports any other type). */
export function textAt(ctx: ResolveContext, path: readonly string[]): string | undefined {
  const value = at(ctx, path);
  return typeof value === 'string' ? value : undefined;
}

/** Records a problem with the value at `path`, naming the value's source. */
export function report(ctx: ResolveContext, path: readonly string[], message: string, value?: unknown, source?: ConfigSource): void {
  const field = joinField(path);
  const from = source ?? sourceAt(ctx.merged, path);
  ctx.issues.push({ ...(from && { source: from }), field, message, ...(value !== undefined && { got: showValue(value, field) }) });
}

/**
 * `value` as an absolute path: a relative path from a config file is taken relative to that
 * file's directory (so `config/door1.yaml` works from any working directory), any other
 * relative to the working directory.
 */
export function absolutePath(ctx: ResolveContext, path: readonly string[], value: string): string {
  if (isAbsolute(value)) return resolve(value);
  const source = sourceAt(ctx.merged, path);
  return resolve(source?.kind === 'file' ? source.dir : ctx.cwd, value);
}

/** Reads the first line of a secret file; reports (without the content) when it cannot. */
export function readSecret(ctx: ResolveContext, path: readonly string[], file: string): string | undefined {
  const read = readSecretFile(file);
  if ('problem' in read) report(ctx, path, read.problem, file);
  return 'secret' in read ? read.secret : undefined;
}

/**
 * The tokens of a token file: its first line alone (a single-token file) or named tokens (see
 * src/http/named-tokens.ts); undefined after reporting a problem (without a token).
 */
export function readTokens(ctx: ResolveContext, path: readonly string[], file: string): TokenSet | undefined {
  const read = readSecretText(file);
  if ('problem' in read) {
    report(ctx, path, read.problem, file);
    return undefined;
  }
  let tokens: TokenSet;
  try {
    tokens = parseTokenFile(read.text);
  } catch (error) {
    report(ctx, path, (error as Error).message, file);
    return undefined;
  }
  const problem = typeof tokens === 'string' ? tokenProblem(tokens) : undefined;
  if (problem !== undefined) report(ctx, path, `the token in it ${problem}`, file);
  return problem === undefined ? tokens : undefined;
}

/** Prefixes a class (or resource) field may use instead of a full IRI. */
export { CURIE_PREFIXES };

/** Expands a CURIE field value; see {@link expandCurie}. */
export const expandIri = expandCurie;

/** Problem with a workflow or state-property name, checked by `assertName`. */
export function nameProblem(value: string): string | undefined {
  try {
    assertName(value);
    return undefined;
  } catch {
    return `is not a valid name: use 1 to ${LIMITS.maxNameLength} of the characters A-Z a-z 0-9 . _ ~ -`;
  }
}

/**
 * Problem with an http(s) URL setting (`device.url`, `address`, `store.updateUrl`). Credentials
 * are refused (they belong in `user`/`passwordFile`); `bare` also refuses a query or fragment,
 * as the device transport does for its base URL.
 */
export function httpUrlProblem(value: string, example: string, bare = false): string | undefined {
  if (!isHttpAddress(value) || iriProblem(value) !== undefined) return `is not an absolute http(s) URL (expected e.g. "${example}")`;
  if (/^[a-z]+:\/\/[^/?#]*@/iu.test(value)) return 'must not hold credentials (user:password@)';
  if (bare && /[?#]/u.test(value)) return `must not hold a query or fragment (expected e.g. "${example}")`;
  return undefined;
}

/**
 * Problem with a device path (`workflows[i].path`, `states[i].path`), by the HTTP binding's rule
 * (the only binding with paths), checked here so that a bad file is refused before anything starts.
 */
export function devicePathProblem(value: string): string | undefined {
  try {
    assertDevicePath(value, 'path');
    return undefined;
  } catch {
    return 'must be a path on the device starting with "/", without spaces, "#", "." or ".." segments (expected e.g. "/door/open")';
  }
}

/** Linux keeps a Unix socket path in 108 bytes, the last one a NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/** Problem with an absolute Unix socket path. */
export function socketPathProblem(path: string): string | undefined {
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH_BYTES)
    return `is ${bytes} bytes long, but a Unix socket path may be at most ${MAX_SOCKET_PATH_BYTES} (use a shorter path)`;
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f]/u.test(path)) return 'must not hold control characters';
  return undefined;
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/u;

/** Problem with a listening host (a host name or an IPv4/IPv6 address without brackets). */
export function hostProblem(value: string): string | undefined {
  return isIP(value) !== 0 || HOST_NAME.test(value) ? undefined : 'must be a host name or an IP address (expected e.g. "127.0.0.1")';
}

/** True for hosts that listen on every interface, which no one can use as an address. */
export const isWildcardHost = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '::0';

/** `http://<host>:<port>` (`https://` when `secure`), with brackets around an IPv6 host. */
export function addressOf(host: string, port: number, secure = false): string {
  return `${secure ? 'https' : 'http'}://${isIP(host) === 6 ? `[${host}]` : host.toLowerCase()}:${port}`;
}
