import { describe, expect } from '@jest/globals';
import { ValueError } from '../../src/errors.js';
import {
  buildStateEndpoint,
  buildWorkflowEndpoint,
  mintCapabilityIri,
  mintServiceIri,
  mintStatePropertyIri,
  mintWorkflowIri,
} from '../../src/iri/index.js';
import { OGM } from '../../src/ogm/index.js';
import { findRunningOperations, findStaleServices } from '../../src/registration/liveness.js';
import { sweepStaleServices, SWEEP_REASON } from '../../src/registration/sweep.js';
import {
  makeServiceReachable,
  registerService,
  registerStateProperty,
  registerWorkflow,
  updateHeartbeat,
} from '../../src/registration/services.js';
import { cfc, ONTOLOGY_GRAPHS, plant, sm, svc, xsd } from '../../src/vocab/index.js';
import { HookedStore } from '../support/hooked-store.js';
import { storeSuite } from '../support/per-store.js';

const G = 'urn:test:registration:liveness';
const MAX_AGE = 90;
const NOW = new Date();
const FRESH = new Date(NOW.getTime() - 10_000);
const OLD = new Date(NOW.getTime() - 600_000);
const R = plant.door1;
const CONTROLLER_ADDRESS = 'http://127.0.0.1:8201';
const MONITOR_ADDRESS = 'http://127.0.0.1:8202';
const C = mintServiceIri(R, CONTROLLER_ADDRESS);
const M = mintServiceIri(R, MONITOR_ADDRESS);
const CAP_OPEN = mintCapabilityIri(R, 'open');
const CAP_STATE = mintCapabilityIri(R, 'state');
const WF = mintWorkflowIri(C, 'open');
const SP = mintStatePropertyIri(M, 'state');

