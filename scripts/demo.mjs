#!/usr/bin/env node
// The five-minute tour in one command (`npm run demo`): a shared embedded store, a door and a
// robot with mock device bridges and their sidecars, a watchdog, then discovery, a dispatched
// Operation, direct workflow and state calls, a two-step handover through the robot's local
// API, and a sweep after the door's gateway is killed. Everything runs on loopback and Unix
// sockets in a temporary directory, and is stopped at the end.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const cli = join(root, 'bin', 'semantic-sidecar.js');
const bridge = join(root, 'examples', 'mock-plc-bridge', 'bridge.mjs');
const dir = await mkdtemp(join(tmpdir(), 'semantic-demo-'));
const children = [];
const PLANT = 'https://example.org/plant#';
const step = (n, text) => console.log(`\n\x1b[1m${n}. ${text}\x1b[0m`);
const show = (value) =>
  console.log(typeof value === 'string' ? `   ${value.trim().split('\n').join('\n   ')}` : `   ${JSON.stringify(value)}`);

/** Starts a long-running child; its stderr goes to <dir>/<name>.log; resolves with its first stdout line. */
async function daemon(name, args, script = cli) {
  const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  child.stderr.pipe(createWriteStream(join(dir, `${name}.log`)));
  const lines = createInterface({ input: child.stdout });
  const [first] = await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${name} exited with ${code} before it was ready; see ${join(dir, `${name}.log`)}`);
    }),
  ]);
  lines.on('line', () => undefined); // later stdout lines are not needed; keep the pipe drained
  return { child, first };
}

/** Runs a CLI command to its end; resolves with its stdout and exit code. */
async function command(args) {
  const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const [code] = await once(child, 'exit');
  return { code, out, err };
}

/** One JSON request over a Unix socket (the local API). */
function unixJson(socketPath, method, path, body) {
  return new Promise((resolveCall, reject) => {
    const req = httpRequest({ socketPath, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolveCall({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function sidecar(name, configFile, deviceSocket, store) {
  const localApi = join(dir, `${name}-local.sock`);
  const args = [
    'start',
    '--config',
    configFile,
    '--store',
    store,
    '--port',
    '0',
    '--device-socket',
    deviceSocket,
    '--local-api-socket',
    localApi,
    '--heartbeat-interval',
    '1',
    '--activity-feed',
  ];
  const { child, first } = await daemon(name, args);
  return { child, ...JSON.parse(first), localApiSocket: localApi };
}

async function main() {
  step(1, 'A shared store: the embedded store served over SPARQL on loopback, ontology and example plant loaded');
  const { first: storeUrl } = await daemon('store', ['store', 'serve', '--memory', '--port', '0', '--provision']);
  const plant = await command(['ontology', 'load', join(root, 'ontology/examples/plant.ttl'), '--store', storeUrl]);
  if (plant.code !== 0) throw new Error(`loading the example plant failed: ${plant.err}`);
  show(`store: ${storeUrl}`);

  step(2, 'Mock device bridges for door1 and robot1 on Unix sockets, and a sidecar next to each');
  const doorSock = join(dir, 'door1-device.sock');
  const robotSock = join(dir, 'robot1-device.sock');
  await daemon('door1-bridge', ['--kind', 'door', '--socket', doorSock], bridge);
  await daemon('robot1-bridge', ['--kind', 'robot', '--socket', robotSock], bridge);
  const door = await sidecar('door1', 'config/door1.yaml', doorSock, storeUrl);
  const robot = await sidecar('robot1', 'config/robot1.yaml', robotSock, storeUrl);
  show(`door1 sidecar: ${door.address}  (Service ${door.service})`);
  show(`robot1 sidecar: ${robot.address}`);
  const watchdog = await daemon('watchdog', [
    'watchdog',
    '--store',
    storeUrl,
    '--staleness-threshold',
    '3',
    '--sweep-interval',
    '1',
    '--port',
    '0',
  ]);
  show(`watchdog: ${JSON.parse(watchdog.first).address} (stale after 3 s, sweeps every second)`);

  step(3, 'Discovery: who can open a door?');
  show((await command(['discover', '--capability', 'plant:DoorOpeningCapability', '--store', storeUrl])).out);

  step(4, 'Dispatch: an OpenDoorOperation is created, door1 is triggered, pulls it, runs it on its device');
  const dispatched = await command([
    'request',
    '--capability',
    'plant:DoorOpeningCapability',
    '--operation-class',
    'plant:OpenDoorOperation',
    '--store',
    storeUrl,
    '--wait',
  ]);
  show(dispatched.out);

  step(5, "Direct calls on door1's HTTP surface, proxied to its device");
  show(`GET /state/door -> ${await (await fetch(`${door.address}/state/door`)).text()}`);
  const closed = await fetch(`${door.address}/workflows/close/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  show(`POST /workflows/close/execute -> ${closed.status} ${await closed.text()}`);

  step(6, "Handover: robot1 puts a part onto conveyor1, in two steps through robot1's local API");
  const { OGM, openStore } = await import('../dist/index.js');
  const { createPossession } = await import('../dist/registration/index.js');
  const store = await openStore({ kind: 'remote', queryUrl: storeUrl });
  const ogm = new OGM({ store });
  const part = `${PLANT}demo-part-${Date.now()}`;
  await ogm.create({ iri: part, type: `${PLANT}Part` });
  await createPossession(ogm, { workpieceIri: part, possessorIri: `${PLANT}robot1` });
  await store.close();
  const begun = await unixJson(robot.localApiSocket, 'POST', '/handovers', {
    mode: 'https://w3id.org/circularfactory/MES#Put',
    workpiece: part,
    counterpart: `${PLANT}conveyor1`,
  });
  show(`begin -> ${begun.status} ${JSON.stringify(begun.body)}`);
  const committed = await unixJson(robot.localApiSocket, 'POST', `/handovers/${begun.body.handover}/commit`);
  show(`commit -> ${committed.status} ${JSON.stringify(committed.body)}`);

  step(7, "door1's gateway dies (kill -9): its heartbeat stops and the watchdog sweeps it");
  door.child.kill('SIGKILL');
  const killedAt = Date.now();
  await sleep(3000);
  // Stale after 3 s, swept within the next second or so; a busy machine may need a little longer.
  let after = await command(['discover', '--capability', 'plant:DoorOpeningCapability', '--store', storeUrl]);
  while (after.code === 0 && Date.now() - killedAt < 20_000) {
    await sleep(500);
    after = await command(['discover', '--capability', 'plant:DoorOpeningCapability', '--store', storeUrl]);
  }
  show((await command(['status', '--resource', 'plant:door1', '--store', storeUrl])).out);
  show(`discover now exits ${after.code} (${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill): ${after.err.trim()}`);

  step(8, 'Where to look');
  show(`logs (JSON lines): ${dir}/*.log`);
  show(`robot1's activity feed: curl ${robot.address}/activity  (live: ${robot.address}/activity/stream)`);
  show('the same commands by hand: see README.md, "Five-minute tour"');
}

try {
  await main();
  console.log('\nDemo finished; stopping everything.');
} catch (error) {
  console.error(`\nDemo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  for (const child of children.reverse()) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? once(c, 'exit') : undefined)));
}
