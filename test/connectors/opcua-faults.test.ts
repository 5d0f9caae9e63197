import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectorCredentials } from '../../src/connectors/credentials.js';
import { openOpcuaWorkflows, type OpcuaWorkflows } from '../../src/connectors/opcua/workflows.js';
import { defaultConnectorRegistry } from '../../src/connectors/registry.js';
import { plant } from '../../src/vocab/index.js';
import { logSink, middlewareSuite, postJson, until } from '../middleware/support/harness.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import {
  NODES,
  OPCUA_TBOX,
  opcuaParameters,
  opcuaWorkflows,
  rejected,
  startPlc,
  trustRejected,
  trustServer,
  type RunningPlc,
} from './opcua-support.js';
import { EX } from './support.js';

const G = 'urn:test:connectors:opcua-faults';
const CLASSES = { workflowClass: plant.OpenDoorWorkflow, capabilityClass: plant.DoorOpeningCapability };
const WAIT_MS = 60_000;

describe('OPC UA connectors when the server or its security fails', () => {
  const suite = middlewareSuite('embedded', G);
  const group = new ProcessGroup();
  const dir = mkdtempSync(join(tmpdir(), 'sm-opcua-faults-'));
  const opened: OpcuaWorkflows[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((w) => w.close()));
    await group.cleanup();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** door1 with the speed parameter and start/stop workflows on `plc`, started. */
  async function cell(
    plc: RunningPlc,
    pkiDir: string,
    security: { securityMode?: string; userName?: string } = {},
    credentials?: ConnectorCredentials,
  ) {
    const nodes = [{ property: `${EX}speed`, nodeId: NODES.speed, mode: 'readwrite', endpoint: plc.endpoint, ...security }];
    await suite.store!.load(
      [OPCUA_TBOX, opcuaParameters(plant.door1, nodes), opcuaWorkflows(plant.door1, plc.endpoint, CLASSES, security)].join('\n'),
      {
        graph: G,
        format: 'text/turtle',
      },
    );
    const sink = logSink('info');
    const opcua = await openOpcuaWorkflows({
      source: suite.newOgm().db,
      resource: plant.door1,
      logger: sink.logger,
      pkiDir,
      credentials: credentials ?? null,
    });
    opened.push(opcua);
    const mw = suite.create({
      resourceIri: plant.door1,
      serviceClass: plant.ControllerService,
      logger: sink.logger,
      connectorRegistry: defaultConnectorRegistry({ opcua: { pkiDir } }),
      connectorCredentials: credentials ?? null,
    });
    for (const w of opcua.workflows) mw.workflow(w.options, w.invoke);
    await mw.start();
    const base = mw.address!;
    const ready = async (): Promise<boolean> => (await fetch(`${base}/readyz`)).status === 200 && opcua.connected();
    const count = (msg: string): number => sink.lines().filter((l) => l.msg === msg).length;
    return { mw, opcua, sink, base, ready, count };
  }

  it(
    'should warn, be not ready and reconnect after a session loss and a server restart',
    async () => {
      const plcPki = join(dir, 'restart-plc');
      const clientPki = join(dir, 'restart-client');
      let plc = await startPlc(group, plcPki);
      trustServer(clientPki, plc.certificate);
      const { base, ready, count, sink } = await cell(plc, clientPki);
      await until(ready, 'readiness', WAIT_MS);

      // Session loss: the PLC closes every session; both connections say so and come back.
      const connectedBefore = count('connector connected');
      plc.proc.child.kill('SIGUSR2');
      await until(() => count('connector connection lost; reconnecting') >= 2, 'the loss warnings', WAIT_MS);
      await until(
        async () => count('connector connected') >= connectedBefore + 2 && (await ready()),
        'reconnection after the session loss',
        WAIT_MS,
      );

      // Server restart: not ready while it is away, then the same values and methods again.
      const lostBefore = count('connector connection lost; reconnecting');
      await plc.proc.kill('SIGKILL');
      await until(() => count('connector connection lost; reconnecting') >= lostBefore + 2, 'the loss warnings', WAIT_MS);
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      expect(await postJson(`${base}/workflows/start/execute`, { speed: 1 })).toMatchObject({ status: 502 });
      const reasons = sink
        .lines()
        .filter((l) => l.msg === 'connector connection lost; reconnecting')
        .map((l) => l.reason);
      expect(reasons.every((r) => typeof r === 'string' && r.startsWith('the '))).toBe(true);
      plc = await startPlc(group, plcPki, ['--port', String(plc.port)]);
      await until(ready, 'readiness after the restart', WAIT_MS);
      expect(await postJson(`${base}/workflows/start/execute`, { speed: 1 })).toEqual({
        status: 200,
        body: { running: true, setpoint: 1 },
      });
      await until(
        async () => ((await (await fetch(`${base}/parameters/speed`)).json()) as { value: unknown }).value === 1,
        'the new speed',
        WAIT_MS,
      );
      expect(JSON.stringify(sink.lines())).not.toContain(String(plc.port));
    },
    4 * WAIT_MS,
  );

  it(
    'should refuse to be ready with a wrong password, saying what to check, and connect with the right one',
    async () => {
      const passwordFile = join(dir, 'plc-password');
      writeFileSync(passwordFile, 'right-horse-battery\n');
      const clientPki = join(dir, 'credentials-client');
      const plc = await startPlc(group, join(dir, 'credentials-plc'), ['--user', 'operator', '--password-file', passwordFile]);
      trustServer(clientPki, plc.certificate);
      const wrong = await cell(plc, clientPki, { userName: 'operator' }, { default: { username: 'operator', password: 'wrong-password' } });
      await until(() => wrong.count('connector cannot connect') >= 2, 'the refusal warnings', WAIT_MS);
      const warning = wrong.sink.lines().find((l) => l.msg === 'connector cannot connect')!;
      expect(warning.reason).toMatch(
        /^the server refused the user name or password \(Bad[A-Za-z]+\): check the user name and the password file$/u,
      );
      expect(JSON.stringify(wrong.sink.lines())).not.toContain('wrong-password');
      expect((await fetch(`${wrong.base}/readyz`)).status).toBe(503);
      await wrong.mw.stop();

      const right = await cell(plc, clientPki, {}, { default: { username: 'operator', password: 'right-horse-battery' } });
      await until(right.ready, 'readiness with the right password', WAIT_MS);
    },
    3 * WAIT_MS,
  );

  it(
    "should connect with SignAndEncrypt only once the server's self-signed certificate is trusted",
    async () => {
      const clientPki = join(dir, 'secure-client');
      const plc = await startPlc(group, join(dir, 'secure-plc'), ['--secure-only']);
      const { count, sink, base, ready } = await cell(plc, clientPki, { securityMode: 'SignAndEncrypt' });
      await until(() => count('connector cannot connect') >= 2, 'the untrusted-certificate warnings', WAIT_MS);
      expect(sink.lines().find((l) => l.msg === 'connector cannot connect')!.reason).toBe(
        "the server's certificate is not trusted by this instance: move it from the PKI directory's rejected/ to trusted/certs/",
      );
      expect((await fetch(`${base}/readyz`)).status).toBe(503);
      // The store was made on first start, the certificate it refused is in rejected/.
      await until(() => rejected(clientPki).length > 0, 'the rejected certificate', WAIT_MS);

      // Moved again while it reappears: the parameters' and the workflows' connections may both
      // have refused it concurrently, and a certificate in rejected/ and trusted/ counts as rejected.
      await until(
        async () => {
          trustRejected(clientPki);
          return ready();
        },
        'readiness once trusted',
        2 * WAIT_MS,
      );
      await until(
        async () => ((await (await fetch(`${base}/parameters/speed`)).json()) as { value: unknown }).value !== null,
        'a value',
        WAIT_MS,
      );
      expect(await postJson(`${base}/workflows/stop/execute`, {})).toMatchObject({ status: 200 });
    },
    4 * WAIT_MS,
  );
});