describe.each(['embedded', 'remote'] as const)('liveness on the %s store', (kind) => {
  const suite = storeSuite(kind, G);
  const { onStore } = suite;

  const dump = (): Promise<string> => suite.store!.dump({ graph: G });
  const values = async (iri: string, property: string): Promise<string[]> =>
    ((await suite.ogm.fetch(iri, { graph: G }))?.properties[property] ?? []).map((t) => t.value).sort();
  const statusOf = async (op: string): Promise<string | undefined> => (await values(op, svc.operationStatus))[0];
  const sweep = (extra: { reason?: string } = {}): Promise<string[]> =>
    sweepStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: G, ...extra });

  /** A reachable Service with an optional heartbeat (`null`: none), realizing `workflowCapability` if given. */
  async function service(opts: {
    resource?: string;
    address: string;
    heartbeat: Date | null;
    workflowCapability?: string;
    stateCapability?: string;
  }): Promise<string> {
    const resourceIri = opts.resource ?? R;
    const serviceIri = mintServiceIri(resourceIri, opts.address);
    const cls = opts.workflowCapability ? plant.ControllerService : plant.MonitorService;
    await registerService(suite.ogm, { resourceIri, serviceIri, serviceClass: cls, address: opts.address, namedGraph: G });
    if (opts.workflowCapability) {
      await registerWorkflow(suite.ogm, {
        resourceIri,
        serviceIri,
        workflowIri: mintWorkflowIri(serviceIri, 'open'),
        workflowClass: plant.OpenDoorWorkflow,
        capabilityIri: opts.workflowCapability,
        capabilityClass: plant.DoorOpeningCapability,
        endpoint: buildWorkflowEndpoint(opts.address, 'open'),
        namedGraph: G,
      });
    }
    if (opts.stateCapability) {
      await registerStateProperty(suite.ogm, {
        resourceIri,
        serviceIri,
        statePropertyIri: mintStatePropertyIri(serviceIri, 'state'),
        statePropertyClass: plant.DoorStateProperty,
        capabilityIri: opts.stateCapability,
        capabilityClass: plant.DoorStateCapability,
        endpoint: buildStateEndpoint(opts.address, 'state'),
        namedGraph: G,
      });
    }
    if (opts.heartbeat) await updateHeartbeat(suite.ogm, serviceIri, { timestamp: opts.heartbeat, namedGraph: G });
    return serviceIri;
  }

  let opCounter = 0;
  async function operation(capabilityIri: string, status = 'queued'): Promise<string> {
    const iri = `${plant.OpenDoorOperation}_op_${String(++opCounter).padStart(12, '0')}`;
    await suite.ogm.create({
      iri,
      type: plant.OpenDoorOperation,
      properties: { [cfc.implementsCapability]: capabilityIri, [svc.operationStatus]: status },
      graph: G,
    });
    return iri;
  }

  async function controllerAndMonitor(controllerHeartbeat: Date, monitorHeartbeat: Date): Promise<void> {
    await service({ address: CONTROLLER_ADDRESS, heartbeat: controllerHeartbeat, workflowCapability: CAP_OPEN });
    await service({ address: MONITOR_ADDRESS, heartbeat: monitorHeartbeat, stateCapability: CAP_STATE });
  }

  onStore('should find the orphans of a restarted Service: its running Operations that no other surviving Service realizes', async () => {
    const restarted = await service({ address: CONTROLLER_ADDRESS, heartbeat: FRESH, workflowCapability: CAP_OPEN });
    const twin = await service({ address: 'http://127.0.0.1:8203', heartbeat: FRESH, workflowCapability: CAP_OPEN });
    await service({ address: MONITOR_ADDRESS, heartbeat: FRESH, stateCapability: CAP_STATE });
    const running = await operation(CAP_OPEN, 'running');
    await operation(CAP_OPEN, 'queued');
    await operation(CAP_STATE, 'running');
    const orphans = async (): Promise<string[]> =>
      (await findRunningOperations(suite.ogm, restarted, MAX_AGE, { now: NOW, namedGraph: G }))
        .filter((r) => r.survivors.length === 0)
        .map((r) => r.operationIri);
    // A live twin realizing the Capability may be running it: not an orphan. The restarted
    // Service itself (fresh, reachable) does not count; the monitor realizes no Workflow.
    const before = suite.store!.requestCount;
    expect(await findRunningOperations(suite.ogm, restarted, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([
      { operationIri: running, survivors: [{ serviceIri: twin, address: 'http://127.0.0.1:8203' }] },
    ]);
    expect(suite.store!.requestCount - before).toBe(1);
    expect(await orphans()).toEqual([]);
    // The twin's heartbeat goes stale: no survivor is left, the Operation is an orphan.
    await updateHeartbeat(suite.ogm, twin, { timestamp: OLD, namedGraph: G });
    expect(await orphans()).toEqual([running]);
    // So it is when the twin is gone altogether (deregistered: no address).
    await updateHeartbeat(suite.ogm, twin, { timestamp: FRESH, namedGraph: G });
    expect(await orphans()).toEqual([]);
    await suite.store!.update(`DELETE WHERE { GRAPH <${G}> { <${twin}> <${svc.address}> ?a } }`);
    expect(await orphans()).toEqual([running]);
    await expect(findRunningOperations(suite.ogm, 'not an iri', MAX_AGE)).rejects.toThrow(ValueError);
    await expect(findRunningOperations(suite.ogm, restarted, -1)).rejects.toThrow(ValueError);
  });

  /**
   * Gives a Service `sm:heartbeatInterval` values as given, bypassing the OGM (a hostile or odd
   * writer): typed `xsd:integer` when they are plain digits, untyped otherwise (Virtuoso refuses an
   * ill-typed integer).
   */
  async function intervalOf(service: string, ...lexicals: string[]): Promise<void> {
    for (const value of lexicals) {
      const literal = /^\d{1,15}$/u.test(value) ? `"${value}"^^<${xsd.integer}>` : JSON.stringify(value);
      await suite.store!.update(`INSERT DATA { GRAPH <${G}> { <${service}> <${sm.heartbeatInterval}> ${literal} } }`);
    }
  }
  const ago = (ms: number): Date => new Date(NOW.getTime() - ms);

  onStore('should judge each Service by max(threshold, 3 x its own heartbeat interval)', async () => {
    // 60 s heartbeat, last one 100 s ago: alive until 180 s. Without the interval: stale after 90 s.
    const slow = await service({ address: 'http://127.0.0.1:8231', heartbeat: ago(100_000) });
    await makeServiceReachable(suite.ogm, slow, 'http://127.0.0.1:8231', {
      heartbeat: ago(100_000),
      heartbeatIntervalMs: 60_000,
      namedGraph: G,
    });
    const reference = await service({ address: 'http://127.0.0.1:8232', heartbeat: ago(100_000) });
    // A short interval never lowers the threshold: 10 s heartbeat, 60 s ago, is fresh by 90 s.
    const short = await service({ address: 'http://127.0.0.1:8233', heartbeat: ago(60_000) });
    await intervalOf(short, '10000');
    const before = suite.store!.requestCount;
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([reference]);
    expect(suite.store!.requestCount - before).toBe(1);
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: new Date(NOW.getTime() + 79_000), namedGraph: G })).toEqual(
      [reference, short].sort(),
    );
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: new Date(NOW.getTime() + 81_000), namedGraph: G })).toEqual(
      [reference, short, slow].sort(),
    );
    // A watchdog configured far shorter than the heartbeat: the slow Service is still judged by its own interval.
    expect(await findStaleServices(suite.ogm, 1, { now: NOW, namedGraph: G })).toEqual([reference, short].sort());
    expect(await sweepStaleServices(suite.ogm, 1, { now: NOW, namedGraph: G })).toEqual([reference, short].sort());
    expect(await values(slow, svc.address)).toEqual(['http://127.0.0.1:8231']);
    expect(await values(slow, sm.heartbeatInterval)).toEqual(['60000']);
  });

  onStore('should keep the Operations a Service alive only by its own interval can still run', async () => {
    // Twins of door1: the dead one written by the reference, the live one heartbeating every 60 s.
    const dead = await service({ address: CONTROLLER_ADDRESS, heartbeat: OLD, workflowCapability: CAP_OPEN });
    const live = await service({ address: 'http://127.0.0.1:8203', heartbeat: ago(100_000), workflowCapability: CAP_OPEN });
    await intervalOf(live, '60000');
    const queued = await operation(CAP_OPEN, 'queued');
    const running = await operation(CAP_OPEN, 'running');
    expect(await sweep()).toEqual([dead]);
    expect(await statusOf(queued)).toBe('queued');
    expect(await statusOf(running)).toBe('running');
    // Queue reconstruction of the dead twin sees the live one as a survivor by the same rule.
    expect(await findRunningOperations(suite.ogm, dead, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([
      { operationIri: running, survivors: [{ serviceIri: live, address: 'http://127.0.0.1:8203' }] },
    ]);
    // Past 3 x 60 s it is dead too: no survivor.
    const later = new Date(NOW.getTime() + 81_000);
    expect(await findRunningOperations(suite.ogm, dead, MAX_AGE, { now: later, namedGraph: G })).toEqual([
      { operationIri: running, survivors: [] },
    ]);
    expect(await sweepStaleServices(suite.ogm, MAX_AGE, { now: later, namedGraph: G })).toEqual([live]);
    expect(await statusOf(queued)).toBe('failed');
  });

  onStore('should name in its failing update only the spared Services that realize a Capability of the swept resources', async () => {
    const dead = await service({ address: CONTROLLER_ADDRESS, heartbeat: OLD, workflowCapability: CAP_OPEN });
    const live = await service({ address: 'http://127.0.0.1:8203', heartbeat: ago(100_000), workflowCapability: CAP_OPEN });
    await intervalOf(live, '60000');
    // Services of other machines, each alive only by its own long interval too.
    const elsewhere: string[] = [];
    for (let i = 0; i < 20; i++) {
      const resource = `https://example.org/test/machine${i}`;
      const address = `http://127.0.0.1:${8300 + i}`;
      const other = await service({ resource, address, heartbeat: ago(100_000), workflowCapability: mintCapabilityIri(resource, 'open') });
      await intervalOf(other, '60000');
      elsewhere.push(other);
    }
    const queued = await operation(CAP_OPEN, 'queued');
    const hooked = new HookedStore(suite.store!);
    const updates: string[] = [];
    hooked.beforeUpdate = (_n, text) => void updates.push(text);
    const watchdog = new OGM({ store: hooked, graph: G, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    await watchdog.tbox();
    const before = suite.store!.requestCount;
    expect(await sweepStaleServices(watchdog, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([dead]);
    // The find, the read narrowing the spared ones, the failing and the deregistering update, and
    // the shapes this new OGM reads once, at its first write.
    expect(suite.store!.requestCount - before).toBe(5);
    // The live twin still shields the queued Operation; no other spared Service is named.
    expect(await statusOf(queued)).toBe('queued');
    expect(updates).toHaveLength(2);
    expect(updates[0]).toContain(live);
    for (const other of elsewhere) expect(updates.join('\n')).not.toContain(other);
    expect(await values(live, svc.address)).toEqual(['http://127.0.0.1:8203']);
  });

  onStore('should judge hostile or odd interval values by the threshold alone, and several by the smallest', async () => {
    const odd = [['-60000'], ['0'], ['abc'], ['99999999999999999999'], ['60000.5'], ['1e9']];
    const services: string[] = [];
    for (const [i, lexicals] of odd.entries()) {
      const s = await service({ address: `http://127.0.0.1:${8240 + i}`, heartbeat: ago(100_000) });
      await intervalOf(s, ...lexicals);
      services.push(s);
    }
    // Two values (one written by someone else): the smaller one counts, 20 s: stale at 100 s.
    const two = await service({ address: 'http://127.0.0.1:8250', heartbeat: ago(100_000) });
    await intervalOf(two, '20000', '600000');
    // A huge one is capped at an hour: alive at 100 s, stale past 3 h.
    const huge = await service({ address: 'http://127.0.0.1:8251', heartbeat: ago(100_000) });
    await intervalOf(huge, '86400000000');
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([...services, two].sort());
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: new Date(NOW.getTime() + 3 * 3_600_000), namedGraph: G })).toContain(huge);
    const before = await dump();
    expect(await sweep()).toEqual([...services, two].sort());
    expect(await values(huge, svc.address)).toEqual(['http://127.0.0.1:8251']);
    expect((await dump()).length).toBeLessThan(before.length);
    // The write path refuses a bad interval before anything is sent.
    for (const bad of [0, -1, 1.5, Number.NaN, '60000' as unknown as number])
      await expect(
        makeServiceReachable(suite.ogm, huge, 'http://127.0.0.1:8251', { heartbeatIntervalMs: bad, namedGraph: G }),
      ).rejects.toThrow(ValueError);
  });

  onStore('should find Services with an address and no heartbeat or an old one, in one query', async () => {
    const fresh = await service({ address: 'http://127.0.0.1:8211', heartbeat: FRESH });
    const old = await service({ address: 'http://127.0.0.1:8212', heartbeat: OLD });
    const none = await service({ address: 'http://127.0.0.1:8213', heartbeat: null });
    const edge = await service({ address: 'http://127.0.0.1:8214', heartbeat: new Date(NOW.getTime() - MAX_AGE * 1000) });
    const gone = await service({ address: 'http://127.0.0.1:8215', heartbeat: OLD });
    await suite.store!.update(`DELETE WHERE { GRAPH <${G}> { <${gone}> <${svc.address}> ?a } }`);
    const before = suite.store!.requestCount;
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([old, none].sort());
    expect(suite.store!.requestCount - before).toBe(1);
    expect(await findStaleServices(suite.ogm, 0.001, { now: NOW, namedGraph: G })).toEqual([fresh, old, none, edge].sort());
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: OLD, namedGraph: G })).toEqual([none]);
  });

  onStore('should never take an untyped heartbeat for stale, as the Python reference', async () => {
    const s = await service({ address: 'http://127.0.0.1:8216', heartbeat: null });
    await suite.store!.update(`INSERT DATA { GRAPH <${G}> { <${s}> <${svc.lastHeartbeat}> "${OLD.toISOString()}" } }`);
    expect(await findStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([]);
  });

  onStore('should sweep a stale Service: deregistered, types, links, Capabilities and heartbeat kept', async () => {
    await controllerAndMonitor(OLD, FRESH);
    expect(await sweep()).toEqual([C]);
    expect(await values(C, svc.address)).toEqual([]);
    expect(await values(WF, svc.endpoint)).toEqual([]);
    expect((await suite.ogm.fetch(C, { graph: G }))?.types).toEqual([plant.ControllerService]);
    expect(await values(C, svc.isServiceOf)).toEqual([R]);
    expect(await values(C, svc.lastHeartbeat)).toHaveLength(1);
    expect(await values(WF, svc.isWorkflowOf)).toEqual([C]);
    expect(await values(CAP_OPEN, svc.realizedByWorkflow)).toEqual([WF]);
    expect(await values(R, cfc.hasCapability)).toEqual([CAP_OPEN, CAP_STATE].sort());
    expect(await values(M, svc.address)).toEqual([MONITOR_ADDRESS]);
    expect(await values(SP, svc.endpoint)).toEqual([`${MONITOR_ADDRESS}/state/state`]);
    const after = await dump();
    expect(await sweep()).toEqual([]);
    expect(await dump()).toBe(after);
  });

  onStore('(a) should keep the live controller’s Operation when only the monitor is stale', async () => {
    await controllerAndMonitor(FRESH, OLD);
    const queued = await operation(CAP_OPEN, 'queued');
    const running = await operation(CAP_OPEN, 'running');
    expect(await sweep()).toEqual([M]);
    expect(await statusOf(queued)).toBe('queued');
    expect(await statusOf(running)).toBe('running');
    expect(await values(C, svc.address)).toEqual([CONTROLLER_ADDRESS]);
  });

  onStore('(b) should fail a dead controller’s Operations although a live monitor realizing no Workflow survives', async () => {
    await controllerAndMonitor(OLD, FRESH);
    const queued = await operation(CAP_OPEN, 'queued');
    const running = await operation(CAP_OPEN, 'running');
    const done = await operation(CAP_OPEN, 'done');
    expect(await sweep()).toEqual([C]);
    for (const op of [queued, running]) {
      expect(await statusOf(op)).toBe('failed');
      expect(await values(op, svc.executionResult)).toEqual([SWEEP_REASON]);
      const stamp = (await suite.ogm.fetch(op, { graph: G }))?.properties[svc.executionTimestamp] ?? [];
      expect(stamp).toHaveLength(1);
      expect(stamp[0]).toMatchObject({ datatype: xsd.dateTime });
      expect(new Date(stamp[0]!.value).getTime()).toBe(NOW.getTime());
    }
    expect(await statusOf(done)).toBe('done');
    expect(await values(done, svc.executionResult)).toEqual([]);
    expect(SWEEP_REASON).toBe('stranded operation swept by watchdog: the resource is stale/dead');
  });

  onStore('(c) should fail the Operations when every Service of the resource is dead, with a given reason', async () => {
    await controllerAndMonitor(OLD, OLD);
    const queued = await operation(CAP_OPEN, 'queued');
    expect(await sweep({ reason: 'custom "reason" } ;' })).toEqual([C, M].sort());
    expect(await statusOf(queued)).toBe('failed');
    expect(await values(queued, svc.executionResult)).toEqual(['custom "reason" } ;']);
  });

  onStore('(d) should take a Service with no heartbeat at all for stale', async () => {
    const s = await service({ address: CONTROLLER_ADDRESS, heartbeat: null, workflowCapability: CAP_OPEN });
    const queued = await operation(CAP_OPEN);
    expect(await sweep()).toEqual([s]);
    expect(await statusOf(queued)).toBe('failed');
  });

  onStore('should keep Operations of resources with no swept Service and of live sibling resources', async () => {
    await service({ address: CONTROLLER_ADDRESS, heartbeat: OLD, workflowCapability: CAP_OPEN });
    const robotCap = mintCapabilityIri(plant.robot1, 'open');
    await service({ resource: plant.robot1, address: 'http://127.0.0.1:8221', heartbeat: FRESH, workflowCapability: robotCap });
    const robotOp = await operation(robotCap);
    const doorOp = await operation(CAP_OPEN);
    await sweep();
    expect(await statusOf(robotOp)).toBe('queued');
    expect(await statusOf(doorOp)).toBe('failed');
  });

  onStore('(e) should not sweep a Service that heartbeats between the find and the deregistration', async () => {
    await controllerAndMonitor(OLD, FRESH);
    const queued = await operation(CAP_OPEN);
    const interleaving = new HookedStore(suite.store!);
    const watchdog = new OGM({ store: interleaving, graph: G, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    await watchdog.tbox();
    // The sweep's find still sees the old heartbeat; the controller heartbeats right after.
    expect(await findStaleServices(watchdog, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([C]);
    interleaving.afterNextSelect = () => updateHeartbeat(suite.ogm, C, { timestamp: NOW, namedGraph: G });
    const before = await dump();
    await sweepStaleServices(watchdog, MAX_AGE, { now: NOW, namedGraph: G });
    expect(interleaving.afterNextSelect).toBeUndefined();
    expect(await values(C, svc.address)).toEqual([CONTROLLER_ADDRESS]);
    expect(await values(WF, svc.endpoint)).toEqual([`${CONTROLLER_ADDRESS}/workflows/open/execute`]);
    expect(await statusOf(queued)).toBe('queued');
    // Only the heartbeat changed.
    const changed = (await dump()).split('\n').filter((l) => !before.includes(l));
    expect(changed.every((l) => l.includes(svc.lastHeartbeat))).toBe(true);
  });

  onStore(
    'should sweep 50 stale Services in as many requests as 1, and at most 3',
    async () => {
      const counts: number[] = [];
      for (const n of [1, 50]) {
        await suite.store!.update(`DROP SILENT GRAPH <${G}>`);
        const ops: string[] = [];
        for (let i = 0; i < n; i++) {
          const resource = `${plant.door1}_${n}_${i}`;
          const cap = mintCapabilityIri(resource, 'open');
          await service({
            resource,
            address: `http://10.1.0.${i % 250}:${9000 + i}`,
            heartbeat: i % 2 ? OLD : null,
            workflowCapability: cap,
          });
          ops.push(await operation(cap));
        }
        await service({ resource: plant.robot1, address: 'http://127.0.0.1:8231', heartbeat: FRESH });
        const before = suite.store!.requestCount;
        const swept = await sweep();
        counts.push(suite.store!.requestCount - before);
        expect(swept).toHaveLength(n);
        for (const op of ops) expect(await statusOf(op)).toBe('failed');
      }
      expect(counts[0]).toBe(counts[1]);
      expect(counts[1]).toBeLessThanOrEqual(3);
      const before = suite.store!.requestCount;
      expect(await sweep()).toEqual([]);
      expect(suite.store!.requestCount - before).toBe(1);
    },
    120_000,
  );

  onStore(
    'should let exactly one of a sweep and a guarded running -> done commit win, every time',
    async () => {
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        const resource = `${plant.door1}_race_${i}`;
        const cap = mintCapabilityIri(resource, 'open');
        await service({ resource, address: `http://127.0.0.1:${8300 + i}`, heartbeat: OLD, workflowCapability: cap });
        const op = await operation(cap, 'running');
        const finish = async (): Promise<boolean> => {
          // Vary who goes first: event-loop turns on the in-process store, milliseconds over HTTP.
          if (kind === 'embedded') for (let k = 0; k < i % 4; k++) await new Promise((resolve) => setImmediate(resolve));
          else await new Promise((resolve) => setTimeout(resolve, (i % 10) * 10));
          const r = await suite.ogm.commit({
            iri: op,
            set: { [svc.operationStatus]: 'done', [svc.executionResult]: 'ok' },
            guard: { [svc.operationStatus]: 'running' },
            graph: G,
          });
          return r.applied;
        };
        const [swept, doneApplied] = await Promise.all([sweep(), finish()]);
        expect(swept).toContain(mintServiceIri(resource, `http://127.0.0.1:${8300 + i}`));
        const status = await statusOf(op);
        const result = await values(op, svc.executionResult);
        if (doneApplied) {
          expect(status).toBe('done');
          expect(result).toEqual(['ok']);
        } else {
          expect(status).toBe('failed');
          expect(result).toEqual([SWEEP_REASON]);
        }
        outcomes.push(status!);
      }
      expect(outcomes).toHaveLength(20);
      // In process the interleaving is deterministic, and both orders occur.
      if (kind === 'embedded') expect(new Set(outcomes)).toEqual(new Set(['done', 'failed']));
    },
    120_000,
  );

  onStore('should remove every endpoint of a swept Service and nothing of a live one', async () => {
    const robotOpen = mintCapabilityIri(plant.robot1, 'open');
    const robotState = mintCapabilityIri(plant.robot1, 'state');
    const dead = await service({ address: CONTROLLER_ADDRESS, heartbeat: OLD, workflowCapability: CAP_OPEN, stateCapability: CAP_STATE });
    const live = await service({
      resource: plant.robot1,
      address: 'http://127.0.0.1:8241',
      heartbeat: FRESH,
      workflowCapability: robotOpen,
      stateCapability: robotState,
    });
    expect(await sweep()).toEqual([dead]);
    for (const part of [mintWorkflowIri(dead, 'open'), mintStatePropertyIri(dead, 'state')])
      expect(await values(part, svc.endpoint)).toEqual([]);
    expect(await values(dead, svc.address)).toEqual([]);
    expect(await values(live, svc.address)).toEqual(['http://127.0.0.1:8241']);
    expect(await values(mintWorkflowIri(live, 'open'), svc.endpoint)).toEqual(['http://127.0.0.1:8241/workflows/open/execute']);
    expect(await values(mintStatePropertyIri(live, 'state'), svc.endpoint)).toEqual(['http://127.0.0.1:8241/state/state']);
  });

  onStore(
    'should count a Service with an untyped heartbeat as surviving: it is never stale, so its sibling’s Operations stay',
    async () => {
      await service({ address: CONTROLLER_ADDRESS, heartbeat: OLD, workflowCapability: CAP_OPEN });
      // A second instance of the resource realizing the same Capability, heartbeat written untyped.
      const untyped = await service({ address: 'http://127.0.0.1:8242', heartbeat: null, workflowCapability: CAP_OPEN });
      await suite.store!.update(`INSERT DATA { GRAPH <${G}> { <${untyped}> <${svc.lastHeartbeat}> "${OLD.toISOString()}" } }`);
      const queued = await operation(CAP_OPEN);
      expect(await sweep()).toEqual([C]);
      expect(await values(untyped, svc.address)).toEqual(['http://127.0.0.1:8242']);
      expect(await statusOf(queued)).toBe('queued');
    },
  );

  onStore('should keep the queued Operations of a resource deregistered earlier that has nothing stale now', async () => {
    // door1 shut down cleanly long ago: deregistered, old heartbeat, an Operation left queued for its restart.
    const earlier = await service({ address: CONTROLLER_ADDRESS, heartbeat: OLD, workflowCapability: CAP_OPEN });
    await suite.store!.update(`DELETE WHERE { GRAPH <${G}> { <${earlier}> <${svc.address}> ?a } }`);
    const kept = await operation(CAP_OPEN);
    const robotCap = mintCapabilityIri(plant.robot1, 'open');
    const stale = await service({ resource: plant.robot1, address: 'http://127.0.0.1:8243', heartbeat: OLD, workflowCapability: robotCap });
    const stranded = await operation(robotCap);
    expect(await sweep()).toEqual([stale]);
    expect(await statusOf(stranded)).toBe('failed');
    expect(await statusOf(kept)).toBe('queued');
    expect(await values(kept, svc.executionResult)).toEqual([]);
  });

  onStore('(e) should sweep the others but not the one of several stale Services that heartbeats after the find', async () => {
    const resources = [plant.door1, plant.robot1, `${plant.door1}_third`];
    const services: string[] = [];
    const ops: string[] = [];
    for (const [i, resource] of resources.entries()) {
      const cap = mintCapabilityIri(resource, 'open');
      services.push(await service({ resource, address: `http://127.0.0.1:${8251 + i}`, heartbeat: OLD, workflowCapability: cap }));
      ops.push(await operation(cap));
    }
    const interleaving = new HookedStore(suite.store!);
    const watchdog = new OGM({ store: interleaving, graph: G, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    await watchdog.tbox();
    const refreshed = services[1]!;
    interleaving.afterNextSelect = () => updateHeartbeat(suite.ogm, refreshed, { timestamp: NOW, namedGraph: G });
    expect(await sweepStaleServices(watchdog, MAX_AGE, { now: NOW, namedGraph: G })).toEqual([...services].sort());
    expect(interleaving.afterNextSelect).toBeUndefined();
    expect(await values(refreshed, svc.address)).toEqual(['http://127.0.0.1:8252']);
    expect(await values(mintWorkflowIri(refreshed, 'open'), svc.endpoint)).toEqual(['http://127.0.0.1:8252/workflows/open/execute']);
    expect(await statusOf(ops[1]!)).toBe('queued');
    for (const k of [0, 2]) {
      expect(await values(services[k]!, svc.address)).toEqual([]);
      expect(await values(mintWorkflowIri(services[k]!, 'open'), svc.endpoint)).toEqual([]);
      expect(await statusOf(ops[k]!)).toBe('failed');
    }
  });

  onStore('should refuse bad ages, times, reasons and graphs with ValueError and write nothing', async () => {
    await controllerAndMonitor(OLD, OLD);
    const before = await dump();
    const bad: (() => Promise<unknown>)[] = [
      () => findStaleServices(suite.ogm, Number.NaN, { namedGraph: G }),
      () => findStaleServices(suite.ogm, -1, { namedGraph: G }),
      () => findStaleServices(suite.ogm, Number.POSITIVE_INFINITY, { namedGraph: G }),
      () => findStaleServices(suite.ogm, '90' as unknown as number, { namedGraph: G }),
      () => findStaleServices(suite.ogm, MAX_AGE, { now: new Date('nope'), namedGraph: G }),
      () => sweepStaleServices(suite.ogm, Number.NaN, { now: NOW, namedGraph: G }),
      () => sweepStaleServices(suite.ogm, MAX_AGE, { now: new Date(Number.NaN), namedGraph: G }),
      () => sweepStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: G, reason: 42 as unknown as string }),
      () => sweepStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: 'urn:x> } DROP ALL' }),
      () => findStaleServices(suite.ogm, MAX_AGE, { now: NOW, namedGraph: 'not a graph' }),
    ];
    for (const call of bad) await expect(call()).rejects.toBeInstanceOf(ValueError);
    expect(await dump()).toBe(before);
  });
});
