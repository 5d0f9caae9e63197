import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser } from 'n3';
import type { MqttClient } from 'mqtt';
import { brokerUrl, itWithBroker } from '../support/broker.js';
import { ensureBuilt } from '../support/build.js';
import { jsonLines, ProcessGroup, ROOT, type Proc } from '../support/sidecar-process.js';
import { topicPrefix } from './support.js';

const EXAMPLE = join(ROOT, 'examples', 'mqtt-plc');
const PLC = join(EXAMPLE, 'plc.mjs');
const ONTOLOGY = join(EXAMPLE, 'ontology.mjs');
const RESOURCE = 'https://example.org/plant#transferUnit1';

/** Runs one of the example's scripts to its end. */
function script(path: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path, ...args], { encoding: 'utf8', timeout: 10_000, env: { ...process.env, MQTT_URL: '' } });
}

/** Polls `probe` every 50 ms until it returns a value other than undefined. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('examples/mqtt-plc', () => {
  it('should ship an ontology that declares a readwrite and a read-only MQTT parameter on the default broker and prefix', () => {
    const quads = new Parser().parse(readFileSync(join(EXAMPLE, 'transfer-unit.ttl'), 'utf8'));
    const objects = (predicate: string): string[] => quads.filter((q) => q.predicate.value.endsWith(predicate)).map((q) => q.object.value);
    expect(objects('#accessMode').sort()).toEqual(['read', 'readwrite']);
    expect(objects('#hasMQTTTopic').sort()).toEqual(['plant/transferUnit1/conveyor/speed', 'plant/transferUnit1/lightBarrier/occupied']);
    expect(objects('#hasMQTTSetTopic')).toEqual(['plant/transferUnit1/conveyor/speed_set']);
    expect(objects('#hasMQTTValuePath')).toEqual(['data.value']);
    expect(new Set(objects('#hasMQTTBrokerIP'))).toEqual(new Set(['127.0.0.1']));
    // Without options, ontology.mjs prints the same graph.
    const printed = script(ONTOLOGY, []);
    expect(printed.status).toBe(0);
    expect(new Parser({ format: 'N-Triples' }).parse(printed.stdout)).toHaveLength(quads.length);
  });

  it('should rewrite only the broker and the topic prefix', () => {
    const printed = script(ONTOLOGY, ['--broker', 'mqtt://mosquitto:1884', '--prefix', 'cell/$&tu']);
    expect(printed.status).toBe(0);
    expect(printed.stdout).toContain('"cell/$&tu/conveyor/speed_set"');
    expect(printed.stdout).toContain('"mosquitto"');
    expect(printed.stdout).toContain('"1884"^^<http://www.w3.org/2001/XMLSchema#integer>');
    expect(printed.stdout).not.toMatch(/plant\/transferUnit1|127\.0\.0\.1|"1883"/u);
  });

  it.each([
    ['plc.mjs', ['--broker', 'http://x'], 'the broker must be an mqtt:// URL'],
    ['plc.mjs', ['--interval-ms', '5'], '--interval-ms must be a whole number >= 10'],
    ['plc.mjs', ['--prefix', 'a/#'], '--prefix must be a topic name without wildcards'],
    ['plc.mjs', ['--log', 'xml'], '--log must be json or plain'],
    ['ontology.mjs', ['--bogus'], "Unknown option '--bogus'"],
  ])('%s should exit 2 with usage for %j', (name, args, message) => {
    const result = script(join(EXAMPLE, name), args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage: node');
  });

  describe('with a sidecar on a real broker', () => {
    const test = itWithBroker();
    const group = new ProcessGroup();
    const dir = mkdtempSync(join(tmpdir(), 'sm-mqtt-plc-'));
    const clients: MqttClient[] = [];
    beforeAll(async () => {
      if (brokerUrl() !== undefined) await ensureBuilt();
    }, 180_000);
    afterEach(async () => {
      await group.cleanup();
      await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    test('should serve the PLC readings, make its speed follow a setpoint, and stop both cleanly on SIGTERM', async () => {
      const broker = brokerUrl()!;
      const prefix = topicPrefix();
      const ontology = join(dir, 'transfer-unit.nt');
      expect(script(ONTOLOGY, ['--broker', broker, '--prefix', prefix, '--out', ontology]).status).toBe(0);

      const plc = group.spawn('plc', PLC, ['--broker', broker, '--prefix', prefix, '--interval-ms', '100', '--ramp', '2']);
      await plc.waitFor(() => plcLogs(plc).find((l) => l.msg === 'connected'), 'connected line');
      const sidecar = group.cli('sidecar', ['start', '--resource', RESOURCE, '--port', '0', '--store', 'memory'], {
        cwd: mkdtempSync(join(dir, 'sidecar-')),
        env: { SIDECAR_ONTOLOGY_FILES: ontology },
      });
      const { address } = JSON.parse(await sidecar.firstLine(30_000)) as { address: string };
      await until('readiness', async () => ((await fetch(`${address}/readyz`)).status === 200 ? true : undefined));

      const parameters = async (): Promise<Array<Record<string, unknown>>> =>
        ((await (await fetch(`${address}/parameters`)).json()) as { parameters: Array<Record<string, unknown>> }).parameters;
      const list = await until('readings', async () => {
        const found = await parameters();
        return found.every((p) => p.value !== null) ? found : undefined;
      });
      expect(list).toEqual([
        expect.objectContaining({ name: 'hasConveyorSpeed', datatype: 'xsd:float', accessMode: 'readwrite', writable: true, value: 0 }),
        expect.objectContaining({ name: 'isOccupied', datatype: 'xsd:boolean', accessMode: 'read', writable: false, value: false }),
      ]);

      // The belt ramps at 2 m/s² in 0.1 s steps: 0.2, 0.4, ... up to the setpoint of 1.2 m/s.
      const seen = new Set<unknown>();
      const put = await fetch(`${address}/parameters/hasConveyorSpeed`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value: 1.2 }),
      });
      expect(put.status).toBe(200);
      await until('the speed at its setpoint', async () => {
        const speed = (await parameters())[0]!.value;
        seen.add(speed);
        return speed === 1.2 ? speed : undefined;
      });
      expect([...seen].some((v) => typeof v === 'number' && v > 0 && v < 1.2)).toBe(true);
      expect(
        plcLogs(plc)
          .filter((l) => l.msg === 'setpoint accepted')
          .map((l) => l.setpoint),
      ).toEqual([1.2]);
      // A moving belt carries parts past the light barrier.
      await until('an occupied light barrier', async () => ((await parameters())[1]!.value === true ? true : undefined));

      expect(await sidecar.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(await plc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(plcLogs(plc).at(-1)).toMatchObject({ level: 30, msg: 'stopped', signal: 'SIGTERM' });
      expect(sidecar.stdout + sidecar.stderr).not.toContain(prefix);
    }, 90_000);
  });
});

function plcLogs(plc: Proc): Array<Record<string, unknown>> {
  return jsonLines(plc.stdout);
}
