/**
 * A caller gives up while the receiver has lost its store, as real processes: door1's sidecar
 * reaches the shared store through a loopback proxy the test cuts, and its device is a loopback
 * HTTP server that counts every call (and holds the first one, so that the next Operation waits
 * in door1's queue). `semantic-sidecar request --timeout 2 --wait` dispatches to door1, its wait
 * expires while door1's link is cut, and the caller cancels: it sees its Operation cancelled,
 * and when the link returns door1 never runs it. On the embedded store served by `store serve`,
 * and on Virtuoso when SPARQL_ENDPOINT is set.
 *
 * Knobs: none.
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliCaller } from '../../src/lib/caller-identity.js';
import { readOperation } from '../../src/middleware/operations/operation-watch.js';
import { plant } from '../../src/vocab/index.js';
import { DOOR1_CONFIG, type CellStore } from '../e2e/support/cell.js';
import { startSidecar, type SidecarProc } from '../e2e/support/daemons.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import {
  closeFaultCell,
  faultSuite,
  inProcessCaller,
  openCellStore,
  operationWhen,
  STORE_KINDS,
  until,
  via,
} from './support/fault-cell.js';
import { auditGraph } from './support/graph-audit.js';
import { FaultProxy } from './support/tcp-proxy.js';

const OPEN = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, targetResource: plant.door1 };

/** A device on loopback HTTP counting its workflow calls by Operation; while `holding`, it answers them only at `release()`. */
class CountingDevice {
  readonly calls: string[] = [];
  holding = false;
  readonly #waiting: (() => void)[] = [];

  private constructor(readonly server: Server) {}

  static async start(): Promise<CountingDevice> {
    const device: CountingDevice = new CountingDevice(
      createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        req.on('end', () => {
          const answer = (value: unknown): void =>
            void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
          if (req.method !== 'POST') return answer('closed');
          const operation = (JSON.parse(body || '{}') as { operation?: string }).operation ?? 'direct';
          device.calls.push(operation);
          if (device.holding) device.#waiting.push(() => answer({ ok: true }));
          else answer({ ok: true });
        });
      }),
    );
    await new Promise<void>((resolve) => device.server.listen(0, '127.0.0.1', resolve));
    return device;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  runs(operation: string): number {
    return this.calls.filter((c) => c === operation).length;
  }

  release(): void {
    this.holding = false;
    for (const answer of this.#waiting.splice(0)) answer();
  }

  close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe.each(STORE_KINDS)('a request whose timeout expires while the receiver has no store (%s store)', (kind) => {
  const { enabled, onStore } = faultSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let cell: CellStore;
  let doorLink: FaultProxy;
  let device: CountingDevice;
  let door: SidecarProc;

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-faults-timeout-cancel-${kind}-`));
    cell = await openCellStore(kind, group);
    [doorLink, device] = await Promise.all([FaultProxy.start(cell.url), CountingDevice.start()]);
    const store = via(cell, doorLink.url);
    door = await startSidecar(
      group,
      'door1',
      [
        ...['--config', DOOR1_CONFIG, '--store', store.url, ...(store.kind === 'virtuoso' ? ['--graph', store.graph] : [])],
        ...['--port', '0', '--heartbeat-interval', '1', '--local-api-socket', join(dir, 'door1-local.sock'), '--device-url', device.url],
      ],
      { cwd: dir, env: { STATE_DIRECTORY: join(dir, 'door1-state'), SPARQL_TIMEOUT_MS: '2500' } },
    );
  }, 180_000);

  afterAll(
    () =>
      closeFaultCell(
        group,
        cell,
        dir,
        () => doorLink?.close(),
        () => device?.close(),
      ),
    60_000,
  );

  onStore(
    'should cancel the Operation for the caller, and never run it on the device when the link returns',
    async () => {
      const logs = (): string => door.proc.tail(3000);
      // door1 is busy: its device holds the first Operation, so the next one waits in door1's queue.
      device.holding = true;
      const busy = await inProcessCaller(cell).request(OPEN);
      await until(() => (device.runs(busy) === 1 ? true : undefined), 'the device busy with the first Operation', 20_000, logs);

      const request = group.cli('request', [
        ...['request', '--capability', 'plant:DoorOpeningCapability', '--operation-class', 'plant:OpenDoorOperation'],
        ...['--target', 'plant:door1', '--timeout', '2', '--wait', ...cell.flags, '--log-level', 'warn'],
      ]);
      // Delivered (door1 queued it), then door1 loses its store before it can claim it.
      const operation = await request.firstLine(20_000);
      doorLink.cut('refuse');
      device.release();
      const exit = await request.exited;
      expect(exit.code).toBe(1);
      expect(request.stderr).toContain(`Operation <${operation}>`);
      expect(request.stderr).toContain('it was cancelled');
      const printed = JSON.parse(request.stdout.slice(request.stdout.indexOf('\n') + 1)) as Record<string, unknown>;
      expect(printed).toEqual({
        operationIri: operation,
        outcome: 'cancelled',
        status: 'failed',
        cancelledBy: cliCaller(),
      });
      expect(await readOperation(cell.ogm, operation)).toMatchObject({
        status: 'failed',
        failureKind: 'cancelled',
        cancelledBy: cliCaller(),
        requestedBy: cliCaller(),
      });

      // The link returns: door1 finishes the first Operation and drops the cancelled one.
      doorLink.restore();
      await operationWhen(cell, busy, (s) => s?.status === 'done', 30_000, logs);
      // door1 reaches it in its queue, finds it failed, and drops it.
      await until(
        () =>
          door.proc.logs().some((l) => l.operation === operation && l.msg === 'queue entry dropped: it cannot be claimed')
            ? true
            : undefined,
        'door1 dropping the cancelled Operation from its queue',
        15_000,
        logs,
      );
      await sleep(1500); // time to run it, if it would
      expect(device.runs(operation)).toBe(0);
      expect(await readOperation(cell.ogm, operation)).toMatchObject({ status: 'failed', failureKind: 'cancelled' });
      expect(await auditGraph(cell.client, cell.graph)).toEqual([]);
    },
    120_000,
  );
});
