/**
 * Starting the long-running pieces of a plant cell as real processes: `store serve`, the mock
 * device bridge, `start` (a sidecar) and `watchdog`. Each resolves once the process said it is
 * ready (its first stdout line) and keeps the process in the test's {@link ProcessGroup}.
 */
import { BRIDGE, jsonLines, type ProcessGroup, type Proc, type SpawnOptions } from '../../support/sidecar-process.js';

/** A running `semantic-sidecar store serve`. */
export interface StoreProc {
  proc: Proc;
  /** The SPARQL endpoint, e.g. `http://127.0.0.1:40123/sparql`. */
  url: string;
}

/**
 * Spawns `store serve` (loopback, port 0 unless `args` names one) and waits for its URL.
 * @example const store = await startStore(group, ['--memory', '--provision']);
 */
export async function startStore(group: ProcessGroup, args: readonly string[], options?: SpawnOptions): Promise<StoreProc> {
  const withPort = args.includes('--port') ? args : [...args, '--port', '0'];
  const proc = group.cli('store', ['store', 'serve', ...withPort, '--log-level', 'warn'], options);
  return { proc, url: await proc.firstLine(30_000) };
}

/** One request the bridge logged. */
export interface BridgeRequest {
  method: string;
  path: string;
  /** null when the caller gave up before an answer was sent. */
  status: number | null;
  ms: number;
  /** The Operation a workflow call ran (the body's `operation` field), when it named one. */
  operation?: string;
}

/** A running mock PLC bridge. */
export interface BridgeProc {
  proc: Proc;
  /** `{ socket }` or `{ url }`: where it listens. */
  socket?: string;
  url?: string;
  /** The requests it has logged so far (a request is logged when it ends). */
  requests(): BridgeRequest[];
  /**
   * Resolves with the logged requests once `probe` accepts them: a request is logged when its
   * connection closes, which may be just after the caller saw the answer.
   */
  logged(probe: (requests: BridgeRequest[]) => boolean, what: string): Promise<BridgeRequest[]>;
}

/** Options of {@link startBridge}: exactly one of `socket` and `port`. */
export interface BridgeOptions {
  kind: 'door' | 'robot' | 'conveyor';
  socket?: string;
  port?: number;
  delayMs?: number;
}

/**
 * Spawns `examples/mock-plc-bridge/bridge.mjs` and waits for its `listening` line.
 * @example const door = await startBridge(group, 'door-bridge', { kind: 'door', socket: join(dir, 'door.sock') });
 */
export async function startBridge(group: ProcessGroup, name: string, options: BridgeOptions): Promise<BridgeProc> {
  const args = ['--kind', options.kind];
  if (options.socket !== undefined) args.push('--socket', options.socket);
  else args.push('--port', String(options.port ?? 0));
  if (options.delayMs !== undefined) args.push('--delay-ms', String(options.delayMs));
  const proc = group.spawn(name, BRIDGE, args);
  const listening = await proc.waitFor(() => jsonLines(proc.stdout).find((l) => l.event === 'listening'), 'listening line');
  // A sidecar's start-up health probe (HEAD) is no device call: the calls are the GETs and POSTs.
  const requests = (): BridgeRequest[] =>
    jsonLines(proc.stdout).filter((l) => l.event === 'request' && l.method !== 'HEAD') as unknown as BridgeRequest[];
  return {
    proc,
    ...(typeof listening.socket === 'string' && { socket: listening.socket }),
    ...(typeof listening.url === 'string' && { url: listening.url }),
    requests,
    logged: (probe, what) => proc.waitFor(() => (probe(requests()) ? requests() : undefined), what, 10_000),
  };
}

/** A running sidecar, as its ready line describes it. */
export interface SidecarProc {
  proc: Proc;
  service: string;
  /** Its HTTP surface, e.g. `http://127.0.0.1:41234`. */
  address: string;
  /** Path of its local API socket (the ready line says `unix:<path>`). */
  localApiSocket?: string;
  /** The port its address names (to restart on the same one). */
  port: number;
}

/**
 * Spawns `semantic-sidecar start ...args` and waits for its one-line JSON ready message.
 * @example const door = await startSidecar(group, 'door1', ['--config', 'config/door1.yaml', '--store', url, '--port', '0']);
 */
export async function startSidecar(
  group: ProcessGroup,
  name: string,
  args: readonly string[],
  options?: SpawnOptions,
): Promise<SidecarProc> {
  const proc = group.cli(name, ['start', ...args], options);
  const ready = JSON.parse(await proc.firstLine(30_000)) as { service: string; address: string; localApi?: string };
  return {
    proc,
    service: ready.service,
    address: ready.address,
    ...(ready.localApi?.startsWith('unix:') && { localApiSocket: ready.localApi.slice('unix:'.length) }),
    port: Number(new URL(ready.address).port),
  };
}

/**
 * Spawns `semantic-sidecar watchdog ...args` (port 0) and waits for its ready line.
 * @example await startWatchdog(group, ['--store', url, '--staleness-threshold', '3', '--sweep-interval', '1']);
 */
export async function startWatchdog(
  group: ProcessGroup,
  args: readonly string[],
  options?: SpawnOptions,
): Promise<{ proc: Proc; address: string }> {
  const proc = group.cli('watchdog', ['watchdog', ...args, '--port', '0'], options);
  const ready = JSON.parse(await proc.firstLine(30_000)) as { address: string };
  return { proc, address: ready.address };
}
