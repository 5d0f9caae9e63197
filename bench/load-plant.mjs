// The processes of one load run: the shared store (the embedded store served by
// `store serve --memory`, or the Virtuoso at SPARQL_ENDPOINT in a graph of the run's own), the
// receivers (each a door sidecar from config/door1.yaml on a resource of its own, with a mock
// door bridge on a Unix socket whose request log counts the device executions) and one
// requester sidecar (config/robot1.yaml) whose local API some callers use.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { mintWorkflowIri } from '../dist/iri/index.js';
import { DEFAULT_DATA_GRAPH, PLANT } from '../dist/vocab/index.js';
import { BRIDGE, ROOT } from './sidecar-support.mjs';

const PLANT_TTL = join(ROOT, 'ontology', 'examples', 'plant.ttl');
const DOOR_CONFIG = join(ROOT, 'config', 'door1.yaml');
const ROBOT_CONFIG = join(ROOT, 'config', 'robot1.yaml');
const QUIET = ['--log-level', 'warn'];

/**
 * Starts (served) or prepares (Virtuoso) the store: bundled ontology and example plant loaded.
 * Returns `{ kind, url, graph, flags, pid? }`; `flags` are the sidecars' store flags.
 */
export async function prepareStore(kids, kind, endpoint) {
  if (kind === 'served') {
    const served = await kids.daemon('store', ['store', 'serve', '--memory', '--port', '0', '--provision', ...QUIET]);
    const url = served.first.trim();
    await kids.command(['ontology', 'load', PLANT_TTL, '--store', url, ...QUIET]);
    return { kind, url, graph: DEFAULT_DATA_GRAPH, flags: ['--store', url], pid: served.pid };
  }
  await kids.command(['ontology', 'load', '--store', endpoint, ...QUIET]);
  await kids.command(['ontology', 'load', PLANT_TTL, '--store', endpoint, ...QUIET]);
  const graph = `urn:bench:load:${randomUUID()}`;
  return { kind, url: endpoint, graph, flags: ['--store', endpoint, '--graph', graph] };
}

/** Counts a bridge's workflow executions from its JSON request log (POST /open), by status. */
function bridgeCounter() {
  const counts = { executions: 0, byStatus: {}, byOperation: new Map() };
  const onLine = (line) => {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      return;
    }
    if (entry.event !== 'request' || entry.method !== 'POST' || entry.path !== '/open') return;
    counts.executions += 1;
    counts.byStatus[entry.status] = (counts.byStatus[entry.status] ?? 0) + 1;
    // A bridge that logs the Operation it ran lets the audit count executions per Operation.
    if (typeof entry.operation === 'string') counts.byOperation.set(entry.operation, (counts.byOperation.get(entry.operation) ?? 0) + 1);
  };
  return { counts, onLine };
}

async function sidecar(kids, dir, name, config, store, extra) {
  const args = [
    'start',
    '--config',
    config,
    ...store.flags,
    '--port',
    '0',
    '--local-api-socket',
    join(dir, `${name}-local.sock`),
    ...extra,
    ...QUIET,
  ];
  const started = await kids.daemon(name, args, { env: { STATE_DIRECTORY: join(dir, `${name}-state`) } });
  const ready = JSON.parse(started.first);
  return { name, pid: started.pid, service: ready.service, address: ready.address, localApi: join(dir, `${name}-local.sock`) };
}

/**
 * Starts `count` receivers, one after the other: a bridge (`delayMs` per workflow call, a share
 * `failRate` of them answered 500, default 0) and a
 * door sidecar with the activity feed on, for resource plant:loadDoor<i>. Each receiver is
 * `{ name, resource, service, address, workflow, pid, bridgePid, bridge: counts }`.
 */
export async function startReceivers(kids, dir, store, { count, delayMs, failRate = 0 }) {
  const receivers = [];
  for (let i = 1; i <= count; i++) {
    const name = `door${i}`;
    const socket = join(dir, `${name}-device.sock`);
    const { counts, onLine } = bridgeCounter();
    const bridge = await kids.daemon(
      `${name}-bridge`,
      ['--kind', 'door', '--socket', socket, '--delay-ms', String(delayMs), '--fail-rate', String(failRate)],
      { script: BRIDGE, onStdoutLine: onLine },
    );
    const resource = PLANT(`loadDoor${i}`);
    const side = await sidecar(kids, dir, name, DOOR_CONFIG, store, ['--resource', resource, '--device-socket', socket, '--activity-feed']);
    receivers.push({ ...side, resource, workflow: mintWorkflowIri(side.service, 'open'), bridgePid: bridge.pid, bridge: counts });
  }
  return receivers;
}

/** The requester sidecar: robot1, whose device is never called (no bridge listens on its socket). */
export function startRequester(kids, dir, store) {
  return sidecar(kids, dir, 'robot1', ROBOT_CONFIG, store, ['--device-socket', join(dir, 'robot1-device.sock')]);
}
