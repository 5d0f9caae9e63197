import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { selfSigned, type SelfSigned } from '../middleware/surface/support/self-signed.js';

// docker/healthcheck.cjs, the image's HEALTHCHECK, run as docker runs it (a child process with
// SIDECAR_PORT set) against a plain and a TLS server answering /healthz.

const script = fileURLToPath(new URL('../../docker/healthcheck.cjs', import.meta.url));

/** The exit code of the health check against port `port`. */
function check(port: number): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { env: { PATH: process.env.PATH, SIDECAR_PORT: String(port) }, timeout: 20_000 }, (error) =>
      resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : -1),
    );
  });
}

/** Starts `server` on a free loopback port, answering /healthz with `status`. */
async function listen(server: Server, status: number): Promise<number> {
  server.on('request', (req, res) => res.writeHead(req.url === '/healthz' ? status : 404).end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('docker/healthcheck.cjs', () => {
  let tls: SelfSigned;
  const servers: Server[] = [];

  beforeAll(async () => {
    tls = await selfSigned();
  });

  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await tls.remove();
  });

  it('should pass when a plain HTTP sidecar answers 200', async () => {
    const server = createHttpServer();
    servers.push(server);
    expect(await check(await listen(server, 200))).toBe(0);
  });

  it('should pass when a TLS sidecar answers 200, whatever its certificate names', async () => {
    const server = createHttpsServer({ cert: tls.cert, key: tls.key });
    servers.push(server);
    expect(await check(await listen(server, 200))).toBe(0);
  });

  it('should fail when the sidecar answers 503, over TLS or not', async () => {
    const plain = createHttpServer();
    const secure = createHttpsServer({ cert: tls.cert, key: tls.key });
    servers.push(plain, secure);
    expect(await check(await listen(plain, 503))).toBe(1);
    expect(await check(await listen(secure, 503))).toBe(1);
  });

  it('should fail when nothing listens', async () => {
    const server = createHttpServer();
    const port = await listen(server, 200);
    await new Promise((resolve) => server.close(resolve));
    expect(await check(port)).toBe(1);
  });
});
