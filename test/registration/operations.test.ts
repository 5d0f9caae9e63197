import { describe, expect } from '@jest/globals';
import { OntologyGroundTruthError, TransitionConflictError, ValidationError, ValueError } from '../../src/errors.js';
import { mintOperationIri } from '../../src/iri/index.js';
import { OGM } from '../../src/ogm/index.js';
import {
  createOperation,
  findResourceOperations,
  findServiceOperations,
  markOperationFailed,
  recordTerminalStatus,
  revertOperation,
  setOperationStatus,
} from '../../src/registration/operations.js';
import { resolveOperationWorkflow } from '../../src/registration/dispatch.js';
import { OPERATION_TRANSITIONS } from '../../src/registration/transitions.js';
import { literal } from '../../src/store/terms.js';
import { cfc, ONTOLOGY_GRAPHS, OperationStatus, PLANT, plant, RDFS, sm, svc, SVC, w3, xsd } from '../../src/vocab/index.js';
import { addService, CLOSE_DOOR, deregister, OPEN_DOOR, rejection, storeSuite, type RegisteredService } from './support/plant-graph.js';

const G = 'urn:test:registration:operations';
const G2 = 'urn:test:registration:operations:other';
const ONTOLOGY_GRAPH = 'urn:test:registration:operations:ontology';
// Test-only data properties of Operations, in the svc: namespace so that bare data keys resolve.
const NOTE = SVC('testNote');
const WHEN = SVC('testWhen');
const TEST_ONTOLOGY = [
  `<${NOTE}> <${w3.type}> <${w3.DatatypeProperty}> ; <${w3.domain}> <${cfc.Operation}> ; <${w3.range}> <${xsd.string}> .`,
  `<${WHEN}> <${w3.type}> <${w3.DatatypeProperty}> ; <${w3.domain}> <${cfc.Operation}> ; <${w3.range}> <${xsd.dateTime}> .`,
].join('\n');
const HOSTILE = 'x""" } } ; DROP ALL ; INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> "c" } } # \\u0022 \n\r\t\'\'\' ü 🎉 >';
const BAD_IRIS = ['https://example.org/a>b', 'https://example.org/a b', 'https://example.org/a"b', 'not-an-iri', ''];

type Status = OperationStatus;
type Call = 'set' | 'record' | 'mark';

