/**
 * The console in process, on the embedded store: what its reads make of a plant (Services live,
 * stale and swept; open and finished Operations with outcome and provenance; possession and its
 * history), the rows naming their store, and its routes: the token guard and the sign-in cookie,
 * the page, the event stream, the JSON state and the cancel.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { fetch as undiciFetch } from 'undici';
import { ConsoleServer } from '../../src/console/console-server.js';
import { readPlant, selectAcrossStores, type PlantStore } from '../../src/console/plant-reads.js';
import { plantChanges } from '../../src/console/plant-watch.js';
import type { TokenSet } from '../../src/http/named-tokens.js';
import { escapeHtml } from '../../src/console/page.js';
import { mintCapabilityIri } from '../../src/iri/mint.js';
import { createOperation } from '../../src/registration/operations.js';
import { recordTerminalStatus, setOperationStatus } from '../../src/registration/operation-status.js';
import { createPossession, switchPossession } from '../../src/registration/possession.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { plant, PLANT } from '../../src/vocab/index.js';
import { addService, deregister } from '../registration/support/plant-graph.js';
import { selfSigned, trustingFetch } from '../middleware/surface/support/self-signed.js';
import { storeSuite } from '../support/per-store.js';

const G = 'urn:test:console';
const TOKEN = 'console-unit-test-token-0123456789';
const silent = pino({ level: 'silent' });
const PICK = { name: 'pick', workflowClass: plant.PickAndPlaceWorkflow, capabilityClass: plant.PickAndPlaceCapability };
const MOVE = { name: 'move', workflowClass: plant.TransportWorkflow, capabilityClass: plant.TransportCapability };
const OP = (name: string): string => PLANT(`OpenDoorOperation_op_${name}`);
const HOSTILE_CALLER = '<script>alert("x")</script>';

const suite = storeSuite('embedded', G);
let server: ConsoleServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** door1 live with a queued, a done and a failed Operation; robot1 stale; conveyor1 swept; a part handed from door1 to robot1. */
async function seed(): Promise<{ door: string; robot: string; conveyor: string }> {
  const ogm = suite.ogm;
  const door = await addService(ogm, { resourceIri: plant.door1, address: 'http://127.0.0.1:1', heartbeatIntervalMs: 1000, graph: G });
  const robot = await addService(ogm, {
    resourceIri: plant.robot1,
    address: 'http://127.0.0.1:2',
    heartbeat: new Date(Date.now() - 600_000),
    workflows: [PICK],
    graph: G,
  });
  const conveyor = await addService(ogm, { resourceIri: plant.conveyor1, address: 'http://127.0.0.1:3', workflows: [MOVE], graph: G });
  await deregister(ogm, conveyor);
  const capabilityIri = mintCapabilityIri(plant.door1, 'open');
  const workflowIri = door.workflows[0]!.workflowIri;
  for (const name of ['queued', 'done', 'failed']) {
    const operation = { operationIri: OP(name), operationClass: plant.OpenDoorOperation, capabilityIri };
    await createOperation(ogm, { ...operation, requestedBy: HOSTILE_CALLER, createdAt: new Date() });
  }
  for (const name of ['done', 'failed']) await setOperationStatus(ogm, { operationIri: OP(name), status: 'running' });
  await recordTerminalStatus(ogm, { operationIri: OP('done'), workflowIri, status: 'done', result: '{"door":"open"}' });
  const failure = { failureKind: 'device', failureState: '{"door":"stuck"}', result: 'the device did not answer' } as const;
  await recordTerminalStatus(ogm, { operationIri: OP('failed'), workflowIri, status: 'failed', ...failure });
  const part = PLANT('part7');
  await ogm.create({ iri: part, type: plant.Part, graph: G });
  await createPossession(ogm, { workpieceIri: part, possessorIri: plant.door1, changedBy: 'cli:alice' });
  await switchPossession(ogm, { workpieceIri: part, newPossessorIri: plant.robot1, changedBy: 'cli:bob' });
  return { door: door.serviceIri, robot: robot.serviceIri, conveyor: conveyor.serviceIri };
}

const stores = (): PlantStore[] => [{ url: 'urn:store:hall1', client: suite.store! }];

async function startConsole(
  token: TokenSet | undefined,
  plantStores: PlantStore[] = stores(),
  tls?: { cert: string; key: string },
): Promise<string> {
  server = new ConsoleServer({
    tls,
    stores: plantStores,
    graph: G,
    host: '127.0.0.1',
    port: 0,
    token,
    stalenessThreshold: 90,
    refreshInterval: 60,
    logger: silent,
  });
  await server.start();
  return server.url!;
}

