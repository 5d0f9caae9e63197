/**
 * robot1's local API as its device bridge sees it, on the sidecar's Unix socket: two-step
 * handovers (checked in the graph with the library over the served store), their errors, the
 * socket's permissions, and malformed requests.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPossession, currentPossessor, findPossessionState, servicesOfResource } from '../../src/registration/index.js';
import { mes, plant } from '../../src/vocab/index.js';
import { ProcessGroup, runCli } from '../support/sidecar-process.js';
import { ensureBuilt } from '../support/build.js';
import { ROBOT1_CONFIG, servedStore, startRobot1, type CellResource, type CellStore } from './support/cell.js';
import { startSidecar } from './support/daemons.js';
import { unixRequest, type UnixAnswer } from './support/unix-http.js';

const group = new ProcessGroup();
let dir: string;
let store: CellStore;
let robot: CellResource;
let socket: string;

const call = (method: string, path: string, body?: unknown): Promise<UnixAnswer> =>
  unixRequest(socket, method, path, body === undefined ? {} : { body });

/** A fresh Part possessed by `possessor`; resolves with its IRI and PossessionState. */
async function part(possessor: string): Promise<{ iri: string; state: string }> {
  const iri = `${plant.Part}-e2e-${randomUUID()}`;
  await store.ogm.create({ iri, type: plant.Part });
  return { iri, state: await createPossession(store.ogm, { workpieceIri: iri, possessorIri: possessor }) };
}

/** Expects a JSON error answer with `status` whose detail contains `text`. */
function expectDetail(answer: UnixAnswer, status: number, text: string): void {
  expect({ status: answer.status, type: answer.contentType }).toEqual({ status, type: expect.stringMatching(/^application\/json/u) });
  expect((answer.json as { detail: string }).detail).toContain(text);
}

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'sm-e2e-local-'));
  store = await servedStore(group);
  robot = await startRobot1(group, dir, store);
  socket = robot.sidecar.localApiSocket!;
}, 120_000);

