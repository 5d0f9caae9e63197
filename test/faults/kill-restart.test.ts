/**
 * A sidecar killed with -9 at random points of the Operation lifecycle and restarted, round
 * after round, as real processes: door1 in front of the mock door bridge (each call takes
 * DEVICE_MS, behind a hop that records which Operation each call ran), a caller in this process.
 * Kill points: before the trigger, with work queued, right after the claim, while the device
 * runs, right after the device answered, during the terminal write; each with a random delay
 * from a seeded PRNG. After every restart and settle, every Operation the caller was told about
 * has exactly one terminal status with its timestamp and provenance and ran at most once on the
 * device (once when done); every one the caller was refused is gone and never ran, unless door1
 * had taken it before it died (its answer lost): then it is kept whole and ends like the others.
 *
 * Knobs: FAULT_ROUNDS=n rounds per store (default 4; 25 under SOAK=1); FAULT_SEED=n replays a
 * run (each run prints its seed).
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mintOperationIri } from '../../src/iri/mint.js';
import { RECLAIM_REASON } from '../../src/middleware/index.js';
import type { SemanticMiddleware } from '../../src/middleware/semantic-middleware.js';
import { plant, svc } from '../../src/vocab/index.js';
import { startDoor1, type CellStore } from '../e2e/support/cell.js';
import { startBridge, type BridgeProc, type SidecarProc } from '../e2e/support/daemons.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { DeviceRecorder } from './support/device-recorder.js';
import {
  closeFaultCell,
  faultSuite,
  inProcessCaller,
  openCellStore,
  prng,
  rounds,
  seed,
  STORE_KINDS,
  until,
} from './support/fault-cell.js';
import { auditGraph, readGraph, values, type GraphIndex } from './support/graph-audit.js';

const DEVICE_MS = 400;
const ROUNDS = rounds(4, 25);
const KILL_POINTS = ['before-trigger', 'queued', 'after-claim', 'device-running', 'device-answered', 'terminal-write'] as const;
type KillPoint = (typeof KILL_POINTS)[number];
const WORKFLOWS = {
  open: { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: plant.door1 },
  close: { capabilityClass: plant.DoorClosingCapability, operationClass: plant.CloseDoorOperation, targetResource: plant.door1 },
} as const;
type WorkflowName = keyof typeof WORKFLOWS;

/** What the caller was told about each Operation. */
interface Requested {
  iri: string;
  workflow: WorkflowName;
  round: number;
  point: KillPoint;
}

