/**
 * Named tokens in a real sidecar: door1 reads a token file naming two callers, one of them
 * limited to the `open` workflow. Each call is answered, refused or recorded under its caller's
 * name (access log, activity feed), a refused call never reaches the device, and no token
 * appears in the sidecar's output. On the embedded store served over SPARQL.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { servedStore, startDoor1, type CellResource, type CellStore } from './support/cell.js';

const PLANNER = `planner-${randomUUID()}`;
const DOOR_OPS = `door-ops-${randomUUID()}`;

describe('a sidecar whose token file names its callers', () => {
  const group = new ProcessGroup();
  let dir: string;
  let store: CellStore;
  let door: CellResource;

  beforeAll(async () => {
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'sm-e2e-named-tokens-'));
    const tokens = join(dir, 'door1-callers');
    await writeFile(tokens, `# callers of door1\nplanner ${PLANNER}\ndoor.ops ${DOOR_OPS} open\n`, { mode: 0o600 });
    store = await servedStore(group);
    const args = ['--http-token-file', tokens, '--access-log-level', 'info', '--activity-feed'];
    door = await startDoor1(group, dir, store, { args });
  }, 180_000);

  afterAll(async () => {
    await group.cleanup();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  const call = (token: string, method: string, path: string): Promise<Response> =>
    fetch(`${door.sidecar.address}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(method === 'POST' && { 'content-type': 'application/json' }) },
      ...(method === 'POST' && { body: '{}' }),
    });

  it('should run, refuse and record each call under its caller, and never show a token', async () => {
    expect((await call(PLANNER, 'POST', '/workflows/close/execute')).status).toBe(200);
    expect((await call(DOOR_OPS, 'POST', '/workflows/open/execute')).status).toBe(200);
    expect(await (await call(DOOR_OPS, 'GET', '/state/door')).json()).toBe('open');
    const refused = await call(DOOR_OPS, 'POST', '/workflows/close/execute');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      detail: 'the token of token:door.ops may run only the workflows open (and read); the workflow "close" is refused',
    });
    // The device saw the close of the planner, never the refused one.
    const closes = (await door.bridge.logged((r) => r.some((q) => q.path === '/open'), 'the open call')).filter((r) => r.path === '/close');
    expect(closes).toHaveLength(1);

    const activity = (await (await call(PLANNER, 'GET', '/activity')).json()) as { entries: Record<string, unknown>[] };
    const direct = activity.entries
      .filter((e) => e.kind === 'workflow' || e.kind === 'state')
      .map(({ kind, workflow, state, caller, status }) => ({ kind, name: workflow ?? state, caller, status }));
    expect(direct).toEqual([
      { kind: 'workflow', name: 'close', caller: 'token:planner', status: 200 },
      { kind: 'workflow', name: 'open', caller: 'token:door.ops', status: 200 },
      { kind: 'state', name: 'door', caller: 'token:door.ops', status: 200 },
    ]);
    const served = door.sidecar.proc.logs().filter((l) => l.msg === 'request served');
    expect(served.map((l) => l.caller)).toEqual(expect.arrayContaining(['token:planner', 'token:door.ops']));
    const output = `${door.sidecar.proc.stdout}\n${door.sidecar.proc.stderr}\n${JSON.stringify(activity)}`;
    for (const secret of [PLANNER, DOOR_OPS]) expect(output).not.toContain(secret);
  }, 60_000);
});
