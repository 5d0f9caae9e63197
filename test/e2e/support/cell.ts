/**
 * A plant cell for end-to-end tests: a shared store (the embedded store served over SPARQL, or
 * the Virtuoso under test with a graph of the test's own), the example plant loaded, and door1
 * and robot1 each with a mock bridge and a sidecar started from the example configs.
 */
import { it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OGM } from '../../../src/ogm/index.js';
import { openRemoteStore } from '../../../src/store/remote-store.js';
import type { TripleStore } from '../../../src/store/triple-store.js';
import { DEFAULT_DATA_GRAPH } from '../../../src/vocab/defaults.js';
import { ROOT, runCli, type ProcessGroup, type SpawnOptions } from '../../support/sidecar-process.js';
import { startBridge, startSidecar, startStore, type BridgeProc, type SidecarProc, type StoreProc } from './daemons.js';

export const DOOR1_CONFIG = join(ROOT, 'config', 'door1.yaml');
export const ROBOT1_CONFIG = join(ROOT, 'config', 'robot1.yaml');
export const PLANT_TTL = join(ROOT, 'ontology', 'examples', 'plant.ttl');
export const FAULTS_TTL = fileURLToPath(new URL('../fixtures/bridge-faults.ttl', import.meta.url));

/** The stores a cell runs on: the embedded store served by `store serve`, or the Virtuoso under test. */
export type CellStoreKind = 'served' | 'virtuoso';

/** Whether a suite on `kind` can run here (Virtuoso needs SPARQL_ENDPOINT), and its `it` (a skip when it cannot). */
export function cellSuite(kind: CellStoreKind): {
  enabled: boolean;
  onStore: (name: string, fn: () => Promise<void>, timeout: number) => void;
} {
  const enabled = kind === 'served' || Boolean(process.env.SPARQL_ENDPOINT);
  return {
    enabled,
    onStore(name, fn, timeout) {
      // A jest skip, so that the summary counts these tests as skipped rather than passed.
      (enabled ? it : it.skip)(name, fn, timeout);
    },
  };
}

/** The store a cell shares, and how the CLI and the library reach it. */
export interface CellStore {
  kind: 'served' | 'virtuoso';
  url: string;
  /** The named graph of the instance data. */
  graph: string;
  /** `--store` (and `--graph` for Virtuoso) for every CLI command. */
  flags: string[];
  /** The `store serve` process (served stores only). */
  served?: StoreProc;
  /** A client of the store and an OGM on the cell's graph, for assertions. */
  client: TripleStore;
  ogm: OGM;
  /** Drops the test's graph (Virtuoso) and closes the client. */
  close(): Promise<void>;
}

