#!/usr/bin/env node
// A mock PLC bridge: the device process a semantic sidecar proxies to. Plain Node, no
// dependencies, no build step, to show how little a bridge "in any language" needs: JSON over
// HTTP on a Unix socket or loopback TCP, one path per workflow, GET /state/<name> for live values,
// and {"detail": "..."} bodies for failures. See README.md beside this file.
import { rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `Usage: node bridge.mjs --kind door|robot|conveyor (--socket PATH | --port N)
                       [--delay-ms N] [--fail-rate F] [--quiet]
  --kind        which device to simulate (required)
  --socket      listen on this Unix socket (a stale socket file is removed first)
  --port        listen on 127.0.0.1:N (0 picks a free port; the listening line names it)
  --delay-ms    time a workflow takes before it answers (default 50; 0: at once)
  --fail-rate   share of workflow calls that fail with 500, 0..1 (default 0)
  --quiet       no log line per request (the listening and stopped lines stay)`;

/** The simulated devices: their initial state, workflows (POST /<name>) and state reads. */
const KINDS = {
  door: {
    initial: () => ({ door: 'closed' }),
    workflows: {
      open: (s) => ({ door: (s.door = 'open') }),
      close: (s) => ({ door: (s.door = 'closed') }),
    },
    states: { door: (s) => s.door },
  },
  robot: {
    initial: () => ({ gripper: 'empty', item: null }),
    workflows: {
      pick: (s, args) => {
        s.gripper = 'holding';
        s.item = args.item ?? 'workpiece';
        return { gripper: s.gripper, item: s.item };
      },
      place: (s) => {
        const placed = s.item;
        Object.assign(s, { gripper: 'empty', item: null });
        return { gripper: s.gripper, placed };
      },
    },
    states: { gripper: (s) => s.gripper },
  },
  conveyor: {
    initial: () => ({ position: 0 }),
    workflows: {
      move: (s, args) => {
        const distance = args.distance ?? 1;
        if (typeof distance !== 'number' || !Number.isFinite(distance))
          throw new BadRequest(`distance must be a number, got ${JSON.stringify(distance)}`);
        s.position += distance;
        return { belt: { position: s.position } };
      },
    },
    states: { belt: (s) => ({ position: s.position, running: false }) },
  },
};

class BadRequest extends Error {}

/** A usage error: the message and the usage text, exit 2. */
function fail(message) {
  process.stderr.write(`bridge: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** A failure to start with valid options: the message alone (the usage would not help), exit 2. */
function die(message) {
  process.stderr.write(`bridge: ${message}\n`);
  process.exit(2);
}

/**
 * Why a Unix socket cannot be created at `path`, when its directory is the reason. Node reports a
 * missing directory as EACCES or ENOENT, neither of which says what to do.
 */
function socketDirectoryProblem(path) {
  const dir = dirname(resolve(path));
  let stats;
  try {
    stats = statSync(dir);
  } catch {
    return `the socket's directory ${dir} does not exist: create it first (mkdir -p ${dir}, as a user who may write there) or pass another --socket`;
  }
  if (!stats.isDirectory()) return `${dir} is not a directory: pass another --socket`;
  return undefined;
}

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        kind: { type: 'string' },
        socket: { type: 'string' },
        port: { type: 'string' },
        'delay-ms': { type: 'string', default: '50' },
        'fail-rate': { type: 'string', default: '0' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    fail(err.message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (!Object.hasOwn(KINDS, values.kind ?? '')) fail(`--kind must be door, robot or conveyor, got ${JSON.stringify(values.kind)}`);
  if ((values.socket === undefined) === (values.port === undefined)) fail('give exactly one of --socket and --port');
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) fail(`--port must be 0..65535, got ${values.port}`);
  const delayMs = Number(values['delay-ms']);
  if (!(Number.isInteger(delayMs) && delayMs >= 0)) fail(`--delay-ms must be a whole number >= 0, got ${values['delay-ms']}`);
  const failRate = Number(values['fail-rate']);
  if (!(failRate >= 0 && failRate <= 1)) fail(`--fail-rate must be between 0 and 1, got ${values['fail-rate']}`);
  return { kind: values.kind, socket: values.socket, port, delayMs, failRate, quiet: values.quiet };
}

const log = (line) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);

