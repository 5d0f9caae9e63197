// The receiver's cost of one event trigger: the same surface served by its express app and
// through the fast lane in front of it, a keep-alive client ringing each in turn (rounds
// interleaved, order alternated). The surface queues every trigger and does nothing else, so
// what differs is the HTTP handling alone. Client and servers share this process: the client's
// part is the same in both arms, so the difference of the CPU per trigger is the server's.
// BENCH_TRIGGER_N triggers per arm and round (default 2,000), BENCH_TRIGGER_ROUNDS (default 6).
import { Agent, createServer, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../dist/lib/logger.js';
import { createApp } from '../dist/middleware/surface/app.js';
import { withWorkflowFastLane } from '../dist/middleware/surface/workflow-fast-lane.js';
import { envInt, median } from './sidecar-support.mjs';
import { report, round, row } from './support.mjs';

const N = envInt('BENCH_TRIGGER_N', 2000);
const ROUNDS = envInt('BENCH_TRIGGER_ROUNDS', 6);
const WARMUP = 200;
const PATH = '/workflows/event_trigger/execute';
// A described trigger, as a requester sends it.
const BODY = JSON.stringify({
  operation_iri: 'https://example.org/plant#OpenDoorOperation_1',
  operation: { types: ['https://example.org/plant#OpenDoorOperation'], properties: {} },
});

function listen(listener) {
  return new Promise((resolve) => {
    const server = createServer(listener);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

export async function run() {
  const surface = {
    welcome: 'Welcome',
    workflow: () => undefined,
    state: () => undefined,
    trigger: (operation) => Promise.resolve({ operation, status: 'queued' }),
    live: () => true,
    ready: () => Promise.resolve(true),
    logger: createLogger({ level: 'silent' }),
  };
  const app = createApp(surface);
  const arms = [
    { name: 'event trigger through the fast lane', server: await listen(withWorkflowFastLane(surface, app)), cpu: [], wall: [] },
    { name: 'reference: the same through express', server: await listen(app), cpu: [], wall: [] },
  ];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ring = (port) =>
    new Promise((resolve, reject) => {
      const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) };
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: PATH, agent, headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`trigger answered ${res.statusCode}`));
        res.resume().on('end', resolve);
      });
      req.on('error', reject).end(BODY);
    });
  const load = loadavg()[0];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const arm of r % 2 === 0 ? arms : [...arms].reverse()) {
        const { port } = arm.server.address();
        for (let i = 0; i < WARMUP; i++) await ring(port);
        const cpu = process.cpuUsage();
        for (let i = 0; i < N; i++) {
          const t = performance.now();
          await ring(port);
          arm.wall.push(performance.now() - t);
        }
        const used = process.cpuUsage(cpu);
        arm.cpu.push((used.user + used.system) / 1000 / N);
      }
    }
  } finally {
    agent.destroy();
    for (const arm of arms) arm.server.close();
  }
  const [lane, express] = arms;
  const rows = arms.map((arm) => row(arm.name, arm.wall, { cpu_ms_per_trigger: median(arm.cpu) }));
  rows[0].cpu_saved_ms_per_trigger = round(median(express.cpu) - median(lane.cpu));
  return report(
    'trigger',
    { N, ROUNDS, cpus: `${cpus().length}, shared: load average ${round(load)} at start, ${round(loadavg()[0])} at end` },
    rows,
  );
}