async function loadOntology(url: string, files: readonly string[]): Promise<void> {
  const result = await runCli(['ontology', 'load', ...files, '--store', url, '--log-level', 'warn'], { timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`ontology load ${files.join(' ')} failed (${result.code}):\n${result.stderr}`);
}

function clientFor(url: string, graph: string): { client: TripleStore; ogm: OGM } {
  const client = openRemoteStore({ queryUrl: url });
  return { client, ogm: new OGM({ store: client, graph }) };
}

/**
 * `store serve --memory --provision` (or the given `serveArgs`) with the example plant and the
 * bridge's fault fields loaded by `ontology load`.
 */
export async function servedStore(group: ProcessGroup, serveArgs: readonly string[] = ['--memory', '--provision']): Promise<CellStore> {
  const served = await startStore(group, serveArgs);
  await loadOntology(served.url, [PLANT_TTL, FAULTS_TTL]);
  const { client, ogm } = clientFor(served.url, DEFAULT_DATA_GRAPH);
  return {
    kind: 'served',
    url: served.url,
    graph: DEFAULT_DATA_GRAPH,
    flags: ['--store', served.url],
    served,
    client,
    ogm,
    close: () => client.close(),
  };
}

/** The Virtuoso at `endpoint`, provisioned with `ontology load`, with a fresh named graph for this test. */
export async function virtuosoStore(endpoint: string): Promise<CellStore> {
  await loadOntology(endpoint, []);
  await loadOntology(endpoint, [PLANT_TTL, FAULTS_TTL]);
  const graph = `https://example.org/semantic-middleware/e2e/${randomUUID()}`;
  const { client, ogm } = clientFor(endpoint, graph);
  return {
    kind: 'virtuoso',
    url: endpoint,
    graph,
    flags: ['--store', endpoint, '--graph', graph],
    client,
    ogm,
    async close() {
      await client.update(`DROP SILENT GRAPH <${graph}>`).catch(() => undefined);
      await client.close();
    },
  };
}

/** A resource of the cell: its bridge and its sidecar. */
export interface CellResource {
  bridge: BridgeProc;
  sidecar: SidecarProc;
}

/** Options of {@link startDoor1} and {@link startRobot1}. */
export interface ResourceOptions {
  /** Extra settings for the sidecar (e.g. SIDECAR_DEVICE_TIMEOUT_MS). */
  env?: NodeJS.ProcessEnv;
  /** Port of the sidecar's HTTP surface; default 0. */
  port?: number;
  /** A bridge already running (a restart keeps it). */
  bridge?: BridgeProc;
  /** Extra flags for `start`. */
  args?: readonly string[];
}

function sidecarArgs(config: string, store: CellStore, dir: string, name: string, options: ResourceOptions): string[] {
  const graph = store.kind === 'virtuoso' ? ['--graph', store.graph] : [];
  const local = ['--local-api-socket', join(dir, `${name}-local.sock`)];
  return [
    '--config',
    config,
    '--store',
    store.url,
    ...graph,
    '--port',
    String(options.port ?? 0),
    '--heartbeat-interval',
    '1',
    ...local,
    ...(options.args ?? []),
  ];
}

function sidecarSpawn(dir: string, name: string, options: ResourceOptions): SpawnOptions {
  return { cwd: dir, env: { STATE_DIRECTORY: join(dir, `${name}-state`), ...options.env } };
}

/** door1: the door bridge on a Unix socket and a sidecar from config/door1.yaml; `dir` (created) holds sockets and state. */
export async function startDoor1(group: ProcessGroup, dir: string, store: CellStore, options: ResourceOptions = {}): Promise<CellResource> {
  await mkdir(dir, { recursive: true });
  const bridge = options.bridge ?? (await startBridge(group, 'door1-bridge', { kind: 'door', socket: join(dir, 'door1-device.sock') }));
  const args = [...sidecarArgs(DOOR1_CONFIG, store, dir, 'door1', options), '--device-socket', bridge.socket!];
  return { bridge, sidecar: await startSidecar(group, 'door1', args, sidecarSpawn(dir, 'door1', options)) };
}

/** robot1: the robot bridge on loopback TCP and a sidecar from config/robot1.yaml. */
export async function startRobot1(
  group: ProcessGroup,
  dir: string,
  store: CellStore,
  options: ResourceOptions = {},
): Promise<CellResource> {
  await mkdir(dir, { recursive: true });
  const bridge = options.bridge ?? (await startBridge(group, 'robot1-bridge', { kind: 'robot', port: 0 }));
  const args = [...sidecarArgs(ROBOT1_CONFIG, store, dir, 'robot1', options), '--device-url', bridge.url!];
  return { bridge, sidecar: await startSidecar(group, 'robot1', args, sidecarSpawn(dir, 'robot1', options)) };
}

/** What `request` printed: the Operation IRI, and with `--wait` the outcome. */
export interface RequestRun {
  code: number | null;
  operation: string;
  outcome?: { operationIri: string; status: string; result?: string; failureState?: string; workflowIri?: string; timestamp?: string };
  stderr: string;
}

/**
 * Runs `semantic-sidecar request` against the cell's store and parses what it printed.
 * @example const run = await requestCli(store, ['--capability', 'plant:DoorOpeningCapability', '--operation-class', 'plant:OpenDoorOperation', '--wait']);
 */
export async function requestCli(store: CellStore, args: readonly string[]): Promise<RequestRun> {
  const result = await runCli(['request', ...args, ...store.flags, '--log-level', 'warn'], { timeoutMs: 60_000 });
  const newline = result.stdout.indexOf('\n');
  const rest = newline < 0 ? '' : result.stdout.slice(newline + 1).trim();
  return {
    code: result.code,
    operation: newline < 0 ? result.stdout : result.stdout.slice(0, newline),
    ...(rest !== '' && { outcome: JSON.parse(rest) as RequestRun['outcome'] }),
    stderr: result.stderr,
  };
}
