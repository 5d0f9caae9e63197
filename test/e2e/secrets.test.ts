/**
 * No secret leaves through logs, errors or the activity feed, checked on real processes: door1
 * and robot1 run with a store password, HTTP tokens, TLS, outgoing tokens and a loopback local
 * API token (all distinct), the test drives wrong tokens, refused and successful deliveries and
 * store errors from a bad password, then searches everything the processes wrote and answered.
 * On the embedded store served with `store serve --token-file` (which checks the password), and
 * on Virtuoso when SPARQL_ENDPOINT is set (which ignores it: no bad-password run there).
 */
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { OGM } from '../../src/ogm/index.js';
import { openRemoteStore } from '../../src/store/remote-store.js';
import { DEFAULT_DATA_GRAPH, plant } from '../../src/vocab/index.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup, runCli, type CliResult, type Proc } from '../support/sidecar-process.js';
import { selfSigned, type SelfSigned } from '../middleware/surface/support/self-signed.js';
import {
  cellSuite,
  FAULTS_TTL,
  PLANT_TTL,
  ROBOT1_CONFIG,
  startDoor1,
  virtuosoStore,
  type CellResource,
  type CellStore,
} from './support/cell.js';
import { startBridge, startSidecar, startStore, type SidecarProc } from './support/daemons.js';

const secret = (name: string): string => `${name}-${randomUUID()}`;
const SECRETS = {
  store: secret('store'),
  doorHttp: secret('door-http'),
  robotHttp: secret('robot-http'),
  plant: secret('plant'),
  local: secret('local'),
  bad: secret('bad'),
};

