// The second reference for the sidecar's proxy hop: nginx as a reverse proxy to the same device
// socket, one process (`master_process off`, so it is one process as the sidecar and the bare
// proxy are, and dies with the bench), keep-alive to the device, no access log. Debian's
// nginx-light, installed by scripts/nginx.sh when missing; without it the bench says why and
// measures the other proxies.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './sidecar-support.mjs';

const HOST = '127.0.0.1';

/** A port free on loopback now (nginx cannot listen on port 0 and report it). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, HOST, resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, HOST, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

function config(dir, port, deviceSocket) {
  // Root runs it here: without `user`, a single process keeps the caller's user (no drop to
  // nobody, who could not open the bench's device socket).
  return `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'nginx-body')};
  proxy_temp_path ${join(dir, 'nginx-proxy')};
  fastcgi_temp_path ${join(dir, 'nginx-fastcgi')};
  uwsgi_temp_path ${join(dir, 'nginx-uwsgi')};
  scgi_temp_path ${join(dir, 'nginx-scgi')};
  upstream device {
    server unix:${deviceSocket};
    keepalive 64;
  }
  server {
    listen ${HOST}:${port};
    keepalive_requests 1000000;
    keepalive_timeout 65s;
    location / {
      proxy_pass http://device;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

/**
 * Starts nginx proxying `http://127.0.0.1:<port>/...` to `deviceSocket`; resolves with
 * `{ address, pid, version }`, or `{ skipped }` saying why there is none.
 */
export async function startNginxProxy(kids, dir, deviceSocket) {
  let bin;
  try {
    ({ stdout: bin } = await promisify(execFile)('bash', [join(ROOT, 'scripts/nginx.sh'), 'path'], { timeout: 180_000 }));
  } catch (error) {
    return { skipped: `no nginx: ${(error.stderr || error.message).trim().split('\n').at(-1)}` };
  }
  bin = bin.trim();
  const { stderr: version } = await promisify(execFile)(bin, ['-v']);
  const port = await freePort();
  const file = join(dir, 'nginx.conf');
  await writeFile(file, config(dir, port, deviceSocket));
  const { pid } = await kids.program('nginx', bin, ['-e', join(dir, 'nginx-error.log'), '-p', dir, '-c', file], () => accepts(port));
  return { address: `http://${HOST}:${port}`, pid, version: version.trim().replace(/^nginx version: /, '') };
}