afterAll(async () => {
  await group.cleanup();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

describe("robot1's local API", () => {
  it('should serve on a Unix socket only its owner can use (mode 0600)', async () => {
    const info = await stat(socket);
    expect(info.isSocket()).toBe(true);
    expect(info.mode & 0o777).toBe(0o600);
  });

  it('should hand a workpiece over in two steps: nothing switches on begin, commit switches it', async () => {
    const { iri, state } = await part(plant.robot1);
    const begun = await call('POST', '/handovers', { mode: mes.Put, workpiece: iri, counterpart: plant.conveyor1 });
    expect(begun.status).toBe(201);
    const { handover } = begun.json as { handover: string };
    expect(handover).toMatch(/^[0-9a-f-]{36}$/u);
    // While the device does the physical transfer, robot1 still holds the part.
    expect(await currentPossessor(store.ogm, iri)).toEqual({ possessionState: state, possessors: [plant.robot1] });

    const committed = await call('POST', `/handovers/${handover}/commit`);
    expect(committed.status).toBe(200);
    const { possessionState } = committed.json as { possessionState: string };
    expect(possessionState).not.toBe(state);
    expect(await currentPossessor(store.ogm, iri)).toEqual({ possessionState, possessors: [plant.conveyor1] });
    expect(await findPossessionState(store.ogm, iri, plant.conveyor1)).toBe(possessionState);
    expect(await findPossessionState(store.ogm, iri, plant.robot1)).toBeUndefined();
    // A handover ends once: a second commit finds nothing open.
    expectDetail(await call('POST', `/handovers/${handover}/commit`), 404, handover);
  }, 30_000);

  it('should switch nothing when the handover is aborted', async () => {
    const { iri, state } = await part(plant.robot1);
    const begun = await call('POST', '/handovers', { mode: mes.Put, workpiece: iri, counterpart: plant.conveyor1 });
    expect(begun.status).toBe(201);
    const { handover } = begun.json as { handover: string };
    const aborted = await call('POST', `/handovers/${handover}/abort`);
    expect(aborted).toMatchObject({ status: 200, json: { handover, aborted: true } });
    expect(await currentPossessor(store.ogm, iri)).toEqual({ possessionState: state, possessors: [plant.robot1] });
    expectDetail(await call('POST', `/handovers/${handover}/commit`), 404, handover);
  }, 30_000);

  it('should refuse with 409 a handover whose preconditions fail, before anything is switched', async () => {
    const held = await part(plant.robot1);
    // door1 has no handover ability that complements Put.
    expectDetail(await call('POST', '/handovers', { mode: mes.Put, workpiece: held.iri, counterpart: plant.door1 }), 409, plant.door1);
    // robot1 does not possess a part that conveyor2 holds.
    const other = await part(plant.conveyor2);
    expectDetail(await call('POST', '/handovers', { mode: mes.Put, workpiece: other.iri, counterpart: plant.conveyor1 }), 409, other.iri);
    expect(await currentPossessor(store.ogm, held.iri)).toEqual({ possessionState: held.state, possessors: [plant.robot1] });
    expect(await currentPossessor(store.ogm, other.iri)).toEqual({ possessionState: other.state, possessors: [plant.conveyor2] });
  }, 30_000);

  it('should answer 404 with a JSON detail for a handover id that was never begun', async () => {
    expectDetail(await call('POST', '/handovers/no-such-handover/commit'), 404, 'no-such-handover');
    expectDetail(await call('POST', '/handovers/no-such-handover/abort'), 404, 'no-such-handover');
  });

  it('should answer malformed requests with a 4xx JSON detail naming what is wrong', async () => {
    expectDetail(await call('POST', '/operations', '{"capabilityClass": '), 400, 'JSON');
    expectDetail(await call('POST', '/operations', '["not", "an", "object"]'), 400, 'JSON object');
    expectDetail(await call('POST', '/operations', { operationClass: plant.OpenDoorOperation }), 400, 'capabilityClass');
    expectDetail(
      await call('POST', '/operations', { capabilityClass: 'not an iri', operationClass: plant.OpenDoorOperation }),
      400,
      'capabilityClass',
    );
    const badData = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation, data: [1, 2] };
    expectDetail(await call('POST', '/operations', badData), 400, 'data');
    expectDetail(await call('POST', '/handovers', { mode: mes.Put, workpiece: 'urn:x' }), 400, 'counterpart');
    expectDetail(
      await call('GET', `/operations/status?iri=${encodeURIComponent(`${plant.OpenDoorOperation}_op_x`)}&waitMs=soon`),
      400,
      'waitMs',
    );
    expectDetail(await call('GET', '/operations/status?iri=%3Cnot%3E'), 400, 'iri');
    expectDetail(
      await call('GET', `/operations/status?iri=${encodeURIComponent(`${plant.OpenDoorOperation}_op_none`)}`),
      404,
      'no Operation',
    );
    const text = await unixRequest(socket, 'POST', '/operations', { body: 'capabilityClass=x', headers: { 'content-type': 'text/plain' } });
    expectDetail(text, 415, 'application/json');
    expectDetail(await call('GET', '/nowhere'), 404, '/nowhere');
  }, 30_000);
});

describe('where a local API listens', () => {
  it('should refuse to start a second sidecar on a live local API socket, before registering anything', async () => {
    const args = [
      'start',
      '--config',
      ROBOT1_CONFIG,
      ...store.flags,
      '--port',
      '0',
      '--device-url',
      robot.bridge.url!,
      '--local-api-socket',
      socket,
    ];
    const second = await runCli(args, { cwd: dir, env: { STATE_DIRECTORY: join(dir, 'second-state') } });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`a process already listens on the local API socket ${socket}`);
    expect(second.stdout).toBe('');
    // It registered nothing, and the first sidecar's local API is untouched.
    expect(await servicesOfResource(store.ogm, plant.robot1)).toEqual([robot.sidecar.service]);
    expect((await call('GET', '/healthz')).status).toBe(200);
  }, 30_000);

  it('should never replace a file that is not a socket', async () => {
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'keep me\n');
    const result = await runCli(['start', '--resource', 'plant:door1', '--store', 'memory', '--port', '0', '--local-api-socket', file], {
      cwd: dir,
      env: { STATE_DIRECTORY: join(dir, 'file-state') },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the local API socket path ${file} exists and is not a socket`);
    expect(await readFile(file, 'utf8')).toBe('keep me\n');
  }, 30_000);

  it('should serve on loopback TCP only to callers with the bearer token', async () => {
    const tokenFile = join(dir, 'local-api.token');
    const token = randomUUID();
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
    const env = { STATE_DIRECTORY: join(dir, 'tcp-state'), SIDECAR_LOCAL_API_PORT: '0', SIDECAR_LOCAL_API_TOKEN_FILE: tokenFile };
    const args = ['--config', ROBOT1_CONFIG, '--store', 'memory', '--port', '0', '--device-url', robot.bridge.url!];
    const tcp = await startSidecar(group, 'robot1-tcp-api', args, { cwd: dir, env });
    const url = (JSON.parse(tcp.proc.stdout.split('\n')[0]!) as { localApi: string }).localApi;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/u);
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', token]) {
      const res = await fetch(`${url}/healthz`, { headers: authorization === undefined ? {} : { authorization } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="semantic-middleware"/u);
      expect(((await res.json()) as { detail: string }).detail).toContain("the sidecar's local API token (localApi.tokenFile)");
    }
    const ok = await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await tcp.proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 30_000);
});
