import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOpcuaWorkflows, type OpcuaWorkflows } from '../../src/connectors/opcua/workflows.js';
import { defaultConnectorRegistry } from '../../src/connectors/registry.js';
import type { SemanticMiddlewareOptions } from '../../src/middleware/index.js';
import { plant } from '../../src/vocab/index.js';
import { logSink, middlewareSuite, postJson, until } from '../middleware/support/harness.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import {
  NODES,
  OPCUA_TBOX,
  opcuaParameters,
  opcuaWorkflows,
  PLC_START_MS,
  startPlc,
  trustServer,
  type OpcuaNode,
  type RunningPlc,
} from './opcua-support.js';
import { EX } from './support.js';

const G = 'urn:test:connectors:opcua';
const CLASSES = { workflowClass: plant.OpenDoorWorkflow, capabilityClass: plant.DoorOpeningCapability };
const CONNECT_MS = 60_000;

const put = async (url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const getJson = async (url: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('OPC UA connectors against the simulated PLC', () => {
  const suite = middlewareSuite('embedded', G);
  const group = new ProcessGroup();
  const dir = mkdtempSync(join(tmpdir(), 'sm-opcua-'));
  const clientPki = join(dir, 'client-pki');
  const opened: OpcuaWorkflows[] = [];
  let plc: RunningPlc;

  beforeAll(async () => {
    plc = await startPlc(group, join(dir, 'plc-pki'));
    trustServer(clientPki, plc.certificate);
  }, PLC_START_MS + 10_000);
  afterEach(async () => void (await Promise.all(opened.splice(0).map((w) => w.close()))));
  afterAll(async () => {
    await group.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const node = (property: string, nodeId: string, extra: Partial<OpcuaNode> = {}): OpcuaNode => ({
    property: `${EX}${property}`,
    nodeId,
    endpoint: plc.endpoint,
    ...extra,
  });

  /** door1 with the PLC's parameters `nodes` and its start/stop workflows, started; the log sink sees everything. */
  async function cell(nodes: OpcuaNode[], options: Partial<SemanticMiddlewareOptions> = {}, workflows = true) {
    const turtle = [OPCUA_TBOX, opcuaParameters(plant.door1, nodes), workflows ? opcuaWorkflows(plant.door1, plc.endpoint, CLASSES) : ''];
    await suite.store!.load(turtle.join('\n'), { graph: G, format: 'text/turtle' });
    const sink = logSink('debug');
    const opcua = await openOpcuaWorkflows({ source: suite.newOgm().db, resource: plant.door1, logger: sink.logger, pkiDir: clientPki });
    opened.push(opcua);
    const mw = suite.create({
      resourceIri: plant.door1,
      serviceClass: plant.ControllerService,
      logger: sink.logger,
      connectorRegistry: defaultConnectorRegistry({ opcua: { pkiDir: clientPki } }),
      ...options,
    });
    for (const w of opcua.workflows) mw.workflow(w.options, w.invoke);
    await mw.start();
    const base = mw.address!;
    return { mw, opcua, sink, base };
  }

  it(
    'should serve the variables typed by their datatypes, write a readwrite one, and run methods with their status',
    async () => {
      const { mw, opcua, sink, base } = await cell([
        node('speed', NODES.speed, { mode: 'readwrite' }),
        node('occupied', NODES.occupied),
        node('parts', NODES.parts),
        node('label', NODES.label),
      ]);
      await until(async () => (await fetch(`${base}/readyz`)).status === 200 && opcua.connected(), 'readiness', CONNECT_MS);
      const views = async () => (await getJson(`${base}/parameters`)).body.parameters as Array<Record<string, unknown>>;
      await until(async () => (await views()).every((v) => v.value !== null), 'every value', CONNECT_MS);
      const first = await views();
      expect(first.map((v) => [v.name, v.datatype, typeof v.value, v.writable])).toEqual([
        ['label', 'xsd:string', 'string', false],
        ['occupied', 'xsd:boolean', 'boolean', false],
        ['parts', 'xsd:int', 'number', false],
        ['speed', 'xsd:double', 'number', true],
      ]);
      expect(first[0]!.value).toBe('transfer unit 1');

      // A setpoint is written; the PLC ramps its speed to it and the subscription shows it.
      expect((await put(`${base}/parameters/speed`, { value: 1.5 })).status).toBe(200);
      await until(async () => (await getJson(`${base}/parameters/speed`)).body.value === 1.5, 'the speed at its setpoint', CONNECT_MS);
      // Refusals: not of the datatype (nothing sent), read-only, and the server's own bad status.
      expect(await put(`${base}/parameters/speed`, { value: 'fast' })).toMatchObject({ status: 400 });
      expect(await put(`${base}/parameters/occupied`, { value: true })).toMatchObject({ status: 405 });
      const refused = await put(`${base}/parameters/speed`, { value: 5 });
      expect(refused).toEqual({ status: 502, body: { detail: 'parameter "speed": the server refused the setpoint (BadOutOfRange)' } });

      // Methods: outputs by name, a bad status as 502 with its name, arguments checked before the call.
      expect(await postJson(`${base}/workflows/start/execute`, { speed: 1, operation: 'ignored' })).toEqual({
        status: 200,
        body: { running: true, setpoint: 1 },
      });
      expect(await postJson(`${base}/workflows/start/execute`, { speed: 9 })).toEqual({
        status: 502,
        body: { detail: 'workflow "start": the method answered BadOutOfRange' },
      });
      expect(await postJson(`${base}/workflows/start/execute`, {})).toMatchObject({ status: 400 });
      expect(await postJson(`${base}/workflows/start/execute`, { speed: 'fast' })).toMatchObject({ status: 400 });
      const stopped = await postJson(`${base}/workflows/stop/execute`, {});
      expect(stopped.status).toBe(200);
      expect(typeof stopped.body.parts).toBe('number');

      // Projection: nothing southbound in any answer or info-level log line.
      const answers = JSON.stringify([
        await views(),
        (await getJson(`${base}/workflows`)).body,
        await (await fetch(`${base}/readyz`)).text(),
      ]);
      const info = JSON.stringify(sink.lines().filter((l) => (l.level as number) >= 30));
      for (const secret of [plc.endpoint, `:${plc.port}`, 'ns=1;', 'TransferUnit.', '/UA/PLC']) {
        expect(answers).not.toContain(secret);
        expect(info).not.toContain(secret);
      }
      // node-opcua's own console output went to the logger at debug level, not to stdout.
      expect(sink.lines().some((l) => l.msg === 'connector connected')).toBe(true);
      await mw.stop();
    },
    3 * CONNECT_MS,
  );

  it(
    'should not be ready, and say why, while a NodeId is unknown to the server or its type does not hold the datatype',
    async () => {
      const { base, sink } = await cell(
        [node('missing', 'ns=1;s=NoSuchVariable'), node('wrongType', NODES.label), node('parts', NODES.parts)],
        {},
        false,
      );
      const view = async (name: string) => (await getJson(`${base}/parameters/${name}`)).body;
      await until(
        async () => (await view('wrongType')).lastRejection !== null && (await view('missing')).lastRejection !== null,
        'both refusals',
        CONNECT_MS,
      );
      expect(((await view('missing')).lastRejection as { reason: string }).reason).toBe(
        'the server does not serve the variable (BadNodeIdUnknown)',
      );
      expect(((await view('wrongType')).lastRejection as { reason: string }).reason).toBe(
        "the server's variable is of OPC UA String, which does not hold xsd:boolean",
      );
      await until(async () => (await view('parts')).value !== null, 'the good parameter', CONNECT_MS);
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      const warned = sink.lines().filter((l) => l.msg === 'parameter value refused');
      expect(warned.map((l) => l.parameter).sort()).toEqual(['missing', 'wrongType']);
      expect(JSON.stringify(warned)).not.toContain('NoSuchVariable');
    },
    2 * CONNECT_MS,
  );

  it('should leave out a parameter or workflow whose OPC UA metadata is unusable, naming the rule and not the value', async () => {
    const hostile = [
      node('hostile', NODES.speed, { endpoint: 'http://evil.example/x' }),
      node('hostile', 'ns=1;s=bad\u0007', {}),
      node('hostile', NODES.speed, { securityMode: 'Sign', securityPolicy: 'None' }),
      node('hostile', NODES.speed, { securityMode: 'Everything' }),
    ];
    const { sink, base } = await cell(hostile, { autoregisterConnectors: false }, false);
    expect((await getJson(`${base}/parameters`)).body.parameters).toEqual([]);
    const reasons = sink
      .lines()
      .filter((l) => l.msg === 'parameter left out: its connection metadata is unusable')
      .map((l) => l.reason as string);
    expect(reasons).toHaveLength(4);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringContaining('sm:hasOPCUAEndpoint is not an opc.tcp://host:port/path URL'),
        expect.stringContaining('sm:hasOPCUANodeId is not a NodeId in the standard string form'),
        expect.stringContaining('sm:hasOPCUASecurityMode is not one of None, Sign, SignAndEncrypt'),
        expect.stringContaining('sm:hasOPCUASecurityPolicy must be None exactly when the security mode is None'),
      ]),
    );
    for (const value of ['evil', 'bad\u0007', 'Everything']) expect(reasons.join(' ')).not.toContain(value);
  });

  it(
    'should write without subscribing when the wiring only writes, and write nothing when it only observes',
    async () => {
      const writer = await cell([node('speed', NODES.speed, { mode: 'readwrite' })], { connectorSyncDirection: 'from_persistence' }, false);
      await until(async () => (await fetch(`${writer.base}/readyz`)).status === 200, 'readiness', CONNECT_MS);
      expect((await put(`${writer.base}/parameters/speed`, { value: 0.5 })).status).toBe(200);
      expect((await getJson(`${writer.base}/parameters/speed`)).body.value).toBeNull();
      await writer.mw.stop();
      const observer = await cell([node('speed', NODES.speed, { mode: 'readwrite' })], { connectorSyncDirection: 'to_persistence' }, false);
      await until(
        async () => (await getJson(`${observer.base}/parameters/speed`)).body.value === 0.5,
        'the value written before',
        CONNECT_MS,
      );
      expect(await put(`${observer.base}/parameters/speed`, { value: 1 })).toMatchObject({ status: 405 });
    },
    3 * CONNECT_MS,
  );
});