describe.each(['embedded', 'remote'] as const)('operations on the %s store', (kind) => {
  const suite = storeSuite(kind, G, { extraGraphs: [G2], ontology: { graph: ONTOLOGY_GRAPH, turtle: TEST_ONTOLOGY } });
  const { onStore } = suite;
  let door: RegisteredService;
  let cap: string;
  let wf: string;

  const ogm = (): OGM => suite.ogm;
  async function setup(): Promise<void> {
    door = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8101', workflows: [OPEN_DOOR, CLOSE_DOOR] });
    cap = door.workflows[0]!.capabilityIri;
    wf = door.workflows[0]!.workflowIri;
  }
  const newOp = (): string => mintOperationIri(plant.OpenDoorOperation);
  async function create(
    extra: { data?: Record<string, unknown>; status?: Status; operationIri?: string; capabilityIri?: string } = {},
  ): Promise<string> {
    const operationIri = extra.operationIri ?? newOp();
    await createOperation(ogm(), {
      operationIri,
      operationClass: plant.OpenDoorOperation,
      capabilityIri: extra.capabilityIri ?? cap,
      ...(extra as object),
    });
    return operationIri;
  }
  /** An Operation brought to `status` through the allowed transitions. */
  async function opIn(status: Status): Promise<string> {
    const op = await create({ status: status === 'queued' ? 'queued' : 'running' });
    if (status === 'done') await recordTerminalStatus(ogm(), { operationIri: op, workflowIri: wf, status, result: 'ok' });
    if (status === 'failed')
      await recordTerminalStatus(ogm(), { operationIri: op, workflowIri: wf, status, result: 'boom', failureState: '{"id":"door1"}' });
    return op;
  }
  async function props(op: string, graph = G): Promise<Record<string, string[]>> {
    const ind = await ogm().fetch(op, { graph });
    return Object.fromEntries(Object.entries(ind?.properties ?? {}).map(([p, ts]) => [p, ts.map((t) => t.value)]));
  }
  function call(c: Call, op: string, to: string): Promise<void> {
    if (c === 'set') return setOperationStatus(ogm(), { operationIri: op, status: to as Status });
    if (c === 'record') return recordTerminalStatus(ogm(), { operationIri: op, workflowIri: wf, status: to as 'done', result: 'r' });
    return markOperationFailed(ogm(), op, 'reason');
  }
  async function expectUnchanged(write: () => Promise<unknown>, error: new (...a: never[]) => Error, pattern?: RegExp): Promise<Error> {
    const before = await suite.dump();
    const e = await rejection(write());
    expect(e).toBeInstanceOf(error);
    if (pattern) expect((e as Error).message).toMatch(pattern);
    expect(await suite.dump()).toBe(before);
    return e as Error;
  }

  // createOperation -----------------------------------------------------------------------

  onStore('should create an Operation with type, capability, status and data in one request', async () => {
    await setup();
    const op = newOp();
    const before = suite.requests();
    await createOperation(ogm(), {
      operationIri: op,
      operationClass: plant.OpenDoorOperation,
      capabilityIri: cap,
      data: { [NOTE]: 'left wing', [RDFS('label')]: 'open it' },
    });
    expect(suite.requests() - before).toBe(1);
    const ind = await ogm().fetch(op);
    expect(ind?.types).toEqual([plant.OpenDoorOperation]);
    expect(await props(op)).toEqual({
      [cfc.implementsCapability]: [cap],
      [svc.operationStatus]: ['queued'],
      [NOTE]: ['left wing'],
      [RDFS('label')]: ['open it'],
      // Always written, now when not given.
      [sm.createdAt]: [expect.stringMatching(/^\d{4}-\d\d-\d\dT/u)],
    });
  });

  onStore('should read a bare data key as a svc: local name', async () => {
    await setup();
    const op = await create({ data: { testNote: 'bare', testWhen: new Date('2026-11-22T10:00:00.000Z') } });
    const p = await props(op);
    expect(p[NOTE]).toEqual(['bare']);
    expect(Date.parse(p[WHEN]![0]!)).toBe(Date.parse('2026-11-22T10:00:00.000Z'));
    await expectUnchanged(() => create({ data: { noSuchField: 'x' } }), ValidationError, /testNote|noSuchField/);
    await expectUnchanged(() => create({ data: { executionResult: 'x' } }), ValueError, /executionResult/);
    await expectUnchanged(() => create({ data: { testNote: 'a', [NOTE]: 'b' } }), ValueError, /twice/);
    await expectUnchanged(() => create({ data: { 'not a name': 'x' } }), ValueError, /neither a property IRI nor a bare name/);
  });

  onStore('should create an Operation directly as running but never as terminal', async () => {
    await setup();
    const op = await create({ status: 'running' });
    expect((await props(op))[svc.operationStatus]).toEqual(['running']);
    await expectUnchanged(() => create({ status: 'done' }), ValueError, /recordTerminalStatus/);
    await expectUnchanged(() => create({ status: 'bogus' as Status }), ValueError, /not an Operation status/);
  });

  onStore('should refuse a missing or wrong operation class with OntologyGroundTruthError', async () => {
    await setup();
    for (const operationClass of [PLANT('NoSuchOperation'), plant.Door, plant.DoorOpeningCapability]) {
      await expectUnchanged(
        () => createOperation(ogm(), { operationIri: newOp(), operationClass, capabilityIri: cap }),
        OntologyGroundTruthError,
        /cfc|Core#Operation|does not exist/,
      );
    }
  });

  onStore('should refuse undeclared or reserved data fields and write nothing', async () => {
    await setup();
    await expectUnchanged(() => create({ data: { 'https://example.org/undeclared': 'x' } }), ValidationError, /not declared/);
    await expectUnchanged(() => create({ data: { [svc.address]: 'http://x' } }), ValidationError, /outside the domain/);
    for (const reserved of [svc.operationStatus, cfc.implementsCapability, w3.type, svc.executedByWorkflow, svc.failureState]) {
      await expectUnchanged(() => create({ data: { [reserved]: 'x' } }), ValueError, /writes itself|status transition/);
    }
  });

  onStore('should store hostile data strings verbatim and nothing else', async () => {
    await setup();
    const op = await create({ data: { [NOTE]: HOSTILE, [RDFS('comment')]: HOSTILE } });
    const ind = await ogm().fetch(op);
    expect(ind?.properties[NOTE]).toEqual([literal(HOSTILE)]);
    expect(ind?.properties[RDFS('comment')]).toEqual([literal(HOSTILE)]);
    expect(await suite.store!.ask('ASK { GRAPH <urn:x> { ?s ?p ?o } }')).toBe(false);
    await markOperationFailed(ogm(), op, HOSTILE);
    expect((await props(op))[svc.executionResult]).toEqual([HOSTILE]);
  });

  onStore('should refuse hostile IRIs with ValueError and write nothing', async () => {
    await setup();
    for (const bad of BAD_IRIS) {
      await expectUnchanged(() => create({ operationIri: bad }), ValueError);
      await expectUnchanged(() => create({ capabilityIri: bad }), ValueError);
      await expectUnchanged(() => createOperation(ogm(), { operationIri: newOp(), operationClass: bad, capabilityIri: cap }), ValueError);
      // An empty namedGraph means "none" (the OGM's graph), as the spec's None does.
      if (bad !== '')
        await expectUnchanged(
          () =>
            createOperation(ogm(), { operationIri: newOp(), operationClass: plant.OpenDoorOperation, capabilityIri: cap, namedGraph: bad }),
          ValueError,
        );
      await expectUnchanged(() => setOperationStatus(ogm(), { operationIri: bad, status: 'running' }), ValueError);
      await expectUnchanged(() => recordTerminalStatus(ogm(), { operationIri: newOp(), workflowIri: bad, status: 'done' }), ValueError);
      await expectUnchanged(() => markOperationFailed(ogm(), bad, 'x'), ValueError);
      await expectUnchanged(() => findResourceOperations(ogm(), bad, ['queued']), ValueError);
      await expectUnchanged(() => findServiceOperations(ogm(), bad, ['queued']), ValueError);
    }
    await expectUnchanged(() => create({ data: { 'https://example.org/a>b': 'x' } }), ValueError);
  });

  onStore('should write into namedGraph when given', async () => {
    const other = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8102', graph: G2 });
    const op = newOp();
    const capabilityIri = other.workflows[0]!.capabilityIri;
    await createOperation(ogm(), { operationIri: op, operationClass: plant.OpenDoorOperation, capabilityIri, namedGraph: G2 });
    expect(await ogm().fetch(op)).toBeUndefined();
    await setOperationStatus(ogm(), { operationIri: op, status: 'running', namedGraph: G2 });
    expect(await findResourceOperations(ogm(), plant.door1, ['running'], { namedGraph: G2 })).toEqual([op]);
    expect(await findResourceOperations(ogm(), plant.door1, ['running'])).toEqual([]);
    expect(await resolveOperationWorkflow(ogm(), op, { namedGraph: G2 })).toBe(other.workflows[0]!.workflowIri);
    await recordTerminalStatus(ogm(), { operationIri: op, workflowIri: other.workflows[0]!.workflowIri, status: 'done', namedGraph: G2 });
    expect((await props(op, G2))[svc.operationStatus]).toEqual(['done']);
  });

  // revertOperation -----------------------------------------------------------------------

  onStore('should revert exactly what createOperation wrote, owl:NamedIndividual included, in one request', async () => {
    await setup();
    const before = await suite.dump();
    const op = newOp();
    const input = {
      operationIri: op,
      operationClass: plant.OpenDoorOperation,
      capabilityIri: cap,
      data: { [NOTE]: HOSTILE, testWhen: new Date('2026-11-22T10:00:00.000Z'), [RDFS('label')]: 'x' },
      createdAt: new Date('2026-11-22T09:59:00.125Z'),
    };
    await createOperation(ogm(), input);
    expect(await suite.dump()).not.toBe(before);
    const requests = suite.requests();
    await revertOperation(ogm(), input);
    expect(suite.requests() - requests).toBe(1);
    expect(await suite.dump()).toBe(before);
    // Without its creation time, revert reads the one written first (one more request).
    const { createdAt: _given, ...untimed } = input;
    await createOperation(ogm(), untimed);
    const again = suite.requests();
    await revertOperation(ogm(), untimed);
    expect(suite.requests() - again).toBe(2);
    expect(await suite.dump()).toBe(before);
    expect(await suite.store!.ask(`ASK { GRAPH <${G}> { <${op}> ?p ?o } }`)).toBe(false);
    // The OGM forgot the individual: a transition now finds no Operation.
    await expectUnchanged(
      () => setOperationStatus(ogm(), { operationIri: op, status: 'running' }),
      TransitionConflictError,
      /does not exist/,
    );
  });

  // Transition table ------------------------------------------------------------------------

  it('should list every transition of the spec table and nothing else', () => {
    const rows = Object.entries(OPERATION_TRANSITIONS).flatMap(([to, rules]) =>
      rules.map((r) => `${r.from.join('|') || '(none)'} -${r.by}-> ${to}`),
    );
    expect(rows.sort()).toEqual(
      [
        '(none) -createOperation-> queued',
        '(none) -createOperation-> running',
        'queued -cancelOperation-> failed',
        'queued -setOperationStatus-> running',
        'running -recordTerminalStatus-> done',
        'running -recordTerminalStatus-> failed',
        'queued|running -markOperationFailed-> failed',
      ].sort(),
    );
  });

  const ALLOWED: [Status, Call, Status][] = [
    ['queued', 'set', 'running'],
    ['running', 'record', 'done'],
    ['running', 'record', 'failed'],
    ['queued', 'mark', 'failed'],
    ['running', 'mark', 'failed'],
  ];
  for (const [from, c, to] of ALLOWED) {
    onStore(`should allow ${from} -> ${to} by ${c}`, async () => {
      await setup();
      const op = await opIn(from);
      await call(c, op, to);
      expect((await props(op))[svc.operationStatus]).toEqual([to]);
    });
  }

  const CONFLICTS: [Status, Call, Status][] = [
    ['running', 'set', 'running'],
    ['done', 'set', 'running'],
    ['failed', 'set', 'running'],
    ['queued', 'record', 'done'],
    ['queued', 'record', 'failed'],
    ['done', 'record', 'done'],
    ['failed', 'record', 'done'],
    ['done', 'record', 'failed'],
    ['failed', 'record', 'failed'],
    ['done', 'mark', 'failed'],
    ['failed', 'mark', 'failed'],
  ];
  for (const [from, c, to] of CONFLICTS) {
    onStore(`should refuse ${from} -> ${to} by ${c} with TransitionConflictError and change nothing`, async () => {
      await setup();
      const op = await opIn(from);
      const e = await expectUnchanged(() => call(c, op, to), TransitionConflictError);
      expect(e.message).toContain(`<${op}>`);
      expect(e.message).toContain(`found "${from}"`);
      expect(e.message).toMatch(
        c === 'mark' ? /'queued' or 'running'/ : c === 'set' ? /expected status 'queued'/ : /expected status 'running'/,
      );
    });
  }

  const REFUSED: [Status, Call, string, RegExp][] = [
    ['running', 'set', 'queued', /createOperation/],
    ['queued', 'set', 'done', /recordTerminalStatus/],
    ['running', 'set', 'done', /recordTerminalStatus/],
    ['running', 'set', 'failed', /recordTerminalStatus or markOperationFailed/],
    ['done', 'set', 'queued', /createOperation/],
    ['running', 'record', 'running', /setOperationStatus/],
    ['running', 'record', 'queued', /createOperation/],
    ['queued', 'set', 'bogus', /not an Operation status/],
    ['running', 'record', 'DONE', /not an Operation status/],
  ];
  for (const [from, c, to, pattern] of REFUSED) {
    onStore(`should refuse ${from} -> ${to} by ${c} with ValueError and change nothing`, async () => {
      await setup();
      const op = await opIn(from);
      await expectUnchanged(() => call(c, op, to), ValueError, pattern);
    });
  }

  onStore('should report a transition of a missing Operation as a conflict', async () => {
    await setup();
    await expectUnchanged(
      () => setOperationStatus(ogm(), { operationIri: newOp(), status: 'running' }),
      TransitionConflictError,
      /does not exist/,
    );
    await expectUnchanged(() => markOperationFailed(ogm(), newOp(), 'x'), TransitionConflictError, /does not exist/);
  });

  // Terminal writes -----------------------------------------------------------------------

  onStore('should write done with its provenance in one commit', async () => {
    await setup();
    const op = await opIn('running');
    const at = new Date('2026-11-22T10:00:00.000Z');
    const before = suite.requests();
    await recordTerminalStatus(ogm(), { operationIri: op, workflowIri: wf, status: 'done', result: '"opened"', timestamp: at });
    expect(suite.requests() - before).toBe(1);
    const p = await props(op);
    expect(p[svc.operationStatus]).toEqual(['done']);
    expect(p[svc.executedByWorkflow]).toEqual([wf]);
    expect(p[svc.executionResult]).toEqual(['"opened"']);
    expect(p[svc.failureState]).toBeUndefined();
    expect(Date.parse(p[svc.executionTimestamp]![0]!)).toBe(at.getTime());
  });

  onStore('should write failed with provenance and the failure state in one commit', async () => {
    await setup();
    const op = await opIn('running');
    await recordTerminalStatus(ogm(), {
      operationIri: op,
      workflowIri: wf,
      status: 'failed',
      result: 'motor stalled',
      failureState: '{"id":"door1"}',
    });
    const p = await props(op);
    expect(p[svc.operationStatus]).toEqual(['failed']);
    expect(p[svc.executedByWorkflow]).toEqual([wf]);
    expect(p[svc.executionResult]).toEqual(['motor stalled']);
    expect(p[svc.failureState]).toEqual(['{"id":"door1"}']);
    expect(p[svc.executionTimestamp]).toHaveLength(1);
    const other = await opIn('running');
    await expectUnchanged(
      () => recordTerminalStatus(ogm(), { operationIri: other, workflowIri: wf, status: 'done', failureState: '{}' }),
      ValueError,
      /only with status 'failed'/,
    );
  });

  onStore('should mark an Operation failed with the reason in svc:executionResult and a timestamp', async () => {
    await setup();
    const op = await opIn('queued');
    const before = suite.requests();
    await markOperationFailed(ogm(), op, 'stranded operation swept by watchdog: the resource is stale/dead');
    expect(suite.requests() - before).toBe(1);
    const p = await props(op);
    expect(p[svc.operationStatus]).toEqual(['failed']);
    expect(p[svc.executionResult]).toEqual(['stranded operation swept by watchdog: the resource is stale/dead']);
    expect(p[svc.executionTimestamp]).toHaveLength(1);
    expect(p[svc.executedByWorkflow]).toBeUndefined();
    const running = await opIn('running');
    await expectUnchanged(() => markOperationFailed(ogm(), running, 42 as unknown as string), ValueError, /reason must be a string/);
  });

  // Races -------------------------------------------------------------------------------------

  onStore('should let exactly one of 20 concurrent claimers win', async () => {
    await setup();
    const op = await opIn('queued');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => setOperationStatus(ogm(), { operationIri: op, status: 'running' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(losers).toHaveLength(19);
    for (const l of losers) {
      expect(l.reason).toBeInstanceOf(TransitionConflictError);
      expect((l.reason as Error).message).toMatch(/expected status 'queued', found "running"/);
    }
    expect((await props(op))[svc.operationStatus]).toEqual(['running']);
  });

  onStore('should let exactly one of markOperationFailed and recordTerminalStatus win, never mixing their writes', async () => {
    await setup();
    const wins = { done: 0, failed: 0 };
    for (let i = 0; i < 8; i++) {
      const op = await opIn('running');
      const results = await Promise.allSettled([
        i % 2 === 0
          ? markOperationFailed(ogm(), op, 'swept')
          : recordTerminalStatus(ogm(), { operationIri: op, workflowIri: wf, status: 'done', result: 'ok' }),
        i % 2 === 0
          ? recordTerminalStatus(ogm(), { operationIri: op, workflowIri: wf, status: 'done', result: 'ok' })
          : markOperationFailed(ogm(), op, 'swept'),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      expect(lost.reason).toBeInstanceOf(TransitionConflictError);
      const p = await props(op);
      if (p[svc.operationStatus]![0] === 'done') {
        wins.done++;
        expect(p).toMatchObject({ [svc.executedByWorkflow]: [wf], [svc.executionResult]: ['ok'] });
      } else {
        wins.failed++;
        expect(p[svc.operationStatus]).toEqual(['failed']);
        expect(p[svc.executionResult]).toEqual(['swept']);
        expect(p[svc.executedByWorkflow]).toBeUndefined();
      }
      expect(p[svc.executionTimestamp]).toHaveLength(1);
      expect(p[svc.operationStatus]).toHaveLength(1);
    }
    expect(wins.done + wins.failed).toBe(8);
  });

  // Request counts ----------------------------------------------------------------------------

  onStore('should run a whole lifecycle in at most 4 requests on a warm OGM', async () => {
    await setup();
    await create(); // warms the TBox and shapes
    const before = suite.requests();
    const op = await create();
    expect(suite.requests() - before).toBe(1);
    await setOperationStatus(ogm(), { operationIri: op, status: 'running' });
    expect(suite.requests() - before).toBe(2);
    const workflowIri = await resolveOperationWorkflow(ogm(), op);
    await recordTerminalStatus(ogm(), { operationIri: op, workflowIri, status: 'done', result: 'ok' });
    expect(suite.requests() - before).toBeLessThanOrEqual(4);
  });

  onStore('should claim with one type read more on an OGM that has not seen the Operation', async () => {
    await setup();
    const op = await create();
    const cold = new OGM({ store: suite.store!, graph: G, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    await markOperationFailed(cold, await create(), 'warm-up'); // loads TBox and shapes
    const before = suite.requests();
    await setOperationStatus(cold, { operationIri: op, status: 'running' });
    expect(suite.requests() - before).toBe(2);
    const again = suite.requests();
    await recordTerminalStatus(cold, { operationIri: op, workflowIri: wf, status: 'done' });
    expect(suite.requests() - again).toBe(1);
  });

  // Finding Operations --------------------------------------------------------------------

  onStore('should find a resource Operations by status through its Capabilities', async () => {
    await setup();
    const conveyor = await addService(ogm(), { resourceIri: plant.conveyor1, address: 'http://127.0.0.1:8103' });
    const queued = await opIn('queued');
    const running = await opIn('running');
    await opIn('done');
    const closing = await create({ capabilityIri: door.workflows[1]!.capabilityIri });
    // Named after door1 but addressed to the conveyor: IRI names never decide.
    const misleading = await create({ operationIri: `${plant.door1}_op_misleading`, capabilityIri: conveyor.workflows[0]!.capabilityIri });
    const before = suite.requests();
    const found = await findResourceOperations(ogm(), plant.door1, ['queued', 'running']);
    expect(suite.requests() - before).toBe(1);
    expect(found.sort()).toEqual([queued, running, closing].sort());
    expect(await findResourceOperations(ogm(), plant.door1, ['running'])).toEqual([running]);
    expect(await findResourceOperations(ogm(), plant.conveyor1, ['queued'])).toEqual([misleading]);
    expect(await findResourceOperations(ogm(), plant.robot1, ['queued'])).toEqual([]);
    const none = suite.requests();
    expect(await findResourceOperations(ogm(), plant.door1, [])).toEqual([]);
    expect(suite.requests()).toBe(none);
    await expect(findResourceOperations(ogm(), plant.door1, ['queued', 'paused' as Status])).rejects.toThrow(ValueError);
    // Early start-up: the Service is deregistered, the Operations are still found.
    await deregister(ogm(), door);
    expect((await findResourceOperations(ogm(), plant.door1, ['queued', 'running'])).sort()).toEqual([queued, running, closing].sort());
  });

  onStore('should find only the Operations whose Capability the Service realizes', async () => {
    await setup();
    // A second instance of door1 that realizes only the closing Capability, and a monitor with no Workflow.
    const closer = await addService(ogm(), { resourceIri: plant.door1, address: 'http://127.0.0.1:8104', workflows: [CLOSE_DOOR] });
    const monitor = await addService(ogm(), {
      resourceIri: plant.door1,
      address: 'http://127.0.0.1:8105',
      serviceClass: plant.MonitorService,
      workflows: [],
    });
    const open = await opIn('queued');
    const openRunning = await opIn('running');
    const close = await create({ capabilityIri: door.workflows[1]!.capabilityIri });
    const before = suite.requests();
    expect((await findServiceOperations(ogm(), door.serviceIri, ['queued', 'running'])).sort()).toEqual([open, openRunning, close].sort());
    expect(suite.requests() - before).toBe(1);
    expect(await findServiceOperations(ogm(), closer.serviceIri, ['queued', 'running'])).toEqual([close]);
    expect(await findServiceOperations(ogm(), monitor.serviceIri, ['queued', 'running'])).toEqual([]);
    expect(await findServiceOperations(ogm(), door.serviceIri, ['running'])).toEqual([openRunning]);
    await deregister(ogm(), door);
    expect((await findServiceOperations(ogm(), door.serviceIri, ['queued'])).sort()).toEqual([open, close].sort());
  });
});
