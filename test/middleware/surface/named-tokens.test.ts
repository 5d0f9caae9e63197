import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ValueError } from '../../../src/errors.js';
import { parseTokenFile, type NamedToken } from '../../../src/http/named-tokens.js';
import { withAccessLog } from '../../../src/http/access-log.js';
import { ActivityFeed } from '../../../src/middleware/runtime/activity-feed.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import { checkHttpToken } from '../../../src/middleware/surface/security-options.js';
import { withWorkflowFastLane } from '../../../src/middleware/surface/workflow-fast-lane.js';
import { fakeSurface, logSink, type FakeSurface } from './support/serve.js';

const PLANNER = 'planner-secret-0123456789';
const DOOR_ONLY = 'door-only-secret-0123456789';
const TOKENS: NamedToken[] = [
  { name: 'planner', token: PLANNER },
  { name: 'door.ops', token: DOOR_ONLY, workflows: ['open'] },
];
const SECRETS = [PLANNER, DOOR_ONLY];

describe('token files', () => {
  it('should read a one-word first line as the single token of earlier versions, ignoring the rest', () => {
    expect(parseTokenFile(`${PLANNER}\nanything else here\n`)).toBe(PLANNER);
    expect(parseTokenFile(`#starts-with-a-hash-0123\n`)).toBe('#starts-with-a-hash-0123');
  });

  it('should read named tokens with comments, blank lines and workflow limits', () => {
    const text = `# tokens of cell 4\n\nplanner ${PLANNER}\n  door.ops\t${DOOR_ONLY}  open,close \n`;
    expect(parseTokenFile(text)).toEqual([
      { name: 'planner', token: PLANNER },
      { name: 'door.ops', token: DOOR_ONLY, workflows: ['open', 'close'] },
    ]);
  });

  it('should refuse hostile or broken files clearly, never quoting a token', () => {
    const cases: [string, RegExp][] = [
      [`# only a comment\n`, /holds no token/u],
      [`# named tokens\nplanner\n${PLANNER}\n`, /^line 2 holds one field/u],
      [`planner ${PLANNER} open extra\n`, /^line 1 holds 4 fields/u],
      [`"x<y>" ${PLANNER}\n`, /is not a token name/u],
      [`9lives ${PLANNER}\n`, /is not a token name/u],
      [`planner short\n`, /is 5 characters long/u],
      [`planner ${PLANNER}\nplanner ${DOOR_ONLY}\n`, /planner is named twice/u],
      [`planner ${PLANNER}\nother ${PLANNER}\n`, /is the token of another name/u],
      [`door ${DOOR_ONLY} open,../../x\n`, /is not a valid name/u],
      [`door ${DOOR_ONLY} ,\n`, /is not a valid name/u],
    ];
    for (const [text, message] of cases) {
      let error: unknown;
      try {
        parseTokenFile(text);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValueError);
      expect((error as Error).message).toMatch(message);
      for (const secret of SECRETS) expect((error as Error).message).not.toContain(secret);
    }
  });

  it('should check named tokens given to the library as httpToken', () => {
    expect(checkHttpToken(TOKENS)).toEqual(TOKENS);
    expect(() => checkHttpToken([{ name: 'a b', token: PLANNER }])).toThrow(/^httpToken\[0\]\.name: "a b" is not a token name/u);
    expect(() => checkHttpToken([])).toThrow(/non-empty array/u);
    expect(() => checkHttpToken([{ name: 'x', token: PLANNER, workflows: [] }])).toThrow(/workflows must be a non-empty array/u);
  });
});