/** The first server-sent event of `url`, parsed. */
async function firstEvent(url: string, headers: Record<string, string>): Promise<Record<string, string>> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/u);
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value as Uint8Array | undefined);
  controller.abort();
  return JSON.parse(text.slice(text.indexOf('data: ') + 6, text.indexOf('\n\n'))) as Record<string, string>;
}

describe('the console', () => {
  suite.onStore('should read Services, Capabilities, Operations and possession, judged by the liveness rule', async () => {
    const { door, robot, conveyor } = await seed();
    const view = await readPlant(stores(), { graph: G, stalenessThresholdMs: 90_000 });
    const state = (service: string) => view.services.find((s) => s.service === service)?.state;
    expect([state(door), state(robot), state(conveyor)]).toEqual(['live', 'stale', 'unreachable']);
    expect(view.services.every((s) => s.store === 'urn:store:hall1')).toBe(true);
    expect(view.capabilities.map((c) => c.classes[0]).sort()).toEqual(
      [plant.DoorOpeningCapability, plant.PickAndPlaceCapability, plant.TransportCapability].sort(),
    );
    expect(view.openOperations.map((o) => [o.operation, o.status, o.resources])).toEqual([[OP('queued'), 'queued', [plant.door1]]]);
    const failed = view.recentOperations.find((o) => o.operation === OP('failed'))!;
    expect(failed).toMatchObject({
      status: 'failed',
      failureKind: 'device',
      failureState: '{"door":"stuck"}',
      requestedBy: HOSTILE_CALLER,
    });
    expect(failed.finishedAt).toBeDefined();
    expect(view.recentOperations.find((o) => o.operation === OP('done'))).toMatchObject({ status: 'done', result: '{"door":"open"}' });
    expect(view.workpieces).toHaveLength(1);
    expect(view.workpieces[0]!.possessor).toBe(plant.robot1);
    expect(view.workpieces[0]!.history.map((h) => [h.possessor, h.by])).toEqual([
      [plant.robot1, 'cli:bob'],
      [plant.door1, 'cli:alice'],
    ]);
  });

  suite.onStore('should name the store of every row when reading several', async () => {
    await seed();
    const rows = await selectAcrossStores(
      [...stores(), { url: 'urn:store:hall2', client: suite.store! }],
      'SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 3',
    );
    expect(rows.map((r) => r.store)).toEqual([...Array<string>(3).fill('urn:store:hall1'), ...Array<string>(3).fill('urn:store:hall2')]);
  });

  it('should report what changed between two reads, and nothing on the first', () => {
    const empty = { at: '', stores: [], services: [], capabilities: [], openOperations: [], recentOperations: [], workpieces: [] };
    const service = { store: 's', service: PLANT('svc'), resource: plant.door1, classes: [], staleAfterMs: 1, state: 'live' as const };
    const operation = { store: 's', operation: OP('x'), status: 'failed', failureKind: 'swept', resources: [plant.door1], classes: [] };
    const workpiece = { store: 's', workpiece: PLANT('p'), possessor: plant.robot1, history: [] };
    const after = { ...empty, services: [service], recentOperations: [operation], workpieces: [workpiece] };
    expect(plantChanges(undefined, after)).toEqual([]);
    expect(plantChanges(empty, after).map((c) => c.text)).toEqual([
      'Service plant:svc is live',
      'Operation plant:OpenDoorOperation_op_x is failed (swept)',
      'plant:p is possessed by plant:robot1',
    ]);
    expect(plantChanges(after, after)).toEqual([]);
  });

  it('should escape what it writes into HTML', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  suite.onStore('should want the token: a login form for browsers, 401 for programs, a session cookie after sign-in', async () => {
    await seed();
    const url = await startConsole(TOKEN);
    const page = await fetch(url, { headers: { Accept: 'text/html' }, redirect: 'manual' });
    expect([page.status, page.headers.get('location')]).toEqual([303, '/console/login']);
    expect((await fetch(`${url}state`)).status).toBe(401);
    expect((await fetch(`${url}login`)).status).toBe(200);
    const wrong = await fetch(`${url}login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'not-the-token-at-all' }),
      redirect: 'manual',
    });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${url}login`, { method: 'POST', body: new URLSearchParams({ token: TOKEN }), redirect: 'manual' });
    expect(right.status).toBe(303);
    const cookie = right.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^sm_console_session=[\w-]+; Path=\/console\/; HttpOnly; SameSite=Strict/u);
    // Plain HTTP (loopback): a Secure cookie would never come back.
    expect(cookie).not.toMatch(/;\s*Secure/iu);
    expect(cookie).not.toContain(TOKEN);
    const session = { Cookie: cookie.split(';')[0]! };
    const signedIn = await fetch(url, { headers: session });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await signedIn.text();
    expect(html).toContain('plant:door1');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain(HOSTILE_CALLER);
    const bearer = await fetch(`${url}state`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(((await bearer.json()) as { view: { services: unknown[] } }).view.services).toHaveLength(3);
    const sections = await firstEvent(`${url}events`, session);
    expect(Object.keys(sections)).toEqual(expect.arrayContaining(['services', 'open', 'recent', 'workpieces', 'capabilities', 'activity']));
    expect(sections.open).toContain(`data-cancel="${OP('queued')}"`);
    for (const asset of ['console.js', 'console.css']) expect((await fetch(`${url}${asset}`)).status).toBe(200);
  });

  suite.onStore(
    'should name each caller of a named-token file: sign-in and cancel as token:<name>; a workflow-limited token only looks',
    async () => {
      await seed();
      const tokens = [
        { name: 'shift-lead', token: 'shift-lead-console-token-0123456789' },
        { name: 'planner', token: 'planner-console-token-0123456789', workflows: ['open'] },
      ];
      const url = await startConsole(tokens);
      const signIn = async (token: string) =>
        (await fetch(`${url}login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' })).headers.get(
          'set-cookie',
        );
      const lead = (await signIn(tokens[0]!.token))!.split(';')[0]!;
      const planner = (await signIn(tokens[1]!.token))!.split(';')[0]!;
      expect(await signIn('console-unit-test-token-0123456789')).toBeNull();
      const cancel = (cookie: string) =>
        fetch(`${url}cancel`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Console-Request': '1', Cookie: cookie },
          body: JSON.stringify({ operation: OP('queued') }),
        });
      expect((await fetch(`${url}state`, { headers: { Cookie: planner } })).status).toBe(200);
      const refused = await cancel(planner);
      expect(refused.status).toBe(403);
      expect(JSON.stringify(await refused.json())).not.toContain(tokens[1]!.token);
      const done = await cancel(lead);
      expect(await done.json()).toMatchObject({ outcome: 'cancelled', cancelledBy: 'token:shift-lead' });
    },
  );

  suite.onStore('should cancel a queued Operation in its store, and refuse a forged or finished one', async () => {
    await seed();
    const url = await startConsole(undefined);
    expect((await fetch(`${url}login`, { redirect: 'manual' })).status).toBe(303);
    const cancel = (body: unknown, headers: Record<string, string> = { 'X-Console-Request': '1' }) =>
      fetch(`${url}cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
    expect((await cancel({ operation: OP('queued') }, {})).status).toBe(403);
    expect((await cancel({ operation: OP('queued'), store: 'urn:store:elsewhere' })).status).toBe(400);
    expect((await cancel({ store: 'urn:store:hall1' })).status).toBe(400);
    const done = await cancel({ operation: OP('queued'), store: 'urn:store:hall1' });
    expect(await done.json()).toMatchObject({ outcome: 'cancelled', status: 'failed', cancelledBy: 'console:open' });
    expect((await cancel({ operation: OP('done') })).status).toBe(409);
  });

  it('should serve HTTPS with the TLS it is given, its session cookie then Secure', async () => {
    const tls = await selfSigned();
    const { agent } = trustingFetch(tls.cert);
    const trusting = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(url, { ...init, dispatcher: agent });
    try {
      const idle = { select: () => Promise.resolve([]) } as unknown as TripleStore;
      const url = await startConsole(TOKEN, [{ url: 'urn:store:hall1', client: idle }], { cert: tls.cert, key: tls.key });
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/console\/$/u);
      const right = await trusting(`${url}login`, { method: 'POST', body: new URLSearchParams({ token: TOKEN }), redirect: 'manual' });
      expect(right.status).toBe(303);
      const cookie = right.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^sm_console_session=[\w-]+; Path=\/console\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/u);
      const signedIn = await trusting(`${url}state`, { headers: { Cookie: cookie.split(';')[0]! } });
      expect(signedIn.status).toBe(200);
    } finally {
      await agent.close();
      await tls.remove();
    }
  });

  it('should show a failed read and keep serving', async () => {
    const broken = { select: () => Promise.reject(new Error('store down (injected)')) } as unknown as TripleStore;
    const url = await startConsole(undefined, [{ url: 'urn:store:broken', client: broken }]);
    const state = async () => (await (await fetch(`${url}state`)).json()) as { error?: string };
    for (let i = 0; i < 50 && (await state()).error === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await state()).error).toBe('store down (injected)');
    expect(await (await fetch(url)).text()).toContain('Reading the plant failed: store down (injected)');
  });
});
