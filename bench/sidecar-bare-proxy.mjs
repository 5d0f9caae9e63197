// The reference for the sidecar's proxy hop: a bare Node proxy with no checks at all. One
// http.createServer forwards every request (method, path, body) to the device on a Unix socket
// through one keep-alive agent and pipes the answer back. Prints `{"address": ...}` when listening.
// Usage: node bench/sidecar-bare-proxy.mjs <device socket>
import { Agent, createServer, request } from 'node:http';

const socketPath = process.argv[2];
const agent = new Agent({ keepAlive: true, scheduling: 'lifo' });
const server = createServer((req, res) => {
  const upstream = request({ socketPath, agent, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    res.statusCode = 502;
    res.end();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(JSON.stringify({ address: `http://127.0.0.1:${port}` }));
});
process.on('SIGTERM', () => process.exit(0));