describe.each(STORE_KINDS)('door1 killed with -9 at random points and restarted (%s store)', (kind) => {
  const { enabled, onStore } = faultSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let cell: CellStore;
  let bridge: BridgeProc;
  let device: DeviceRecorder;
  let door: SidecarProc;
  let caller: SemanticMiddleware;
  const accepted: Requested[] = [];
  const refused: (Requested & { error: string })[] = [];
  const history: string[] = [];

  const restart = async (port = 0): Promise<SidecarProc> => {
    const env = { SIDECAR_DEVICE_TIMEOUT_MS: '60000' };
    return (await startDoor1(group, dir, cell, { bridge: { ...bridge, socket: device.socket }, env, port })).sidecar;
  };

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-faults-kill-${kind}-`));
    cell = await openCellStore(kind, group);
    bridge = await startBridge(group, 'door1-bridge', { kind: 'door', socket: join(dir, 'door1-bridge.sock'), delayMs: DEVICE_MS });
    device = await DeviceRecorder.start(join(dir, 'door1-device.sock'), bridge.socket!);
    door = await restart();
    caller = inProcessCaller(cell);
  }, 180_000);

  afterAll(() => closeFaultCell(group, cell, dir, () => device?.close()), 60_000);

  /** Requests one Operation and files it as accepted or refused. */
  async function request(workflow: WorkflowName, round: number, point: KillPoint): Promise<Requested | undefined> {
    const iri = mintOperationIri(WORKFLOWS[workflow].operationClass);
    const entry = { iri, workflow, round, point };
    try {
      await caller.request({ ...WORKFLOWS[workflow], operationIri: iri });
      accepted.push(entry);
      return entry;
    } catch (error) {
      refused.push({ ...entry, error: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }

  const status = async (iri: string): Promise<string[]> => values(await readGraph(cell.client, cell.graph), iri, svc.operationStatus);

  /** Drives one round to its kill point; resolves once door1 was killed. */
  async function killAt(point: KillPoint, round: number, rng: ReturnType<typeof prng>): Promise<void> {
    const kill = async (delayMs: number): Promise<void> => {
      await sleep(delayMs);
      await door.proc.kill('SIGKILL');
    };
    if (point === 'before-trigger') {
      await Promise.all([kill(rng.int(0, 30)), request('open', round, point)]);
      return;
    }
    const first = await request('open', round, point);
    if (!first) throw new Error(`round ${round}: door1 refused an Operation before it was killed: ${JSON.stringify(refused.at(-1))}`);
    if (point === 'queued') {
      await request('close', round, point);
      return kill(rng.int(0, 50));
    }
    if (point === 'after-claim') {
      await until(
        async () => ((await status(first.iri)).includes('running') ? true : undefined),
        `round ${round}: the claim`,
        15_000,
        () => door.proc.tail(),
        10,
      );
      return kill(rng.int(0, 20));
    }
    await device.waitFor(() => device.executions(first.iri).length > 0, `round ${round}: the device call`);
    if (point === 'device-running') return kill(rng.int(0, DEVICE_MS - 50));
    await device.waitFor(() => device.executions(first.iri)[0]!.answeredAt !== undefined, `round ${round}: the device's answer`);
    return kill(point === 'device-answered' ? rng.int(0, 2) : rng.int(2, 30));
  }

  /**
   * Accepted Operations, and refused ones the receiver took before it died (its answer never
   * reached the caller, whose revert then leaves the Operation whole): these must end terminal.
   */
  function taken(index: GraphIndex): Requested[] {
    return [...accepted, ...refused.filter((op) => index.has(op.iri))];
  }

  /** Every taken Operation terminal, once; every other refused one absent; nothing ran twice. */
  function violations(index: GraphIndex, service: string): string[] {
    const out: string[] = [];
    for (const op of taken(index)) {
      const where = `${op.iri} (round ${op.round}, ${op.point})`;
      const runs = device.executions(op.iri).length;
      const statuses = values(index, op.iri, svc.operationStatus);
      if (statuses.length !== 1 || !['done', 'failed'].includes(statuses[0]!)) out.push(`${where}: statuses ${JSON.stringify(statuses)}`);
      if (values(index, op.iri, svc.executionTimestamp).length !== 1) out.push(`${where}: no single executionTimestamp`);
      const result = values(index, op.iri, svc.executionResult);
      if (result.length !== 1) out.push(`${where}: no single executionResult`);
      if (runs > 1) out.push(`${where}: ran ${runs} times on the device`);
      if (statuses[0] === 'done') {
        if (runs !== 1) out.push(`${where}: done but ran ${runs} times`);
        if (values(index, op.iri, svc.executedByWorkflow)[0] !== `${service}_workflow_${op.workflow}`)
          out.push(`${where}: done without its Workflow`);
        if ((JSON.parse(result[0] ?? '{}') as { operation?: unknown }).operation !== op.iri)
          out.push(`${where}: done with result ${result[0]}`);
      }
      if (statuses[0] === 'failed' && result[0] !== RECLAIM_REASON) out.push(`${where}: failed for ${result[0]}`);
    }
    for (const op of refused.filter((r) => !index.has(r.iri))) {
      if (device.executions(op.iri).length > 0)
        out.push(`${op.iri} (round ${op.round}, refused: ${op.error}) is gone but ran on the device`);
    }
    return out;
  }

  onStore(
    `should end every Operation in exactly one terminal state, none run twice and none lost, over ${ROUNDS} rounds`,
    async () => {
      const runSeed = seed();
      console.info(`kill-restart on the ${kind} store: seed ${runSeed} (FAULT_SEED=${runSeed} replays it), ${ROUNDS} rounds`);
      const rng = prng(runSeed);
      for (let round = 1; round <= ROUNDS; round++) {
        const point = rng.pick(KILL_POINTS);
        history.push(`${round}:${point}`);
        const port = door.port;
        await killAt(point, round, rng);
        const killed = door;
        door = await restart(port);
        // What was left unfinished at the last look, for the message should it stay so.
        let unfinished: string[] = [];
        await until(
          async () => {
            const index = await readGraph(cell.client, cell.graph);
            const statuses = (op: Requested): string[] => values(index, op.iri, svc.operationStatus);
            unfinished = taken(index)
              .filter((op) => !['done', 'failed'].includes(statuses(op)[0] ?? ''))
              .map(
                (op) =>
                  `${op.iri} (round ${op.round}, ${op.point}): statuses ${JSON.stringify(statuses(op))}, ${device.executions(op.iri).length} device runs`,
              );
            return unfinished.length === 0 ? index : undefined;
          },
          `seed ${runSeed}, round ${round} (${history.join(' ')}): every Operation terminal`,
          30_000,
          () => `${unfinished.join('\n')}\nbefore the kill:\n${killed.proc.tail(1500)}\nafter the restart:\n${door.proc.tail()}`,
        );
        await sleep(DEVICE_MS); // a second run on the device would show by now
        const index = await readGraph(cell.client, cell.graph);
        expect({ seed: runSeed, history, violations: violations(index, door.service) }).toEqual({ seed: runSeed, history, violations: [] });
        expect({ seed: runSeed, audit: await auditGraph(cell.client, cell.graph) }).toEqual({ seed: runSeed, audit: [] });
      }
      // Each kill point leaves its mark: the rounds did reach the device and the restarts.
      expect(accepted.length + refused.length).toBeGreaterThanOrEqual(ROUNDS);
    },
    60_000 + ROUNDS * 20_000,
  );
});