describe('HTTP surface with named tokens', () => {
  let surface: FakeSurface;
  let server: Server;
  let url: string;
  let lines: Record<string, unknown>[];
  const ran: string[] = [];

  beforeAll(async () => {
    const sink = logSink();
    lines = sink.lines;
    surface = fakeSurface({ token: TOKENS, activity: new ActivityFeed(100) }, sink.logger);
    for (const name of ['open', 'close'])
      surface.workflows.set(name, () => {
        ran.push(name);
        return { ok: true };
      });
    surface.states.set('door', () => 'closed');
    const app = withWorkflowFastLane(surface, createApp(surface));
    server = createServer(withAccessLog(app, sink.logger, 'info'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const call = (method: string, path: string, token: string | undefined, body?: string): Promise<Response> =>
    fetch(`${url}${path}`, {
      method,
      headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
      body,
    });

  it('should record direct calls with the identity of each caller, by the fast lane and by express', async () => {
    const before = surface.activity!.lastSeq;
    expect((await call('POST', '/workflows/open/execute', PLANNER, '{}')).status).toBe(200);
    // A chunked body is not the lane's: express serves it, and records it alike.
    const chunked = await fetch(`${url}/workflows/close/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PLANNER}`, 'content-type': 'application/json' },
      body: new Blob(['{}']).stream(),
      duplex: 'half',
    });
    expect(chunked.status).toBe(200);
    expect(await (await call('GET', '/state/door', DOOR_ONLY)).json()).toBe('closed');
    expect((await call('POST', '/workflows/open/execute', DOOR_ONLY)).status).toBe(200);
    const entries = surface.activity!.entries({ after: before }).entries.map(({ kind, caller, status, workflow, state }) => ({
      kind,
      caller,
      status,
      ...(workflow !== undefined && { workflow }),
      ...(state !== undefined && { state }),
    }));
    expect(entries).toEqual([
      { kind: 'workflow', workflow: 'open', caller: 'token:planner', status: 200 },
      { kind: 'workflow', workflow: 'close', caller: 'token:planner', status: 200 },
      { kind: 'state', state: 'door', caller: 'token:door.ops', status: 200 },
      { kind: 'workflow', workflow: 'open', caller: 'token:door.ops', status: 200 },
    ]);
  });

  it('should refuse a limited token everything but reads and its workflows with a clear 403, running and recording nothing', async () => {
    ran.length = 0;
    const before = surface.activity!.lastSeq;
    const refused = [
      await call('POST', '/workflows/close/execute', DOOR_ONLY, '{}'),
      await call('POST', '/workflows/close/execute?x=1', DOOR_ONLY),
      await call('POST', '/workflows/event_trigger/execute', DOOR_ONLY, '{"operation_iri":"https://example.org/op"}'),
      await call('PUT', '/parameters/speed', DOOR_ONLY, '{"value":1}'),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toMatch(
        /^the token of token:door\.ops may run only the workflows open \(and read\); .* is refused$/u,
      );
    }
    expect(ran).toEqual([]);
    expect(surface.triggered).toEqual([]);
    expect(surface.activity!.lastSeq).toBe(before);
  });

  it('should refuse a hostile workflow name quoted, and an unknown token as before', async () => {
    const res = await call('POST', `/workflows/${encodeURIComponent('x"\n<script>')}/execute`, DOOR_ONLY, '{}');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toContain('the workflow "x\\"\\n<script>" is refused');
    expect((await call('POST', '/workflows/open/execute', 'not-a-known-token-0123456789', '{}')).status).toBe(401);
    expect((await call('GET', '/state/door', undefined)).status).toBe(401);
  });

  it('should name callers in the logs and never write a secret there, in the feed or in an answer', async () => {
    const wrong = `${PLANNER}-but-wrong`;
    const answers = [
      await (await call('POST', '/workflows/open/execute', wrong, '{}')).text(),
      await (await call('POST', '/workflows/nope/execute', PLANNER, '{}')).text(),
      await (await call('GET', '/activity', PLANNER)).text(),
    ];
    const served = lines.filter((line) => line.msg === 'request served');
    expect(served.length).toBeGreaterThan(5);
    expect(served.map((line) => line.caller)).toEqual(expect.arrayContaining(['token:planner', 'token:door.ops']));
    const everything = [...lines.map((line) => JSON.stringify(line)), ...answers, JSON.stringify(surface.activity!.entries())];
    for (const text of everything) for (const secret of [...SECRETS, wrong]) expect(text).not.toContain(secret);
  });
});
