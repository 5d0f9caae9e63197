import { afterAll, afterEach, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { brokerUrl } from '../support/broker.js';
import { ProcessGroup, type Proc, type SpawnOptions } from '../support/sidecar-process.js';

/** A sidecar process and the address it printed. */
export interface RunningSidecar {
  proc: Proc;
  address: string;
}

/**
 * What an end-to-end connector suite shares: `it` (skipped without a broker), the sidecar
 * processes (stopped after each test), a temporary directory, and MQTT clients closed after each test.
 */
export function connectorCell(prefix: string): {
  test: typeof it.skip;
  group: ProcessGroup;
  dir: string;
  clients: MqttClient[];
  sidecar(name: string, args: readonly string[], options?: SpawnOptions): Promise<RunningSidecar>;
} {
  const group = new ProcessGroup();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const clients: MqttClient[] = [];
  afterEach(async () => {
    await group.cleanup();
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    test: brokerUrl() === undefined ? it.skip : it,
    group,
    dir,
    clients,
    // Each sidecar in a directory of its own: its state directory holds its local API socket.
    async sidecar(name, args, options = {}) {
      const proc = group.cli(name, ['start', ...args], { cwd: mkdtempSync(join(dir, `${name}-`)), ...options });
      const { address } = JSON.parse(await proc.firstLine(30_000)) as { address: string };
      return { proc, address };
    },
  };
}