/** The served embedded store behind `--token-file`, provisioned with the example plant. */
async function tokenStore(group: ProcessGroup, tokenFile: string, env: NodeJS.ProcessEnv): Promise<CellStore> {
  const served = await startStore(group, ['--memory', '--provision', '--token-file', tokenFile]);
  const load = await runCli(['ontology', 'load', PLANT_TTL, FAULTS_TTL, '--store', served.url, '--log-level', 'warn'], {
    env,
    timeoutMs: 60_000,
  });
  if (load.code !== 0) throw new Error(`ontology load failed (${load.code}):\n${load.stderr}`);
  const client = openRemoteStore({ queryUrl: served.url, user: 'sidecar', password: SECRETS.store });
  const ogm = new OGM({ store: client, graph: DEFAULT_DATA_GRAPH });
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

describe.each(['served', 'virtuoso'] as const)('secrets of a cell on the %s store', (kind) => {
  const { enabled, onStore } = cellSuite(kind);
  const group = new ProcessGroup();
  let dir: string | undefined;
  let tls: SelfSigned | undefined;
  let store: CellStore | undefined;
  let door: CellResource;
  let robot: SidecarProc;
  let localApi: string;
  const file: Record<keyof typeof SECRETS, string> = { store: '', doorHttp: '', robotHttp: '', plant: '', local: '', bad: '' };
  const credentials = (): NodeJS.ProcessEnv => ({ SPARQL_USER: 'sidecar', SPARQL_PASSWORD_FILE: file.store });

  /** robot1's config with every secret setting, as files the test wrote. */
  async function robotConfig(doorAddress: string, deviceUrl: string): Promise<string> {
    const config = parse(await readFile(ROBOT1_CONFIG, 'utf8')) as Record<string, unknown>;
    Object.assign(config, {
      ontologyFiles: [PLANT_TTL],
      device: { url: deviceUrl },
      localApi: { port: 0, tokenFile: file.local },
      http: { tokenFile: file.robotHttp },
      outgoingTokens: { defaultFile: file.plant, byAddressFiles: { [doorAddress]: file.doorHttp } },
    });
    const path = join(dir!, 'robot1-secure.json');
    await writeFile(path, JSON.stringify(config));
    return path;
  }

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-e2e-secrets-${kind}-`));
    tls = await selfSigned();
    for (const name of Object.keys(SECRETS) as (keyof typeof SECRETS)[]) {
      file[name] = join(dir, `${name}.secret`);
      await writeFile(file[name], `${SECRETS[name]}\n`, { mode: 0o600 });
    }
    store = kind === 'served' ? await tokenStore(group, file.store, credentials()) : await virtuosoStore(process.env.SPARQL_ENDPOINT!);
    const debug = ['--activity-feed', '--log-level', 'debug'];
    const tlsArgs = ['--http-tls-cert-file', tls.certFile, '--http-tls-key-file', tls.keyFile];
    door = await startDoor1(group, dir, store, { args: ['--http-token-file', file.doorHttp, ...tlsArgs, ...debug], env: credentials() });
    const bridge = await startBridge(group, 'robot1-bridge', { kind: 'robot', port: 0 });
    const config = await robotConfig(door.sidecar.address, bridge.url!);
    const env = { ...credentials(), NODE_EXTRA_CA_CERTS: tls.certFile, STATE_DIRECTORY: join(dir, 'robot1-state') };
    robot = await startSidecar(
      group,
      'robot1',
      ['--config', config, ...store.flags, '--port', '0', '--heartbeat-interval', '1', '--log-level', 'debug'],
      { cwd: dir, env },
    );
    localApi = (JSON.parse(robot.proc.stdout.split('\n')[0]!) as { localApi: string }).localApi;
  }, 180_000);

  afterAll(async () => {
    await group.cleanup();
    await store?.close();
    await tls?.remove();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  /** A request with a JSON body or none, and its status and text. */
  async function call(
    url: string,
    token: string | undefined,
    init: { method?: string; body?: unknown } = {},
  ): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    };
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
    return { status: res.status, text: await res.text() };
  }

  /** Everything the test saw: answers, CLI runs and the processes' output. */
  const seen: string[] = [];
  const keep = <T extends { text: string } | CliResult>(answer: T): T => {
    seen.push('text' in answer ? answer.text : `${answer.stdout}\n${answer.stderr}`);
    return answer;
  };

  /** Drives the local API: a wrong token, a delivery door1 takes, one robot1 refuses. */
  async function driveLocalApi(): Promise<void> {
    expect(keep(await call(`${localApi}/healthz`, SECRETS.doorHttp)).status).toBe(401);
    const toDoor = keep(
      await call(`${localApi}/operations`, SECRETS.local, {
        method: 'POST',
        body: { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation },
      }),
    );
    expect([toDoor.status, toDoor.text]).toEqual([201, expect.any(String)]);
    const { operation } = JSON.parse(toDoor.text) as { operation: string };
    const outcome = keep(await call(`${localApi}/operations/status?iri=${encodeURIComponent(operation)}&waitMs=20000`, SECRETS.local));
    expect(JSON.parse(outcome.text)).toMatchObject({ status: 'done' });
    // robot1 rings its own trigger with the plant token, which its surface does not take.
    const toSelf = keep(
      await call(`${localApi}/operations`, SECRETS.local, {
        method: 'POST',
        body: { capabilityClass: plant.PickAndPlaceCapability, operationClass: plant.PickAndPlaceOperation },
      }),
    );
    expect(toSelf.status).toBe(502);
    expect(JSON.parse(toSelf.text)).toEqual({ detail: expect.stringContaining('answered 401: the receiver refused the token sent') });
  }

  /** Wrong tokens on both surfaces, and `request` runs with a wrong, a missing and a bad store password. */
  async function driveSurfacesAndCli(): Promise<void> {
    expect(keep(await call(`${robot.address}/state/nothing`, SECRETS.plant)).status).toBe(401);
    expect(keep(await call(`${robot.address}/workflows/pick/execute`, SECRETS.doorHttp, { method: 'POST', body: {} })).status).toBe(401);
    const activity = keep(await call(`${robot.address}/activity`, SECRETS.robotHttp));
    expect(activity.text).toContain('"kind":"reverted"');
    const request = (env: NodeJS.ProcessEnv): Promise<CliResult> =>
      runCli(
        [
          'request',
          '--capability',
          'plant:DoorOpeningCapability',
          '--operation-class',
          'plant:OpenDoorOperation',
          ...store!.flags,
          '--log-level',
          'debug',
        ],
        { env: { NODE_EXTRA_CA_CERTS: tls!.certFile, ...credentials(), ...env }, timeoutMs: 60_000 },
      );
    expect(keep(await request({ SIDECAR_OUTGOING_TOKEN_FILE: file.plant })).stderr).toContain('the receiver refused the token sent');
    expect(keep(await request({ SIDECAR_OUTGOING_TOKEN: SECRETS.robotHttp })).code).toBe(1);
    if (kind === 'served') expect(keep(await request({ SPARQL_PASSWORD_FILE: file.bad })).stderr).toMatch(/401/u);
  }

  /** A sidecar whose store password is wrong: it retries and logs the store's refusal. */
  async function badPasswordSidecar(): Promise<Proc> {
    const env = { SPARQL_USER: 'sidecar', SPARQL_PASSWORD_FILE: file.bad, STATE_DIRECTORY: join(dir!, 'bad-state') };
    const proc = group.cli(
      'bad',
      [
        'start',
        '--resource',
        'plant:conveyor1',
        ...store!.flags,
        '--port',
        '0',
        '--local-api-socket',
        join(dir!, 'bad.sock'),
        '--log-level',
        'debug',
      ],
      { cwd: dir!, env },
    );
    await proc.waitFor(
      () => (proc.logs().filter((l) => String(l.msg).includes('does not answer yet')).length >= 2 ? true : undefined),
      'two store retries',
      30_000,
    );
    await proc.kill('SIGTERM');
    return proc;
  }

  onStore(
    'should keep every secret out of logs, error bodies, trigger errors and the activity feed',
    async () => {
      await driveLocalApi();
      await driveSurfacesAndCli();
      const bad = kind === 'served' ? await badPasswordSidecar() : undefined;
      const procs = [
        door.sidecar.proc,
        robot.proc,
        door.bridge.proc,
        ...(store!.served ? [store!.served.proc] : []),
        ...(bad ? [bad] : []),
      ];
      // The runs did what they are meant to: secrets were configured, refused and reported.
      expect(robot.proc.stderr).toContain('"token":"[redacted]"');
      expect(robot.proc.stderr).toContain('event trigger not delivered');
      expect(door.sidecar.proc.stderr).toContain('"tls":"[redacted]"');
      if (bad) expect(bad.stderr).toMatch(/does not answer yet.*401|401.*does not answer yet/u);
      const everything = [...seen, ...procs.map((p) => `${p.stdout}\n${p.stderr}`)].join('\n');
      const keyLine = tls!.key.split('\n')[1]!;
      for (const [name, value] of [...Object.entries(SECRETS), ['tls key', keyLine]]) {
        expect(everything.includes(value!) ? `${name} leaked` : `${name} kept`).toBe(`${name} kept`);
      }
    },
    180_000,
  );
});
