import { describe, expect, it } from '@jest/globals';
import { ValidationError, ValueError } from '../../src/errors.js';
import { OGM } from '../../src/ogm/index.js';
import { literal, namedNode } from '../../src/store/terms.js';
import { cfc, PLANT, svc, xsd } from '../../src/vocab/index.js';
import { sparql } from '../../src/store/sparql.js';
import { openTestStore } from '../support/fixtures.js';
import { storeSuite } from '../support/per-store.js';

const G = 'urn:test:ogm';
const S = 'https://example.org/plant#door1_service_x';
const WP = 'https://example.org/plant#part1';
const R = 'https://example.org/plant#door1';

describe.each(['embedded', 'remote'] as const)('OGM on the %s store', (kind) => {
  const suite = storeSuite(kind, G);
  const { onStore } = suite;

  const dump = (): Promise<string> => suite.store!.dump({ graph: G });

  async function expectRefused(write: () => Promise<unknown>, pattern: RegExp, rule?: string): Promise<void> {
    const before = await dump();
    const requests = suite.store!.requestCount;
    const error = await write().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(pattern);
    if (rule) expect((error as ValidationError).details.rule).toBe(rule);
    expect(await dump()).toBe(before);
    // Validation happens before anything is sent: no update request went out.
    expect(suite.store!.requestCount - requests).toBeLessThanOrEqual(2);
  }

  async function service(): Promise<void> {
    await suite.ogm.create({
      iri: S,
      type: PLANT('ControllerService'),
      properties: { [svc.address]: 'http://127.0.0.1:8000', [svc.isServiceOf]: R },
    });
  }

  onStore('should create a typed individual in one update and fetch it back', async () => {
    const before = suite.store!.requestCount;
    await service();
    expect(suite.store!.requestCount - before).toBeLessThanOrEqual(1 + 2); // TBox and shapes are read once, then cached
    const again = suite.store!.requestCount;
    await suite.ogm.create({
      iri: `${S}2`,
      type: svc.Service,
      properties: { [svc.address]: 'http://127.0.0.1:8001', [svc.isServiceOf]: R },
    });
    expect(suite.store!.requestCount - again).toBe(1);
    const ind = await suite.ogm.fetch(S);
    expect(ind?.types).toEqual([PLANT('ControllerService')]);
    expect(ind?.properties[svc.address]).toEqual([literal('http://127.0.0.1:8000', xsd.anyURI)]);
  });

  onStore('should replace values in one update request on commit', async () => {
    await service();
    const t = new Date('2026-11-22T10:00:00.000Z');
    const before = suite.store!.requestCount;
    const r = await suite.ogm.commit({ iri: S, set: { [svc.lastHeartbeat]: t } });
    expect(r.applied).toBe(true);
    expect(suite.store!.requestCount - before).toBe(1);
    await suite.ogm.commit({ iri: S, set: { [svc.lastHeartbeat]: new Date('2026-11-22T10:00:30.000Z') } });
    const ind = await suite.ogm.fetch(S);
    expect(ind?.properties[svc.lastHeartbeat]).toHaveLength(1);
    expect(ind?.properties[svc.lastHeartbeat]?.[0]).toMatchObject({ datatype: xsd.dateTime });
    await suite.ogm.commit({ iri: S, set: { [svc.address]: [] } });
    expect((await suite.ogm.fetch(S))?.properties[svc.address]).toBeUndefined();
  });

  onStore('should apply a guarded commit only when the guard holds', async () => {
    const op = 'https://example.org/plant#OpenDoorOperation_op_000000000001';
    await suite.ogm.create({ iri: op, type: PLANT('OpenDoorOperation'), properties: { [svc.operationStatus]: 'queued' } });
    const win = await suite.ogm.commit({ iri: op, set: { [svc.operationStatus]: 'running' }, guard: { [svc.operationStatus]: 'queued' } });
    const lose = await suite.ogm.commit({ iri: op, set: { [svc.operationStatus]: 'running' }, guard: { [svc.operationStatus]: 'queued' } });
    expect([win.applied, lose.applied]).toEqual([true, false]);
    const none = await suite.ogm.commit({ iri: op, set: { [svc.executionResult]: 'x' }, guard: { [svc.executionResult]: [] } });
    expect(none.applied).toBe(true);
    const notNone = await suite.ogm.commit({ iri: op, set: { [svc.executionResult]: 'y' }, guard: { [svc.executionResult]: [] } });
    expect(notNone.applied).toBe(false);
    expect((await suite.ogm.fetch(op))?.properties[svc.executionResult]).toEqual([literal('x')]);
  });

  onStore('should let exactly one of many concurrent compare-and-set commits win', async () => {
    const op = 'https://example.org/plant#OpenDoorOperation_op_000000000002';
    await suite.ogm.create({ iri: op, type: PLANT('OpenDoorOperation'), properties: { [svc.operationStatus]: 'queued' } });
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        suite.ogm.commit({ iri: op, set: { [svc.operationStatus]: 'running' }, guard: { [svc.operationStatus]: 'queued' } }),
      ),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
  });

  onStore('should apply a one-of guard only when the property holds one allowed value', async () => {
    const op = 'https://example.org/plant#OpenDoorOperation_op_000000000005';
    await suite.ogm.create({ iri: op, type: PLANT('OpenDoorOperation'), properties: { [svc.operationStatus]: 'running' } });
    const fail = await suite.ogm.commit({
      iri: op,
      set: { [svc.operationStatus]: 'failed' },
      guardOneOf: { [svc.operationStatus]: ['queued', 'running'] },
    });
    const again = await suite.ogm.commit({
      iri: op,
      set: { [svc.operationStatus]: 'failed' },
      guardOneOf: { [svc.operationStatus]: ['queued', 'running'] },
    });
    expect([fail.applied, again.applied]).toEqual([true, false]);
  });

  onStore('should refuse a guarded commit when any one guarded property holds another value', async () => {
    const extra = (op: string, predicate: string, object: string): Promise<void> =>
      suite.store!.update(`INSERT DATA { GRAPH <${G}> { <${op}> <${predicate}> ${object} . } }`);
    const guard = { [svc.operationStatus]: 'queued', [svc.executionResult]: 'r', [svc.failureState]: [] };
    const oneOf = { [svc.operationStatus]: ['queued', 'running'] };
    // What each case leaves as the status values: the commit's 'done' when it applied, else what was there.
    const cases: [string, (op: string) => Promise<void>, 'guard' | 'oneOf', string[]][] = [
      ['as guarded', async () => {}, 'guard', ['done']],
      ['a second status', (op) => extra(op, svc.operationStatus, '"running"'), 'guard', ['queued', 'running']],
      ['a second result', (op) => extra(op, svc.executionResult, '"r2"'), 'guard', ['queued']],
      ['a failure state', (op) => extra(op, svc.failureState, '"{}"'), 'guard', ['queued']],
      ['one of the allowed statuses', async () => {}, 'oneOf', ['done']],
      ['two allowed statuses at once', (op) => extra(op, svc.operationStatus, '"running"'), 'oneOf', ['queued', 'running']],
      ['an allowed status and a failure state', (op) => extra(op, svc.failureState, '"{}"'), 'oneOf', ['queued']],
    ];
    for (const [i, [what, change, kind, statusesAfter]] of cases.entries()) {
      const op = `https://example.org/plant#OpenDoorOperation_op_00000000010${i}`;
      await suite.ogm.create({
        iri: op,
        type: PLANT('OpenDoorOperation'),
        properties: { [svc.operationStatus]: 'queued', [svc.executionResult]: 'r' },
      });
      await change(op);
      const { applied } = await suite.ogm.commit({
        iri: op,
        set: { [svc.operationStatus]: 'done' },
        ...(kind === 'guard' ? { guard } : { guardOneOf: oneOf, guard: { [svc.failureState]: [] } }),
      });
      const statuses = (await suite.ogm.fetch(op))?.properties[svc.operationStatus]?.map((t) => t.value).sort();
      expect({ what, applied, statuses }).toEqual({ what, applied: statusesAfter[0] === 'done', statuses: statusesAfter });
    }
  });

  onStore('should replace values on every matched individual in one request', async () => {
    const ops = [1, 2, 3].map((i) => `https://example.org/plant#OpenDoorOperation_op_10000000000${i}`);
    for (const [i, op] of ops.entries()) {
      await suite.ogm.create({
        iri: op,
        type: PLANT('OpenDoorOperation'),
        properties: { [svc.operationStatus]: i === 2 ? 'done' : 'queued' },
      });
    }
    const before = suite.store!.requestCount;
    await suite.ogm.commitMatching({
      subjectClass: cfc.Operation,
      match: sparql`?s ${namedNode(svc.operationStatus)} ${literal('queued')} .`,
      set: { [svc.operationStatus]: 'failed', [svc.executionResult]: 'swept' },
    });
    expect(suite.store!.requestCount - before).toBe(1);
    const statuses = await Promise.all(ops.map(async (op) => (await suite.ogm.fetch(op))?.properties[svc.operationStatus]?.[0]?.value));
    expect(statuses).toEqual(['failed', 'failed', 'done']);
    await expectRefused(
      () =>
        suite.ogm.commitMatching({
          subjectClass: cfc.Operation,
          match: sparql`?s ${namedNode(svc.operationStatus)} ?x .`,
          set: { [svc.address]: 'http://x' },
        }),
      /outside the domain/,
    );
  });

  onStore('should clear properties of individuals of other classes in a bulk removal, and still check writes', async () => {
    await service();
    const wf = `${S}_workflow_open`;
    await suite.ogm.create({
      iri: wf,
      type: PLANT('OpenDoorWorkflow'),
      properties: { [svc.isWorkflowOf]: S, [svc.endpoint]: 'http://127.0.0.1:8000/workflows/open/execute' },
    });
    const before = suite.store!.requestCount;
    await suite.ogm.commitMatching({
      subjectClass: svc.Service,
      match: sparql`VALUES ?s { ${namedNode(S)} ${namedNode(wf)} }`,
      set: { [svc.address]: [], [svc.endpoint]: [] },
    });
    expect(suite.store!.requestCount - before).toBe(1);
    expect((await suite.ogm.fetch(S))?.properties[svc.address]).toBeUndefined();
    expect((await suite.ogm.fetch(wf))?.properties[svc.endpoint]).toBeUndefined();
    expect((await suite.ogm.fetch(wf))?.properties[svc.isWorkflowOf]).toEqual([namedNode(S)]);
    await expectRefused(
      () =>
        suite.ogm.commitMatching({
          subjectClass: svc.Service,
          match: sparql`VALUES ?s { ${namedNode(S)} }`,
          set: { 'https://example.org/undeclared': [] },
        }),
      /not declared/,
      'property-declared',
    );
    await expectRefused(
      () =>
        suite.ogm.commitMatching({
          subjectClass: svc.Service,
          match: sparql`VALUES ?s { ${namedNode(S)} }`,
          set: { [svc.address]: [], [svc.endpoint]: 'http://x' },
        }),
      /outside the domain/,
      'domain',
    );
  });

  it('should refuse to paste a plain string into SPARQL text', () => {
    expect(() => sparql`?s ?p ${'"; DROP ALL' as unknown as ReturnType<typeof literal>}`).toThrow(ValueError);
  });

  onStore('should refuse an undeclared property', async () => {
    await service();
    await expectRefused(
      () => suite.ogm.commit({ iri: S, set: { 'https://example.org/undeclared': 'x' } }),
      /not declared/,
      'property-declared',
    );
  });

  onStore('should refuse a property whose domain the class does not satisfy', async () => {
    await service();
    await expectRefused(() => suite.ogm.commit({ iri: S, set: { [svc.operationStatus]: 'queued' } }), /outside the domain of/, 'domain');
  });

  onStore('should refuse a literal of the wrong datatype', async () => {
    await service();
    await expectRefused(
      () => suite.ogm.commit({ iri: S, set: { [svc.lastHeartbeat]: literal('yesterday') } }),
      /takes literals of/,
      'range-datatype',
    );
    await expectRefused(
      () => suite.ogm.commit({ iri: S, set: { [svc.lastHeartbeat]: literal('yesterday', xsd.dateTime) } }),
      /not a valid/,
      'lexical-form',
    );
  });

  onStore('should refuse an object value for a datatype property', async () => {
    await service();
    await expectRefused(() => suite.ogm.commit({ iri: S, set: { [svc.address]: namedNode('http://127.0.0.1:1') } }), /datatype property/);
  });

  onStore('should refuse a second cfc:hasPossessedWorkpiece on a Workpiece', async () => {
    await suite.ogm.create({ iri: WP, type: PLANT('Part') });
    const ps1 = `${WP}_possession_000000000001`;
    const ps2 = `${WP}_possession_000000000002`;
    await suite.ogm.create({ iri: ps1, type: cfc.PossessionState });
    await suite.ogm.create({ iri: ps2, type: cfc.PossessionState });
    await suite.ogm.commit({ iri: WP, set: { [cfc.hasPossessedWorkpiece]: ps1 } });
    await expectRefused(
      () => suite.ogm.commit({ iri: WP, set: { [cfc.hasPossessedWorkpiece]: [ps1, ps2] } }),
      /at most 1|maxCount|MaxCount/,
    );
    await expectRefused(
      () => suite.ogm.db.append({ subject: WP, predicate: cfc.hasPossessedWorkpiece, object: ps2 }),
      /ogm\.commit/,
      'low-level-append',
    );
  });

  onStore('should refuse an unknown class', async () => {
    await expectRefused(
      () => suite.ogm.create({ iri: S, type: 'https://example.org/plant#NoSuchClass' }),
      /not declared/,
      'class-declared',
    );
  });

  it.each([
    ['a closing bracket', 'https://example.org/a>b'],
    ['a space', 'https://example.org/a b'],
    ['a quote', 'https://example.org/a"b'],
  ])('should refuse an IRI with %s', async (_what, bad) => {
    if (!suite.store) return;
    await service();
    await expectRefused(() => suite.ogm.create({ iri: bad, type: svc.Service }), /not a valid absolute IRI/);
    await expectRefused(() => suite.ogm.commit({ iri: S, set: { [bad]: 'x' } }), /not a valid absolute IRI/);
    await expectRefused(
      () => suite.ogm.db.append({ subject: 'https://example.org/plant#door1', predicate: cfc.hasCapability, object: bad }),
      /not a valid absolute IRI/,
    );
  });

  onStore('should store hostile literal text verbatim and nothing else', async () => {
    await service();
    const op = 'https://example.org/plant#OpenDoorOperation_op_000000000003';
    const hostile = 'x""" } } ; DROP ALL ; INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> "c" } } # \\u0022 \n\r\t\'\'\' ü 🎉';
    await suite.ogm.create({ iri: op, type: PLANT('OpenDoorOperation'), properties: { [svc.executionResult]: hostile } });
    expect((await suite.ogm.fetch(op))?.properties[svc.executionResult]).toEqual([literal(hostile)]);
    expect(await suite.store!.ask('ASK { GRAPH <urn:x> { ?s ?p ?o } }')).toBe(false);
    expect((await suite.ogm.fetch(S))?.types).toEqual([PLANT('ControllerService')]);
  });

  onStore('should refuse a shape violation and name the property', async () => {
    const op = 'https://example.org/plant#OpenDoorOperation_op_000000000004';
    await suite.ogm.create({ iri: op, type: PLANT('OpenDoorOperation'), properties: { [svc.operationStatus]: 'queued' } });
    await expectRefused(() => suite.ogm.commit({ iri: op, set: { [svc.operationStatus]: 'exploded' } }), /operationStatus/);
  });

  onStore('should follow property chains on fetch', async () => {
    await service();
    const wf = `${S}_workflow_open`;
    await suite.ogm.create({
      iri: wf,
      type: PLANT('OpenDoorWorkflow'),
      properties: { [svc.isWorkflowOf]: S, [svc.endpoint]: 'http://127.0.0.1:8000/workflows/open/execute' },
    });
    const ind = await suite.ogm.fetch(wf, { follow: [[svc.isWorkflowOf]] });
    expect(ind?.linked[svc.isWorkflowOf]?.[0]?.iri).toBe(S);
    expect(ind?.linked[svc.isWorkflowOf]?.[0]?.properties[svc.address]).toHaveLength(1);
    expect(await suite.ogm.fetch('https://example.org/plant#nothing')).toBeUndefined();
  });

  onStore('should delete several triples in one request on the low-level path', async () => {
    await service();
    const before = suite.store!.requestCount;
    await suite.ogm.db.tripleDelete([{ subject: S, predicate: svc.address, object: literal('http://127.0.0.1:8000', xsd.anyURI) }]);
    expect(suite.store!.requestCount - before).toBe(1);
    expect((await suite.ogm.fetch(S))?.properties[svc.address]).toBeUndefined();
  });

  onStore('should refuse values and inputs of the wrong shape with typed errors, writing nothing', async () => {
    await service();
    for (const value of [null, undefined, {}, [[1]]]) {
      await expectRefused(
        () => suite.ogm.commit({ iri: S, set: { [svc.address]: value as never } }),
        /is not a string, number, boolean, Date or RDF term/u,
        'value-kind',
      );
    }
    await expectRefused(() => suite.ogm.create({ iri: `${S}3`, type: 42 as never }), /must be a class IRI or a list of them, got "42"/u);
    await expectRefused(() => suite.ogm.create(null as never), /create input must be an object, got "null"/u);
    await expectRefused(() => suite.ogm.commit({ iri: S, set: null as never }), /commit input.set must be an object/u);
    // An empty set would be an update with an empty DELETE template, which Virtuoso refuses as a syntax error.
    await expectRefused(() => suite.ogm.commit({ iri: S, set: {} }), /commit input.set names no property/u);
  });
});

describe('OGM options', () => {
  it('should refuse a malformed graph IRI', async () => {
    const store = await openTestStore('embedded');
    expect(() => new OGM({ store: store!, graph: 'not a graph' })).toThrow(ValueError);
    await store!.close();
  });
});
