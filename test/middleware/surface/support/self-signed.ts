/**
 * TLS material for tests, made at test time: a self-signed certificate for 127.0.0.1 and
 * localhost generated with the machine's `openssl` into a temporary directory, and a fetch
 * that trusts it (an undici Agent with the certificate as its only CA).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchFunction } from '../../../../src/middleware/options.js';

/** A generated certificate and key, as files and as PEM text. */
export interface SelfSigned {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/**
 * Generates a P-256 key and a self-signed certificate valid for two days, for `127.0.0.1` and
 * `localhost` (subjectAltName), with `openssl req -x509`.
 * @example const tls = await selfSigned(); new SemanticMiddleware({ ..., tls: { cert: tls.cert, key: tls.key } });
 */
export async function selfSigned(): Promise<SelfSigned> {
  const dir = await mkdtemp(join(tmpdir(), 'sm-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  const args = [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '2',
  ];
  args.push('-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost');
  await promisify(execFile)('openssl', args, { timeout: 30_000 });
  return {
    dir,
    certFile,
    keyFile,
    cert: await readFile(certFile, 'utf8'),
    key: await readFile(keyFile, 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A fetch (for the middleware's `fetch` option) that trusts `ca` and nothing else, and its agent. */
export function trustingFetch(ca: string): { fetch: FetchFunction; agent: Agent } {
  const agent = new Agent({ connect: { ca } });
  const fetch: FetchFunction = (url, init) => undiciFetch(url, { ...init, dispatcher: agent });
  return { fetch, agent };
}
