// How fast the built CLI starts, next to bare Node in the same run: `node -e 0`,
// `semantic-sidecar --version` and `--help` (BENCH_CLI_N runs each, interleaved so that drift in
// the machine's load hits all alike), and `start` from spawn to its registered line against
// `store serve --memory` with the example plant (BENCH_CLI_STARTS start-ups, each stopped again),
// from the CLI bundle and, interleaved, from the unbundled dist/ as the reference.
// Wall times; for `start` also the CPU time (user + system) it used to get there, which barely
// moves when other work shares the cores. Aims: --version under 150 ms, spawn to registered under 400 ms.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BRIDGE, Children, CLI, cpuMs, envInt, median, ROOT } from './sidecar-support.mjs';
import { report, round, row } from './support.mjs';

const N = envInt('BENCH_CLI_N', 20);
const STARTS = envInt('BENCH_CLI_STARTS', 5);
const VERSION_AIM_MS = 150;
const START_AIM_MS = 400;
const UNBUNDLED = join(ROOT, 'bench', 'cli-unbundled.mjs');

/** Bare Node and the CLI's quick commands, as a shell runs them. */
const QUICK = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'semantic-sidecar --version', args: [CLI, '--version'], aim: VERSION_AIM_MS },
  { name: 'semantic-sidecar --help', args: [CLI, '--help'] },
];

/** Wall ms of one run of `node args` to its exit. */
function wallMs(args) {
  const t = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function quickRows() {
  const walls = QUICK.map(() => []);
  for (let i = 0; i < N; i++) {
    for (const [k, quick] of QUICK.entries()) walls[k].push(wallMs(quick.args));
  }
  const bare = median(walls[0]);
  return QUICK.map((quick, k) =>
    row(quick.name, walls[k], {
      over_bare_node_ms: k === 0 ? undefined : median(walls[k]) - bare,
      ...(quick.aim && { aim: `< ${quick.aim} ms`, met: median(walls[k]) < quick.aim }),
    }),
  );
}

/**
 * `STARTS` start-ups of door1 against a served store, each from the bundle (what the launcher
 * runs) and from tsc's unbundled output (the reference), interleaved: spawn to the registered
 * line, and the CPU it took.
 */
async function startRows(kids, dir) {
  const store = await kids.daemon('store', ['store', 'serve', '--memory', '--port', '0', '--provision']);
  const storeUrl = store.first.trim();
  await kids.command(['ontology', 'load', join(ROOT, 'ontology/examples/plant.ttl'), '--store', storeUrl]);
  const device = join(dir, 'door1-device.sock');
  await kids.daemon('door1-bridge', ['--kind', 'door', '--socket', device], { script: BRIDGE });
  const args = ['start', '--config', 'config/door1.yaml', '--store', storeUrl, '--port', '0', '--device', `unix:${device}`];
  const arms = [
    { name: 'semantic-sidecar start (bundle): spawn to registered line', script: CLI, wall: [], cpu: [] },
    { name: 'reference: the same from the unbundled dist/cli/main.js', script: UNBUNDLED, wall: [], cpu: [] },
  ];
  for (let i = 0; i < STARTS; i++) {
    for (const [k, arm] of arms.entries()) {
      const door = await kids.daemon('door1', [...args, '--local-api-socket', join(dir, `door1-${i}-${k}.sock`)], { script: arm.script });
      arm.wall.push(door.startMs);
      arm.cpu.push(await cpuMs(door.pid));
      await kids.stop(door.child);
    }
  }
  return arms.map((arm, k) =>
    row(arm.name, arm.wall, {
      cpu_ms_median: median(arm.cpu),
      ...(k === 0 && { aim: `< ${START_AIM_MS} ms`, met: median(arm.wall) < START_AIM_MS }),
    }),
  );
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-cli-start-'));
  const kids = new Children(dir);
  const load = loadavg()[0];
  try {
    const rows = [...quickRows(), ...(await startRows(kids, dir))];
    const meta = {
      N,
      STARTS,
      store: '`store serve --memory --provision` on loopback with the example plant; door1 from config/door1.yaml on port 0',
      cpus: `${cpus().length}, shared: load average ${round(load)} at start`,
    };
    report('cli-start', meta, rows);
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    console.error(`cli-start benchmark failed: ${error.message}; logs in ${dir}`);
    throw error;
  } finally {
    await kids.stopAll(5_000);
  }
}
