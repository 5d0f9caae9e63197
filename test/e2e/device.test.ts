/**
 * Direct workflow and state calls through a sidecar's HTTP surface to its device, as real
 * processes: door1's sidecar (config/door1.yaml, embedded in-memory store) in front of the mock
 * door bridge on a Unix socket, including a failing, a hanging and a dead bridge.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessGroup } from '../support/sidecar-process.js';
import { ensureBuilt } from '../support/build.js';
import { DOOR1_CONFIG } from './support/cell.js';
import { startBridge, startSidecar, type BridgeProc, type SidecarProc } from './support/daemons.js';
import { unixRequest } from './support/unix-http.js';

const DEVICE_TIMEOUT_MS = 1500;
const group = new ProcessGroup();
let dir: string;
let deviceSocket: string;
let bridge: BridgeProc;
let door: SidecarProc;

/** A JSON POST to the sidecar; resolves with the status, content type and parsed body. */
async function post(path: string, body: unknown = {}): Promise<{ status: number; type: string | null; json: unknown }> {
  const res = await fetch(`${door.address}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), json: await res.json() };
}

async function get(path: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${door.address}${path}`);
  return { status: res.status, json: await res.json() };
}

/** door1's sidecar on an in-memory store, any free port, with `device` and its own local API socket. */
function door1Args(device: string, localApiSocket: string): string[] {
  return ['--config', DOOR1_CONFIG, '--store', 'memory', '--port', '0', '--device', device, '--local-api-socket', localApiSocket];
}

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'sm-e2e-device-'));
  deviceSocket = join(dir, 'door1-device.sock');
  bridge = await startBridge(group, 'door1-bridge', { kind: 'door', socket: deviceSocket });
  const args = door1Args(`unix:${deviceSocket}`, join(dir, 'local.sock'));
  door = await startSidecar(group, 'door1', args, {
    cwd: dir,
    env: { STATE_DIRECTORY: join(dir, 'state'), SIDECAR_DEVICE_TIMEOUT_MS: String(DEVICE_TIMEOUT_MS) },
  });
}, 120_000);

afterAll(async () => {
  await group.cleanup();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

describe("a sidecar's workflow and state routes", () => {
  it('should answer a workflow call with what the device answers, and a state read with the live value', async () => {
    expect((await unixRequest(deviceSocket, 'POST', '/reset')).status).toBe(204);
    expect(await get('/state/door')).toEqual({ status: 200, json: 'closed' });
    const opened = await post('/workflows/open/execute');
    expect(opened).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/u), json: { ok: true, door: 'open' } });
    // The sidecar's state read and the device's agree.
    expect(await get('/state/door')).toEqual({ status: 200, json: 'open' });
    expect((await unixRequest(deviceSocket, 'GET', '/state/door')).json).toBe('open');
    expect(await post('/workflows/close/execute')).toMatchObject({ status: 200, json: { ok: true, door: 'closed' } });
    expect((await unixRequest(deviceSocket, 'GET', '/state/door')).json).toBe('closed');
  }, 30_000);

  it('should say at start when the device does not answer, and stay quiet when it does', async () => {
    const missing = join(dir, 'no-bridge.sock');
    const lonely = await startSidecar(group, 'door1-no-bridge', door1Args(`unix:${missing}`, join(dir, 'l2.sock')), {
      cwd: dir,
      env: { STATE_DIRECTORY: join(dir, 'state-2') },
    });
    const warning = await lonely.proc.waitFor(
      () => lonely.proc.logs().find((l) => l.msg === 'the device does not answer: its calls fail until it does'),
      'the unreachable-device warning',
    );
    expect(warning).toMatchObject({ level: 40 });
    expect(String(warning.reason)).toContain(missing);
    expect(warning).not.toHaveProperty('stack');
    expect(lonely.proc.running).toBe(true);
    await lonely.proc.kill('SIGTERM');
    expect(door.proc.logs().filter((l) => l.msg === 'the device does not answer: its calls fail until it does')).toEqual([]);
  }, 60_000);

  it('should answer 404 with a JSON detail for an unknown workflow or state', async () => {
    const workflow = await post('/workflows/levitate/execute');
    expect(workflow.status).toBe(404);
    expect(workflow.type).toMatch(/^application\/json/u);
    expect((workflow.json as { detail: string }).detail).toContain('levitate');
    const state = await get('/state/colour');
    expect(state.status).toBe(404);
    expect((state.json as { detail: string }).detail).toContain('colour');
  }, 30_000);

  it("should answer 502 with the device's own detail when the device fails", async () => {
    const failed = await post('/workflows/open/execute', { fail: 'door jammed' });
    expect(failed.status).toBe(502);
    expect((failed.json as { detail: string }).detail).toBe(`POST /open on device unix:${deviceSocket} answered HTTP 500: door jammed`);
  }, 30_000);

  it('should answer 504 when the device does not answer within its timeout', async () => {
    const started = Date.now();
    const hung = await post('/workflows/open/execute', { hang: true });
    const ms = Date.now() - started;
    expect(hung.status).toBe(504);
    expect((hung.json as { detail: string }).detail).toContain(`got no answer within ${DEVICE_TIMEOUT_MS} ms`);
    expect(ms).toBeGreaterThanOrEqual(DEVICE_TIMEOUT_MS - 100);
    expect(ms).toBeLessThan(DEVICE_TIMEOUT_MS + 5000);
    await bridge.logged((rs) => rs.at(-1)?.status === null, 'the abandoned call in the bridge log');
  }, 30_000);

  it('should answer 502 naming the bridge while it is dead, keep serving, and recover once it is back', async () => {
    expect((await bridge.proc.kill('SIGKILL')).signal).toBe('SIGKILL');
    const down = await post('/workflows/open/execute');
    expect(down.status).toBe(502);
    const detail = (down.json as { detail: string }).detail;
    expect(detail).toContain(`POST /open on device unix:${deviceSocket} failed`);
    expect(detail).toContain('is the device bridge running');
    expect((await get('/state/door')).status).toBe(502);
    // The sidecar itself is fine: its root answers and it is still running.
    expect(await get('/')).toEqual({ status: 200, json: 'Welcome to semantic middleware!' });
    expect(door.proc.running).toBe(true);
    // A new bridge on the same socket (it removes the stale file) is used at once.
    bridge = await startBridge(group, 'door1-bridge-2', { kind: 'door', socket: deviceSocket });
    expect(await post('/workflows/open/execute')).toMatchObject({ status: 200, json: { ok: true, door: 'open' } });
  }, 30_000);
});
