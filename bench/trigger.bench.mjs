// What express costs on the hot requests, against the lanes that serve them without it. The
// receiver's event trigger: the same surface served by its express app and through the fast lane
// in front of it; the surface queues every trigger and does nothing else. A device bridge's
// dispatch through the local API: `POST /operations` then the status long-poll
// (`GET /operations/status?waitMs=`), against a middleware that answers at once, through the
// local API's lane and through its express app alone. A keep-alive client calls each in turn
// (rounds interleaved, order alternated); client and servers share this process, the client's
// part the same in both arms, so the difference of the CPU per call is the server's.
// BENCH_TRIGGER_N calls per arm and round (default 2,000), BENCH_TRIGGER_ROUNDS (default 6).
import { Agent, createServer, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../dist/lib/logger.js';
import { createApp } from '../dist/middleware/surface/app.js';
import { withWorkflowFastLane } from '../dist/middleware/surface/workflow-fast-lane.js';
import { HandoverSessions } from '../dist/sidecar/handover-sessions.js';
import { localApiApp } from '../dist/sidecar/local-api.js';
import { withLocalApiLane } from '../dist/sidecar/local-api-lane.js';
import { envInt, median } from './sidecar-support.mjs';
import { report, round, row } from './support.mjs';

const N = envInt('BENCH_TRIGGER_N', 2000);
const ROUNDS = envInt('BENCH_TRIGGER_ROUNDS', 6);
const WARMUP = 200;
const TRIGGER_PATH = '/workflows/event_trigger/execute';
// A described trigger, as a requester sends it.
const TRIGGER_BODY = JSON.stringify({
  operation_iri: 'https://example.org/plant#OpenDoorOperation_1',
  operation: { types: ['https://example.org/plant#OpenDoorOperation'], properties: {} },
});

function listen(listener) {
  return new Promise((resolve) => {
    const server = createServer(listener);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** The event trigger's surface: queues every trigger, nothing else. Its express app and its lane. */
function triggerListeners(logger) {
  const surface = {
    welcome: 'Welcome',
    workflow: () => undefined,
    state: () => undefined,
    trigger: (operation) => Promise.resolve({ operation, status: 'queued' }),
    live: () => true,
    ready: () => Promise.resolve(true),
    logger,
  };
  const app = createApp(surface);
  return { lane: withWorkflowFastLane(surface, app), express: app };
}

/** The local API in front of a middleware that requests and answers statuses at once. Its express app and its lane. */
function localApiListeners(logger) {
  const snapshot = { operationIri: OPERATION, status: 'done', result: '"opened"' };
  const middleware = {
    request: () => Promise.resolve(OPERATION),
    readOperation: () => Promise.resolve(snapshot),
    waitForOperation: () => Promise.resolve(snapshot),
  };
  const target = { middleware, handovers: new HandoverSessions(() => Promise.reject(new Error('none'))), caller: 'local-api:socket' };
  const limits = { bodyLimitBytes: 65_536 };
  const app = localApiApp({ middleware, listen: { socket: '/nowhere' }, logger, ...limits }, target);
  return { lane: withLocalApiLane(target, { ...limits, what: 'no token', logger }, app), express: app };
}

const OPERATION = 'https://example.org/plant#OpenDoorOperation_1';
const REQUEST_BODY = JSON.stringify({
  capabilityClass: 'https://example.org/plant#DoorOpeningCapability',
  operationClass: 'https://example.org/plant#OpenDoorOperation',
  wait: true,
});
const STATUS_PATH = `/operations/status?iri=${encodeURIComponent(OPERATION)}&waitMs=10000`;

export async function run() {
  const logger = createLogger({ level: 'silent' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = (port, method, path, body, expected) =>
    new Promise((resolve, reject) => {
      const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
      const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
        if (res.statusCode !== expected) reject(new Error(`${method} ${path} answered ${res.statusCode}`));
        res.resume().on('end', resolve);
      });
      req.on('error', reject).end(body);
    });
  const comparisons = [
    {
      what: 'event trigger',
      listeners: triggerListeners(logger),
      once: (port) => call(port, 'POST', TRIGGER_PATH, TRIGGER_BODY, 200),
    },
    {
      what: 'local API request + status long-poll',
      listeners: localApiListeners(logger),
      once: async (port) => {
        await call(port, 'POST', '/operations', REQUEST_BODY, 201);
        await call(port, 'GET', STATUS_PATH, undefined, 200);
      },
    },
  ];
  const load = loadavg()[0];
  const rows = [];
  try {
    for (const { what, listeners, once } of comparisons) {
      const arms = [
        { name: `${what} through the lane`, server: await listen(listeners.lane), cpu: [], wall: [] },
        { name: `reference: the same through express`, server: await listen(listeners.express), cpu: [], wall: [] },
      ];
      try {
        for (let r = 0; r < ROUNDS; r++) {
          for (const arm of r % 2 === 0 ? arms : [...arms].reverse()) {
            const { port } = arm.server.address();
            for (let i = 0; i < WARMUP; i++) await once(port);
            const cpu = process.cpuUsage();
            for (let i = 0; i < N; i++) {
              const t = performance.now();
              await once(port);
              arm.wall.push(performance.now() - t);
            }
            const used = process.cpuUsage(cpu);
            arm.cpu.push((used.user + used.system) / 1000 / N);
          }
        }
      } finally {
        for (const arm of arms) arm.server.close();
      }
      const [lane, express] = arms;
      const armRows = arms.map((arm) => row(arm.name, arm.wall, { cpu_ms_per_call: median(arm.cpu) }));
      armRows[0].cpu_saved_ms_per_call = round(median(express.cpu) - median(lane.cpu));
      rows.push(...armRows);
    }
  } finally {
    agent.destroy();
  }
  return report(
    'trigger',
    { N, ROUNDS, cpus: `${cpus().length}, shared: load average ${round(load)} at start, ${round(loadavg()[0])} at end` },
    rows,
  );
}
