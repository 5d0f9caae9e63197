/**
 * A plant cell whose surfaces are protected, as real processes: door1 requires the plant token
 * and serves HTTPS with a certificate made at test time; robot1 and `semantic-sidecar request`
 * send the token and trust the certificate through NODE_EXTRA_CA_CERTS. On the embedded store
 * served over SPARQL, and on Virtuoso when SPARQL_ENDPOINT is set. Also: a sidecar listening
 * beyond loopback without a token warns.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch as undiciFetch } from 'undici';
import { BEARER_REALM } from '../../src/http/bearer-auth.js';
import { plant, svc } from '../../src/vocab/index.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup, runCli, type CliResult } from '../support/sidecar-process.js';
import { selfSigned, trustingFetch, type SelfSigned } from '../middleware/surface/support/self-signed.js';
import { cellSuite, servedStore, startDoor1, startRobot1, virtuosoStore, type CellResource, type CellStore } from './support/cell.js';
import { startSidecar, startWatchdog } from './support/daemons.js';
import { unixRequest } from './support/unix-http.js';

const PLANT_TOKEN = `plant-${randomUUID()}`;
const WRONG_TOKEN = `wrong-${randomUUID()}`;
const DOOR_OPEN = [
  '--capability',
  'plant:DoorOpeningCapability',
  '--operation-class',
  'plant:OpenDoorOperation',
  '--target',
  'plant:door1',
];

describe.each(['served', 'virtuoso'] as const)('a cell with a token and HTTPS on the %s store', (kind) => {
  const { enabled, onStore } = cellSuite(kind);
  const group = new ProcessGroup();
  let dir: string | undefined;
  let tls: SelfSigned | undefined;
  let store: CellStore | undefined;
  let door: CellResource;
  let robot: CellResource;
  const files = { plant: '', wrong: '' };

  /** `semantic-sidecar request` against the cell's store, trusting the test certificate. */
  const request = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    runCli(['request', ...args, ...store!.flags, '--log-level', 'warn'], {
      env: { NODE_EXTRA_CA_CERTS: tls!.certFile, ...env },
      timeoutMs: 60_000,
    });

  /** Operations of class OpenDoorOperation in the cell's graph. */
  const openOperations = async (): Promise<number> => {
    const rows = await store!.client.select(
      `SELECT (COUNT(?op) AS ?n) WHERE { GRAPH <${store!.graph}> { ?op a <${plant.OpenDoorOperation}> } }`,
    );
    return Number(rows[0]?.n?.value ?? 0);
  };

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-e2e-auth-${kind}-`));
    tls = await selfSigned();
    files.plant = join(dir, 'plant-token');
    files.wrong = join(dir, 'wrong-token');
    await writeFile(files.plant, `${PLANT_TOKEN}\n`, { mode: 0o600 });
    await writeFile(files.wrong, `${WRONG_TOKEN}\n`, { mode: 0o600 });
    store = kind === 'served' ? await servedStore(group) : await virtuosoStore(process.env.SPARQL_ENDPOINT!);
    const secure = ['--http-token-file', files.plant, '--http-tls-cert-file', tls.certFile, '--http-tls-key-file', tls.keyFile];
    [door, robot] = await Promise.all([
      startDoor1(group, dir, store, { args: secure }),
      startRobot1(group, dir, store, { args: ['--outgoing-token-file', files.plant], env: { NODE_EXTRA_CA_CERTS: tls.certFile } }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await group.cleanup();
    await store?.close();
    await tls?.remove();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  onStore(
    'should register an https:// address and keep only the probes open',
    async () => {
      expect(door.sidecar.address).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/u);
      const rows = await store!.client.select(
        `SELECT ?a WHERE { GRAPH <${store!.graph}> { <${door.sidecar.service}> <${svc.address}> ?a } }`,
      );
      expect(rows.map((r) => r.a?.value)).toEqual([door.sidecar.address]);
      const { agent } = trustingFetch(tls!.cert);
      try {
        const get = (path: string, token?: string) =>
          undiciFetch(`${door.sidecar.address}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, dispatcher: agent });
        const health = await get('/healthz');
        expect([health.status, await health.text()]).toEqual([200, '{"status":"ok"}']);
        const anonymous = await get('/state/door');
        expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, `Bearer realm="${BEARER_REALM}"`]);
        expect(JSON.parse(await anonymous.text())).toEqual({ detail: expect.stringContaining('Authorization: Bearer <token>') });
        const wrong = await get('/state/door', WRONG_TOKEN);
        expect(wrong.status).toBe(401);
        expect(await wrong.text()).not.toContain(WRONG_TOKEN);
        const state = await get('/state/door', PLANT_TOKEN);
        expect(state.status).toBe(200);
        expect(['open', 'closed']).toContain(JSON.parse(await state.text()));
      } finally {
        await agent.close();
      }
    },
    60_000,
  );

  onStore(
    'should run `request --token-file` over HTTPS, and revert what a missing or wrong token could not deliver',
    async () => {
      const before = await openOperations();
      const missing = await request(DOOR_OPEN);
      expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('requires a bearer token and none is configured for it')]);
      const wrong = await request(DOOR_OPEN, { SIDECAR_OUTGOING_TOKEN_FILE: files.wrong });
      expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining('answered 401: the receiver refused the token sent')]);
      expect(wrong.stderr).not.toContain(WRONG_TOKEN);
      expect(await openOperations()).toBe(before);
      const done = await request([...DOOR_OPEN, '--token-file', files.plant, '--wait', '--timeout', '30']);
      expect([done.code, done.stderr]).toEqual([0, expect.any(String)]);
      expect(done.stdout).toContain('"status": "done"');
      expect(await openOperations()).toBe(before + 1);
      expect(await door.bridge.logged((rs) => rs.some((r) => r.path === '/open'), 'POST /open in the bridge log')).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: '/open', status: 200 })]),
      );
    },
    90_000,
  );

  onStore(
    "should dispatch from robot1's local API to door1 with the plant token",
    async () => {
      const socket = robot.sidecar.localApiSocket!;
      const body = { capabilityClass: plant.DoorClosingCapability, operationClass: plant.CloseDoorOperation, targetResource: plant.door1 };
      const created = await unixRequest(socket, 'POST', '/operations', { body });
      expect([created.status, created.text]).toEqual([201, expect.any(String)]);
      const { operation } = created.json as { operation: string };
      const status = await unixRequest(socket, 'GET', `/operations/status?iri=${encodeURIComponent(operation)}&waitMs=20000`, {
        timeoutMs: 30_000,
      });
      expect(status.json).toMatchObject({ operationIri: operation, status: 'done', workflowIri: `${door.sidecar.service}_workflow_close` });
      expect(door.sidecar.proc.stderr + robot.sidecar.proc.stderr).not.toContain(PLANT_TOKEN);
    },
    60_000,
  );
});