function send(res, status, value) {
  if (value === undefined) return res.writeHead(status).end();
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 1_048_576) throw new BadRequest('body larger than 1 MiB');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequest(`body is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequest('body must be a JSON object');
  return value;
}

/** Runs one workflow call: a hang at once; otherwise the delay, then an injected failure or the state change. */
async function runWorkflow(device, opts, workflow, req, res, seen) {
  const args = await readJson(req);
  if (typeof args.operation === 'string') seen.operation = args.operation;
  if (args.hang === true) return; // never answers: the sidecar's timeout must catch this
  // 0 answers at once: even a 0 ms timer waits for the next millisecond tick of the event loop.
  if (opts.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, opts.delayMs));
  if (typeof args.fail === 'string') return send(res, 500, { detail: args.fail });
  if (Math.random() < opts.failRate) return send(res, 500, { detail: `injected failure (fail-rate ${opts.failRate})` });
  const answer = { ok: true, ...workflow(device.state, args) };
  if (typeof args.operation === 'string') answer.operation = args.operation;
  send(res, 200, answer);
}

function handler(device, opts) {
  const { workflows, states } = KINDS[opts.kind];
  return async (req, res) => {
    const started = performance.now();
    const seen = {}; // the Operation a workflow call runs, for the request log line
    const path = new URL(req.url ?? '/', 'http://bridge').pathname;
    const done = () => {
      if (!device.inflight.delete(done) || opts.quiet) return;
      const ms = Math.round((performance.now() - started) * 100) / 100;
      log({ event: 'request', method: req.method, path, status: res.writableFinished ? res.statusCode : null, ms, ...seen });
    };
    device.inflight.add(done);
    res.on('close', done);
    try {
      const name = path.slice(1);
      if (path.startsWith('/state/') && Object.hasOwn(states, path.slice(7))) {
        if (req.method !== 'GET') return send(res, 405, { detail: `${path} is read with GET` });
        return send(res, 200, states[path.slice(7)](device.state));
      }
      if (path === '/reset' || Object.hasOwn(workflows, name)) {
        if (req.method !== 'POST') return send(res, 405, { detail: `${path} is called with POST` });
        if (path === '/reset') {
          device.state = KINDS[opts.kind].initial();
          return send(res, 204);
        }
        return await runWorkflow(device, opts, workflows[name], req, res, seen);
      }
      send(res, 404, { detail: `a ${opts.kind} bridge has no ${req.method} ${path}` });
    } catch (err) {
      send(res, err instanceof BadRequest ? 400 : 500, { detail: err.message });
    }
  };
}

/** Removes a socket file left by a bridge that died, but never one a live process listens on. */
async function removeStaleSocket(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return;
  }
  if (!stats.isSocket()) die(`${path} exists and is not a socket; refusing to replace it`);
  const live = await new Promise((resolve) => {
    const probe = connect(path, () => (probe.destroy(), resolve(true)));
    probe.on('error', () => resolve(false));
  });
  if (live) die(`another process is listening on ${path}`);
  rmSync(path, { force: true });
}

async function main() {
  const opts = options();
  // `inflight` holds the log callbacks of unanswered requests, so a stop logs them too.
  const device = { state: KINDS[opts.kind].initial(), inflight: new Set() };
  const server = createServer(handler(device, opts));
  if (opts.socket !== undefined) {
    const problem = socketDirectoryProblem(opts.socket);
    if (problem) die(problem);
    await removeStaleSocket(opts.socket);
  }
  server.on('error', (err) => die(`cannot listen on ${opts.socket ?? `127.0.0.1:${opts.port}`}: ${err.message}`));
  server.listen(opts.socket ?? { port: opts.port, host: '127.0.0.1' }, () => {
    const address = server.address();
    const where = typeof address === 'string' ? { socket: address } : { port: address.port, url: `http://127.0.0.1:${address.port}` };
    log({ event: 'listening', kind: opts.kind, ...where });
  });
  const stop = (signal) => {
    server.close(() => {
      if (opts.socket !== undefined) rmSync(opts.socket, { force: true });
      for (const done of device.inflight) done();
      log({ event: 'stopped', signal });
      process.exit(0);
    });
    server.closeAllConnections(); // hung requests too: a stopping bridge answers nothing more
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

await main();
