import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../support/build.js';
import { jsonLines, ProcessGroup, ROOT, type Proc } from '../support/sidecar-process.js';
import { rejected, startPlc, trustRejected } from './opcua-support.js';

const EXAMPLE = join(ROOT, 'examples', 'opcua-plc');
const WATCH = join(ROOT, 'test', 'connectors', 'opcua-module-watch.mjs');
const WAIT_MS = 90_000;

/** Polls `probe` every 100 ms until it returns a value other than undefined. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a sidecar process with OPC UA declarations (examples/opcua-plc)', () => {
  const group = new ProcessGroup();
  const dir = mkdtempSync(join(tmpdir(), 'sm-opcua-sidecar-'));
  afterEach(() => group.cleanup());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A sidecar started with only --resource (and a memory store), its ontology from `ontology`, node-opcua's loads watched. */
  async function sidecar(name: string, resource: string, ontology: string, env: NodeJS.ProcessEnv = {}) {
    const cwd = mkdtempSync(join(dir, `${name}-`));
    const watch = join(cwd, 'modules.txt');
    const proc = group.cli(name, ['start', '--resource', resource, '--port', '0', '--store', 'memory'], {
      cwd,
      env: { SIDECAR_ONTOLOGY_FILES: ontology, NODE_OPTIONS: `--import ${WATCH}`, SM_MODULE_WATCH: watch, ...env },
    });
    const { address } = JSON.parse(await proc.firstLine(WAIT_MS)) as { address: string };
    const loaded = (): string => (existsSync(watch) ? readFileSync(watch, 'utf8') : '');
    return { proc, address, cwd, loaded };
  }

  /** The example's ontology for `endpoint`, written by its ontology.mjs. */
  const example = (endpoint: string, secure = false): string => {
    const out = join(dir, `transfer-unit-${secure ? 'secure' : 'none'}.nt`);
    const run = spawnSync(process.execPath, [
      join(EXAMPLE, 'ontology.mjs'),
      '--endpoint',
      endpoint,
      '--out',
      out,
      ...(secure ? ['--secure'] : []),
    ]);
    expect(run.status).toBe(0);
    return out;
  };

  /** Every line the process wrote is a JSON log line (node-opcua's console output went into the logger). */
  const onlyJson = (proc: Proc): void => {
    const lines = `${proc.stdout}${proc.stderr}`.split('\n').filter((l) => l.trim() !== '');
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([]);
    expect(jsonLines(proc.stdout + proc.stderr)).toHaveLength(lines.length);
  };

  it(
    'should not load node-opcua in a sidecar without OPC UA declarations',
    async () => {
      await ensureBuilt();
      const plain = await sidecar(
        'plain',
        'https://example.org/plant#transferUnit1',
        join(ROOT, 'examples', 'mqtt-plc', 'transfer-unit.ttl'),
      );
      await plain.proc.waitFor(() => plain.proc.logs().find((l) => l.msg === 'sidecar registered'), 'registration', WAIT_MS);
      expect(plain.loaded()).toBe('');
    },
    2 * WAIT_MS,
  );

  it(
    'should serve the PLC values, write a setpoint and run its methods with only --resource, over SignAndEncrypt once trusted',
    async () => {
      await ensureBuilt();
      const plc = await startPlc(group, join(dir, 'plc-pki'));
      const ontology = example(plc.endpoint);
      const { proc, address, loaded } = await sidecar('opcua', 'https://example.org/plant#transferUnit2', ontology);
      const json = async (path: string, init?: RequestInit) => {
        const res = await fetch(`${address}${path}`, init);
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const post = (path: string, body: unknown) =>
        json(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await until('readiness', async () => ((await fetch(`${address}/readyz`)).status === 200 ? true : undefined));
      expect(loaded()).toContain('node-opcua-client');
      // The state directory holds the trust lists, made on first start.
      const views = await until('every value', async () => {
        const { body } = await json('/parameters');
        const list = body.parameters as Array<Record<string, unknown>>;
        return list.every((v) => v.value !== null) ? list : undefined;
      });
      expect(views.map((v) => [v.name, v.datatype, v.writable])).toEqual([
        ['conveyorSpeed', 'xsd:double', true],
        ['lightBarrierOccupied', 'xsd:boolean', false],
        ['partCount', 'xsd:int', false],
        ['unitLabel', 'xsd:string', true],
      ]);
      const put = await json('/parameters/conveyorSpeed', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"value":1.2}',
      });
      expect(put.status).toBe(200);
      await until('the speed at its setpoint', async () =>
        (await json('/parameters/conveyorSpeed')).body.value === 1.2 ? true : undefined,
      );
      expect(await post('/workflows/startConveyor/execute', { speed: 0.8 })).toEqual({
        status: 200,
        body: { running: true, setpoint: 0.8 },
      });
      expect(await post('/workflows/startConveyor/execute', { speed: 3 })).toEqual({
        status: 502,
        body: { detail: 'workflow "startConveyor": the method answered BadOutOfRange' },
      });
      expect(await proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      onlyJson(proc);
      for (const secret of [plc.endpoint, String(plc.port), 'ns=1;', 'TransferUnit.'])
        expect(proc.stdout + proc.stderr).not.toContain(secret);

      // The same PLC over SignAndEncrypt: refused until its certificate is moved to trusted/.
      const secure = example(plc.endpoint, true);
      const second = await sidecar('opcua-secure', 'https://example.org/plant#transferUnit2', secure);
      await second.proc.waitFor(() => second.proc.logs().find((l) => l.msg === 'connector cannot connect'), 'the refusal', WAIT_MS);
      expect((await fetch(`${second.address}/readyz`)).status).toBe(503);
      const data = join(second.cwd, '.data');
      const stateDir = join(data, readdirSync(data)[0]!, 'opcua-pki');
      await until('the rejected certificate', () => Promise.resolve(rejected(stateDir).length > 0 ? true : undefined));
      // Moved again while it reappears (both connections may have refused it; in both folders it counts as rejected).
      await until(
        'readiness once trusted',
        async () => {
          trustRejected(stateDir);
          return (await fetch(`${second.address}/readyz`)).status === 200 ? true : undefined;
        },
        2 * WAIT_MS,
      );
      expect((await fetch(`${second.address}/workflows/stopConveyor/execute`, { method: 'POST' })).status).toBe(200);
      expect(await second.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      onlyJson(second.proc);
    },
    6 * WAIT_MS,
  );
});
