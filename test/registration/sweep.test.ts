import { describe, expect } from '@jest/globals';
import { StoreError, ValueError } from '../../src/errors.js';
import { mintCapabilityIri, mintServiceIri, mintWorkflowIri } from '../../src/iri/index.js';
import { LIMITS } from '../../src/limits.js';
import { OGM } from '../../src/ogm/index.js';
import { updateHeartbeat } from '../../src/registration/services.js';
import { sweepStaleServices, SWEEP_REASON, type SweepOptions } from '../../src/registration/sweep.js';
import { dateTimeLiteral, literal, namedNode, sparqlTerm, type Term } from '../../src/store/terms.js';
import { FailureKind } from '../../src/vocab/status.js';
import { cfc, ONTOLOGY_GRAPHS, plant, sm, svc, w3, xsd } from '../../src/vocab/index.js';
import { HookedStore } from '../support/hooked-store.js';
import { addService, rejection, storeSuite } from './support/plant-graph.js';

const G = 'urn:test:registration:sweep';
const MAX_AGE = 90;
const NOW = new Date();
const FRESH = new Date(NOW.getTime() - 10_000);
const OLD = new Date(NOW.getTime() - 600_000);

describe.each(['embedded', 'remote'] as const)('the sweep in batches on the %s store', (kind) => {
  const suite = storeSuite(kind, G);
  const { onStore } = suite;

  const values = async (iri: string, property: string): Promise<string[]> =>
    ((await suite.ogm.fetch(iri, { graph: G }))?.properties[property] ?? []).map((t) => t.value).sort();
  const sweep = (ogm: OGM, extra: SweepOptions = {}): Promise<string[]> =>
    sweepStaleServices(ogm, MAX_AGE, { now: NOW, namedGraph: G, ...extra });
  /** An OGM on the suite's store seen through a {@link HookedStore}. */
  const hooked = (): { store: HookedStore; ogm: OGM } => {
    const store = new HookedStore(suite.store!);
    return { store, ogm: new OGM({ store, graph: G, shapesGraph: ONTOLOGY_GRAPHS.shapes }) };
  };

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

  /** A resource's controller Service per heartbeat given (sorted by Service IRI), each with one Operation. */
  async function plantOf(heartbeats: readonly (Date | null)[]): Promise<{ service: string; op: string }[]> {
    const made: { service: string; op: string }[] = [];
    for (const [i, heartbeat] of heartbeats.entries()) {
      const resourceIri = `${plant.door1}_sweep_${String(i).padStart(3, '0')}`;
      const registered = await addService(suite.ogm, { resourceIri, address: `http://127.0.0.1:${9100 + i}`, heartbeat, graph: G });
      made.push({
        service: registered.serviceIri,
        op: await operation(registered.workflows[0]!.capabilityIri, i % 2 ? 'running' : 'queued'),
      });
    }
    return made.sort((a, b) => (a.service < b.service ? -1 : 1));
  }

  /** Whether the Service is registered (address, Workflow endpoint) and its Operation in flight. */
  async function isUntouched(entry: { service: string; op: string }): Promise<boolean> {
    const endpoint = await values(mintWorkflowIri(entry.service, 'open'), svc.endpoint);
    const status = (await values(entry.op, svc.operationStatus))[0];
    return (await values(entry.service, svc.address)).length === 1 && endpoint.length === 1 && status !== 'failed';
  }

  async function expectSwept(entry: { service: string; op: string }): Promise<void> {
    expect(await values(entry.service, svc.address)).toEqual([]);
    expect(await values(mintWorkflowIri(entry.service, 'open'), svc.endpoint)).toEqual([]);
    expect(await values(entry.op, svc.operationStatus)).toEqual(['failed']);
    expect(await values(entry.op, svc.executionResult)).toEqual([SWEEP_REASON]);
    expect(await values(entry.op, sm.failureKind)).toEqual([FailureKind.SWEPT]);
  }

  const SEVEN_STALE = [OLD, null, OLD, OLD, null, OLD, OLD];

  onStore('should sweep more stale Services than one batch holds in one sweep, two updates per batch', async () => {
    const stale = await plantOf(SEVEN_STALE);
    const live = await addService(suite.ogm, { resourceIri: plant.robot1, address: 'http://127.0.0.1:9200', heartbeat: FRESH, graph: G });
    const liveOp = await operation(live.workflows[0]!.capabilityIri);
    const before = suite.requests();
    expect(await sweep(suite.ogm, { batchSize: 3 })).toEqual(stale.map((s) => s.service));
    // The find, then batches of 3, 3 and 1: one deregistering and one failing update each.
    expect(suite.requests() - before).toBe(1 + 2 * 3);
    for (const entry of stale) await expectSwept(entry);
    expect(await isUntouched({ service: live.serviceIri, op: liveOp })).toBe(true);
    const after = await suite.dump();
    expect(await sweep(suite.ogm, { batchSize: 3 })).toEqual([]);
    expect(await suite.dump()).toBe(after);
  });

  /** N-Triples line of a triple, every term written by the product's serializer. */
  const nt = (s: string, p: string, o: Term): string => `${sparqlTerm(namedNode(s))} ${sparqlTerm(namedNode(p))} ${sparqlTerm(o)} .`;

  /** `count` resources with a stale controller Service (one queued Operation each), as registration writes them. */
  function stalePlantNTriples(count: number): string {
    const lines: string[] = [];
    for (let i = 0; i < count; i++) {
      const resource = `${plant.door1}_bulk_${i}`;
      const address = `http://10.0.${Math.floor(i / 250)}.${i % 250}:9000`;
      const [service, capability] = [mintServiceIri(resource, address), mintCapabilityIri(resource, 'open')];
      const workflow = mintWorkflowIri(service, 'open');
      const op = `${plant.OpenDoorOperation}_bulk_${i}`;
      lines.push(
        nt(service, w3.type, namedNode(plant.ControllerService)),
        nt(service, svc.isServiceOf, namedNode(resource)),
        nt(service, svc.address, literal(address, xsd.anyURI)),
        ...(i % 2 ? [nt(service, svc.lastHeartbeat, dateTimeLiteral(OLD))] : []),
        nt(workflow, w3.type, namedNode(plant.OpenDoorWorkflow)),
        nt(workflow, svc.isWorkflowOf, namedNode(service)),
        nt(workflow, svc.endpoint, literal(`${address}/workflows/open/execute`, xsd.anyURI)),
        nt(capability, w3.type, namedNode(plant.DoorOpeningCapability)),
        nt(capability, svc.realizedByWorkflow, namedNode(workflow)),
        nt(resource, cfc.hasCapability, namedNode(capability)),
        nt(op, w3.type, namedNode(plant.OpenDoorOperation)),
        nt(op, cfc.implementsCapability, namedNode(capability)),
        nt(op, svc.operationStatus, literal('queued')),
      );
    }
    return `${lines.join('\n')}\n`;
  }

  const countOf = async (property: string, object = '?o'): Promise<number> => {
    const rows = await suite.store!.select(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${G}> { ?s <${property}> ${object} } }`);
    return Number(rows[0]?.n?.value);
  };

  onStore(
    'should sweep more stale Services than the default batch holds (LIMITS.sweepBatchServices) in one sweep',
    async () => {
      const count = LIMITS.sweepBatchServices + 20;
      await suite.store!.load(stalePlantNTriples(count), { graph: G, format: 'application/n-triples' });
      const live = await addService(suite.ogm, { resourceIri: plant.robot1, address: 'http://127.0.0.1:9200', heartbeat: FRESH, graph: G });
      const liveOp = await operation(live.workflows[0]!.capabilityIri);
      const before = suite.requests();
      expect(await sweep(suite.ogm)).toHaveLength(count);
      expect(suite.requests() - before).toBe(1 + 2 * 2);
      expect(await countOf(svc.address)).toBe(1);
      expect(await countOf(svc.endpoint)).toBe(1);
      expect(await countOf(svc.operationStatus, '"failed"')).toBe(count);
      expect(await countOf(sm.failureKind)).toBe(count);
      expect(await isUntouched({ service: live.serviceIri, op: liveOp })).toBe(true);
      expect(await sweep(suite.ogm)).toEqual([]);
    },
    120_000,
  );

  onStore('should re-check staleness in every batch: a Service that heartbeats while an earlier batch runs is kept', async () => {
    const stale = await plantOf(SEVEN_STALE);
    const [fifth, seventh] = [stale[4]!, stale[6]!];
    const { store, ogm } = hooked();
    // After the first batch's two updates, a Service of the second batch and the one of the third heartbeat.
    store.beforeUpdate = async (n) => {
      if (n !== 3) return;
      for (const entry of [fifth, seventh]) await updateHeartbeat(suite.ogm, entry.service, { timestamp: NOW, namedGraph: G });
    };
    // Found stale, so still listed (see sweepStaleServices), but neither deregistered nor failed.
    expect(await sweep(ogm, { batchSize: 3 })).toEqual(stale.map((s) => s.service));
    for (const entry of [fifth, seventh]) expect(await isUntouched(entry)).toBe(true);
    for (const entry of stale.filter((s) => s !== fifth && s !== seventh)) await expectSwept(entry);
  });

  onStore('should stop at the batch whose update the store fails, name it, and leave the rest to the next sweep', async () => {
    const stale = await plantOf(SEVEN_STALE);
    const { store, ogm } = hooked();
    const refusal = new StoreError('the store refused the update', 'http://store.invalid/sparql', 400);
    store.beforeUpdate = (n) => {
      if (n === 3) throw refusal;
    };
    const error = await rejection(sweep(ogm, { batchSize: 3 }));
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'SM_STORE', endpoint: 'http://store.invalid/sparql', httpStatus: 400, cause: refusal });
    expect((error as Error).message).toBe(
      'sweep: failing Services 4-6 of the 7 stale ones failed (3 swept before them; they stay registered with their ' +
        'Operations as they were, and the next sweep finds them again): the store refused the update',
    );
    for (const entry of stale.slice(0, 3)) await expectSwept(entry);
    for (const entry of stale.slice(3)) expect(await isUntouched(entry)).toBe(true);
    expect(await sweep(suite.ogm, { batchSize: 3 })).toEqual(stale.slice(3).map((s) => s.service));
    for (const entry of stale) await expectSwept(entry);
  });

  onStore(
    'should fail the stranded Operations before deregistering, so a refused deregistration is finished by the next sweep',
    async () => {
      const stale = await plantOf(SEVEN_STALE.slice(0, 4));
      const { store, ogm } = hooked();
      store.beforeUpdate = (n) => {
        if (n === 2) throw new StoreError('timed out', 'http://store.invalid/sparql');
      };
      const error = await rejection(sweep(ogm, { batchSize: 3 }));
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toBe(
        'sweep: deregistering Services 1-3 of the 4 stale ones failed (0 swept before them; the Operations they stranded ' +
          'are failed, but they stay registered, and the next sweep finds them again): timed out',
      );
      for (const entry of stale.slice(0, 3)) {
        expect(await values(entry.service, svc.address)).toHaveLength(1);
        expect(await values(entry.op, svc.operationStatus)).toEqual(['failed']);
      }
      expect(await isUntouched(stale[3]!)).toBe(true);
      expect(await sweep(suite.ogm, { batchSize: 3 })).toEqual(stale.map((s) => s.service));
      for (const entry of stale) await expectSwept(entry);
    },
  );

  onStore(
    "should leave nothing stranded when the store refuses a batch's failing update: the next sweep finds the batch again",
    async () => {
      const stale = await plantOf(SEVEN_STALE.slice(0, 4));
      const { store, ogm } = hooked();
      store.beforeUpdate = (n) => {
        if (n === 1) throw new StoreError('timed out', 'http://store.invalid/sparql');
      };
      const error = await rejection(sweep(ogm, { batchSize: 3 }));
      expect((error as Error).message).toBe(
        'sweep: failing Services 1-3 of the 4 stale ones failed (0 swept before them; they stay registered with their ' +
          'Operations as they were, and the next sweep finds them again): timed out',
      );
      for (const entry of stale) expect(await isUntouched(entry)).toBe(true);
      expect(await sweep(suite.ogm, { batchSize: 3 })).toEqual(stale.map((s) => s.service));
      for (const entry of stale) await expectSwept(entry);
    },
  );

  onStore('should refuse a batch size that is not an integer >= 1 with ValueError and write nothing', async () => {
    await plantOf([OLD]);
    const before = await suite.dump();
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3' as unknown as number])
      await expect(sweep(suite.ogm, { batchSize: bad })).rejects.toThrow(ValueError);
    expect(await suite.dump()).toBe(before);
  });
});
