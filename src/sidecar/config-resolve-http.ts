/**
 * Resolves the security settings: the HTTP surface's bearer token and TLS files, and the tokens
 * sent with outgoing event triggers. Like the store password, a token comes from the
 * environment or from the first line of a file, never from a config file or a flag; problems
 * name the field and the file, never a token or a key.
 */
import { readFile } from 'node:fs/promises';
import { normalizeAddress } from '../iri/address.js';
import { tokenProblem } from '../http/bearer-auth.js';
import { tlsProblem } from '../middleware/surface/security-options.js';
import { joinField } from './config-issues.js';
import type { HttpConfig, OutgoingTokensConfig } from './config-types.js';
import { absolutePath, httpUrlProblem, readSecret, readTokens, report, at, textAt, type ResolveContext } from './config-values.js';
import type { TokenSet } from '../http/named-tokens.js';

/** Reads the token in `file` (its first line) and checks it; undefined after reporting a problem. */
function tokenOfFile(ctx: ResolveContext, path: string[], file: string): string | undefined {
  const token = readSecret(ctx, path, file);
  const problem = token === undefined ? undefined : tokenProblem(token);
  if (problem !== undefined) report(ctx, path, `the token in it ${problem}`, file);
  return problem === undefined ? token : undefined;
}

/**
 * A token given directly (the environment's secret at `secretPath`) or as a file (`filePath`;
 * with `named`, a file of named tokens, see src/http/named-tokens.ts). A higher layer naming one
 * drops the other (config-layers); both from one layer is a problem.
 */
function tokenAt(ctx: ResolveContext, secretPath: string[], filePath: string[]): { file?: string; token?: string };
function tokenAt(ctx: ResolveContext, secretPath: string[], filePath: string[], named: 'named'): { file?: string; token?: TokenSet };
function tokenAt(ctx: ResolveContext, secretPath: string[], filePath: string[], named?: 'named'): { file?: string; token?: TokenSet } {
  const secret = textAt(ctx, secretPath);
  const given = textAt(ctx, filePath);
  if (secret !== undefined && given !== undefined) {
    report(ctx, secretPath, `and ${joinField(filePath)} are both set: give the token or the file holding it, not both`);
    return {};
  }
  if (secret !== undefined) {
    const problem = tokenProblem(secret);
    if (problem !== undefined) report(ctx, secretPath, `the token ${problem}`);
    return problem === undefined ? { token: secret } : {};
  }
  if (given === undefined) return {};
  const file = absolutePath(ctx, filePath, given);
  const token = named ? readTokens(ctx, filePath, file) : tokenOfFile(ctx, filePath, file);
  return { file, ...(token !== undefined && { token }) };
}

/** The PEM text in `file`; undefined after reporting that it cannot be read or holds no PEM block. */
export async function readPem(ctx: ResolveContext, path: string[], file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    report(ctx, path, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, file);
    return undefined;
  }
  if (!text.includes('-----BEGIN ')) report(ctx, path, 'holds no PEM block (expected "-----BEGIN ...")', file);
  return text.includes('-----BEGIN ') ? text : undefined;
}

/** The certificate and key files, read and checked to form a usable pair. */
async function resolveTls(ctx: ResolveContext): Promise<Pick<HttpConfig, 'tlsCertFile' | 'tlsKeyFile' | 'tls'>> {
  const certValue = textAt(ctx, ['http', 'tlsCertFile']);
  const keyValue = textAt(ctx, ['http', 'tlsKeyFile']);
  if (certValue === undefined && keyValue === undefined) return {};
  if (certValue === undefined || keyValue === undefined) {
    const [missing, given] = certValue === undefined ? ['tlsCertFile', 'tlsKeyFile'] : ['tlsKeyFile', 'tlsCertFile'];
    report(ctx, ['http', missing], `is required with http.${given}: HTTPS needs a certificate and its private key`);
    return {};
  }
  const tlsCertFile = absolutePath(ctx, ['http', 'tlsCertFile'], certValue);
  const tlsKeyFile = absolutePath(ctx, ['http', 'tlsKeyFile'], keyValue);
  const cert = await readPem(ctx, ['http', 'tlsCertFile'], tlsCertFile);
  const key = await readPem(ctx, ['http', 'tlsKeyFile'], tlsKeyFile);
  if (cert === undefined || key === undefined) return { tlsCertFile, tlsKeyFile };
  const problem = tlsProblem(cert, key);
  if (problem !== undefined)
    report(ctx, ['http', 'tlsCertFile'], `and http.tlsKeyFile are not a usable certificate and private key: ${problem}`, tlsCertFile);
  return { tlsCertFile, tlsKeyFile, ...(problem === undefined && { tls: { cert, key } }) };
}

/** `http`: the surface's token and TLS, or undefined when none is set (open, plain HTTP). */
export async function resolveHttp(ctx: ResolveContext): Promise<HttpConfig | undefined> {
  const { file, token } = tokenAt(ctx, ['http', 'token'], ['http', 'tokenFile'], 'named');
  const http: HttpConfig = {
    ...(file !== undefined && { tokenFile: file }),
    ...(token !== undefined && { token }),
    ...(await resolveTls(ctx)),
  };
  return Object.keys(http).length > 0 ? http : undefined;
}

function byAddress(ctx: ResolveContext): Pick<OutgoingTokensConfig, 'byAddressFiles' | 'byAddress'> {
  const files = at(ctx, ['outgoingTokens', 'byAddressFiles']);
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return {};
  const byAddressFiles: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  for (const [address, named] of Object.entries(files as Record<string, unknown>)) {
    const path = ['outgoingTokens', 'byAddressFiles', address];
    const problem = httpUrlProblem(address, 'https://robot1.plant.local:8443');
    if (problem !== undefined || typeof named !== 'string') {
      if (problem !== undefined) report(ctx, path, problem);
      continue;
    }
    const key = normalizeAddress(address);
    if (Object.hasOwn(byAddressFiles, key)) {
      report(ctx, path, `names the address ${key} a second time (addresses are compared normalized)`);
      continue;
    }
    byAddressFiles[key] = absolutePath(ctx, ['outgoingTokens', 'byAddressFiles'], named);
    const token = tokenOfFile(ctx, path, byAddressFiles[key]);
    if (token !== undefined) tokens[key] = token;
  }
  return Object.keys(byAddressFiles).length === 0 ? {} : { byAddressFiles, byAddress: tokens };
}

/** `outgoingTokens`: the plant token and the per-address tokens, or undefined when none is set. */
export function resolveOutgoingTokens(ctx: ResolveContext): OutgoingTokensConfig | undefined {
  const { file, token } = tokenAt(ctx, ['outgoingTokens', 'default'], ['outgoingTokens', 'defaultFile']);
  const tokens: OutgoingTokensConfig = {
    ...(file !== undefined && { defaultFile: file }),
    ...(token !== undefined && { default: token }),
    ...byAddress(ctx),
  };
  return Object.keys(tokens).length > 0 ? tokens : undefined;
}