describe('a sidecar listening beyond loopback', () => {
  const group = new ProcessGroup();
  let dir: string;
  beforeAll(async () => {
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'sm-e2e-exposed-'));
  }, 180_000);
  afterAll(async () => {
    await group.cleanup();
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('should warn, naming the host and how to set a token, when it has none', async () => {
    const args = [
      '--resource',
      'plant:conveyor1',
      '--store',
      'memory',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--address',
      'http://conveyor1.plant.local:8003',
    ];
    const sidecar = await startSidecar(group, 'exposed', [...args, '--local-api-socket', join(dir, 'local.sock')], { cwd: dir });
    const warning = sidecar.proc.logs().find((l) => String(l.msg).includes('without a token'));
    expect(warning).toMatchObject({ level: 40, host: '0.0.0.0' });
    expect(String(warning!.msg)).toMatch(
      /listens on 0\.0\.0\.0, beyond this machine, without a token.*http\.tokenFile or SIDECAR_HTTP_TOKEN_FILE/u,
    );
  }, 90_000);

  it("should guard the watchdog's activity feed with the token from the environment, probes open", async () => {
    const watchdog = await startWatchdog(group, ['--store', 'memory', '--activity-feed', '--log-level', 'warn'], {
      cwd: dir,
      env: { SIDECAR_HTTP_TOKEN: PLANT_TOKEN },
    });
    const get = (path: string, token?: string) =>
      fetch(`${watchdog.address}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    expect((await get('/healthz')).status).toBe(200);
    const refused = await get('/activity');
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, `Bearer realm="${BEARER_REALM}"`]);
    expect((await get('/activity', WRONG_TOKEN)).status).toBe(401);
    expect((await get('/activity', PLANT_TOKEN)).status).toBe(200);
  }, 90_000);
});
