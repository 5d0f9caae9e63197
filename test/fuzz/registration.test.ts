/**
 * Fuzzing every registration operation on both stores: a hostile IRI, class, address, name,
 * status, number, date or options object in any one argument fails with a typed error that names
 * it, and writes nothing; odd but valid IRIs fail with the spec's errors (unknown class, unknown
 * Operation, nothing reachable), also writing nothing.
 */
import { describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { OntologyGroundTruthError, OperationResolutionError, TransitionConflictError, ValidationError } from '../../src/errors.js';
import {
  assertClassRegistered,
  counterpartHasComplementaryAbility,
  createOperation,
  createPossession,
  currentPossessor,
  deregisterService,
  findPossessionState,
  findResourceOperations,
  findServiceOperations,
  findStaleServices,
  makeServiceReachable,
  markOperationFailed,
  recordTerminalStatus,
  registerService,
  registerStateProperty,
  registerWorkflow,
  resolveDispatchTarget,
  resolveOperationWorkflow,
  revertOperation,
  servicesOfResource,
  setOperationStatus,
  sweepStaleServices,
  switchPossession,
  updateHeartbeat,
} from '../../src/registration/index.js';
import { mintServiceIri } from '../../src/iri/mint.js';
import { mes, plant, svc } from '../../src/vocab/index.js';
import { storeSuite } from '../support/per-store.js';
import { addressCases, hostileProperty, iriCases, type HostileCase } from './support/cases.js';
import { graphGuard } from './support/graph-guard.js';
import { hostileText, notAString, oddIri } from './support/hostile.js';
import { fuzzReport } from './support/runs.js';

const G = `urn:fuzz:registration:${randomUUID()}`;
const R = plant.door1;
const ADDRESS = 'http://127.0.0.1:8201';
const S = mintServiceIri(R, ADDRESS);

describe.each(['embedded', 'remote'] as const)('registration under hostile input on the %s store', (kind) => {
  const report = fuzzReport('test/fuzz/registration.test.ts', kind);
  const guard = graphGuard(() => suite.store!, kind, [G]);
  const suite = storeSuite(kind, G, { extraGraphs: [guard.canary] });
  const { onStore } = suite;
  const ogm = () => suite.ogm;
  const part = `urn:fuzz:part:${randomUUID()}`;
  const op = `urn:fuzz:op:${randomUUID()}`;

  const service = { resourceIri: R, serviceIri: S, serviceClass: plant.ControllerService, address: ADDRESS };
  const workflow = {
    resourceIri: R,
    serviceIri: S,
    workflowIri: `${S}_workflow_open`,
    workflowClass: plant.OpenDoorWorkflow,
    capabilityIri: `${R}_capability_open`,
    capabilityClass: plant.DoorOpeningCapability,
    endpoint: `${ADDRESS}/workflows/open/execute`,
  };
  const state = {
    resourceIri: R,
    serviceIri: S,
    statePropertyIri: `${S}_state_door`,
    statePropertyClass: plant.DoorStateProperty,
    capabilityIri: `${R}_capability_door`,
    capabilityClass: plant.DoorStateCapability,
    endpoint: `${ADDRESS}/state/door`,
  };
  const operation = {
    operationIri: `urn:fuzz:newop:${randomUUID()}`,
    operationClass: plant.OpenDoorOperation,
    capabilityIri: workflow.capabilityIri,
  };

  /** Cases replacing each IRI field of `base` in `call(options)` with a bad one. */
  // Classes are checked by assertClassRegistered, whose message calls each of them "class".
  const fieldCases = <T extends Record<string, unknown>>(
    base: T,
    fields: readonly string[],
    call: (o: T) => unknown,
  ): fc.Arbitrary<HostileCase>[] =>
    fields.map((f) => {
      const make = (bad: unknown) => () => call({ ...base, [f]: bad });
      if (f === 'endpoint' || f === 'address') return addressCases(f, make);
      return iriCases(f.endsWith('Class') ? 'class' : f, make, undefined, f === 'namedGraph');
    });
  const badSeconds = fc.oneof(
    fc.constantFrom(Number.NaN, -1, -0.001, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    notAString.filter((v) => typeof v !== 'number'),
  );
  const badDate = fc.oneof(fc.constant(new Date(Number.NaN)), hostileText, fc.integer());
  const badStatus = hostileText.filter((s) => !['queued', 'running', 'done', 'failed'].includes(s));
  const badOptions = fc.constantFrom<unknown>(null, 42, 'options', [service], true);

  const hostileCases = fc.oneof(
    ...fieldCases(service, ['resourceIri', 'serviceIri', 'serviceClass', 'namedGraph', 'address'], (o) => registerService(ogm(), o)),
    ...fieldCases(
      workflow,
      ['resourceIri', 'serviceIri', 'workflowIri', 'workflowClass', 'capabilityIri', 'capabilityClass', 'endpoint'],
      (o) => registerWorkflow(ogm(), o),
    ),
    ...fieldCases(
      state,
      ['resourceIri', 'serviceIri', 'statePropertyIri', 'statePropertyClass', 'capabilityIri', 'capabilityClass', 'endpoint'],
      (o) => registerStateProperty(ogm(), o),
    ),
    iriCases('serviceIri', (bad) => () => makeServiceReachable(ogm(), bad as string, ADDRESS)),
    addressCases('address', (bad) => () => makeServiceReachable(ogm(), S, bad as string)),
    badDate.map((bad) => ({
      name: 'heartbeat date',
      run: () => makeServiceReachable(ogm(), S, ADDRESS, { heartbeat: bad as Date }),
      value: bad,
    })),
    iriCases('serviceIri', (bad) => () => deregisterService(ogm(), bad as string)),
    iriCases('serviceIri', (bad) => () => updateHeartbeat(ogm(), bad as string)),
    badDate.map((bad) => ({ name: 'timestamp', run: () => updateHeartbeat(ogm(), S, { timestamp: bad as Date }), value: bad })),
    iriCases('resourceIri', (bad) => () => servicesOfResource(ogm(), bad as string)),
    iriCases('namedGraph', (bad) => () => servicesOfResource(ogm(), R, { namedGraph: bad as string }), undefined, true),
    iriCases('class', (bad) => () => assertClassRegistered(ogm(), bad as string, svc.Service)),
    ...fieldCases(operation, ['operationIri', 'operationClass', 'capabilityIri'], (o) => createOperation(ogm(), o)),
    badStatus.map((bad) => ({
      name: 'create status',
      run: () => createOperation(ogm(), { ...operation, status: bad as never }),
      value: bad,
    })),
    hostileText.map((bad) => ({ name: 'data key', run: () => createOperation(ogm(), { ...operation, data: { [bad]: 'x' } }), value: bad })),
    fc
      .constantFrom<unknown>(42, 'data', [1], true)
      .map((bad) => ({ name: 'data shape', run: () => createOperation(ogm(), { ...operation, data: bad as never }), value: bad })),
    ...fieldCases(operation, ['operationIri', 'operationClass', 'capabilityIri'], (o) => revertOperation(ogm(), o)),
    iriCases('operationIri', (bad) => () => setOperationStatus(ogm(), { operationIri: bad as string, status: 'running' })),
    badStatus.map((bad) => ({
      name: 'set status',
      run: () => setOperationStatus(ogm(), { operationIri: op, status: bad as never }),
      value: bad,
    })),
    iriCases('workflowIri', (bad) => () => recordTerminalStatus(ogm(), { operationIri: op, workflowIri: bad as string, status: 'done' })),
    badStatus.map((bad) => ({
      name: 'terminal status',
      run: () => recordTerminalStatus(ogm(), { operationIri: op, workflowIri: workflow.workflowIri, status: bad as never }),
      value: bad,
    })),
    iriCases('operationIri', (bad) => () => markOperationFailed(ogm(), bad as string, 'reason')),
    notAString.map((bad) => ({ name: 'reason', run: () => markOperationFailed(ogm(), op, bad as string) })),
    iriCases('resourceIri', (bad) => () => findResourceOperations(ogm(), bad as string, ['queued'])),
    badStatus.map((bad) => ({ name: 'statuses', run: () => findResourceOperations(ogm(), R, [bad as never]), value: bad })),
    iriCases('serviceIri', (bad) => () => findServiceOperations(ogm(), bad as string, ['queued'])),
    iriCases('capabilityClass', (bad) => () => resolveDispatchTarget(ogm(), bad as string)),
    iriCases(
      'targetResource',
      (bad) => () => resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: bad as string }),
      undefined,
      true,
    ),
    badSeconds
      .filter((v) => v !== null)
      .map((bad) => ({
        name: 'freshWithinSeconds',
        run: () => resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { freshWithinSeconds: bad as number }),
        value: bad,
      })),
    iriCases('operationIri', (bad) => () => resolveOperationWorkflow(ogm(), bad as string)),
    badSeconds.map((bad) => ({ name: 'maxAgeSeconds', run: () => findStaleServices(ogm(), bad as number), value: bad })),
    badSeconds.map((bad) => ({ name: 'sweep maxAgeSeconds', run: () => sweepStaleServices(ogm(), bad as number), value: bad })),
    badDate.map((bad) => ({ name: 'sweep now', run: () => sweepStaleServices(ogm(), 90, { now: bad as Date }), value: bad })),
    notAString
      .filter((v) => v !== null)
      .map((bad) => ({ name: 'sweep reason', run: () => sweepStaleServices(ogm(), 0, { reason: bad as string }), value: bad })),
    iriCases('workpieceIri', (bad) => () => createPossession(ogm(), { workpieceIri: bad as string, possessorIri: plant.robot1 })),
    iriCases('possessorIri', (bad) => () => createPossession(ogm(), { workpieceIri: part, possessorIri: bad as string })),
    iriCases('newPossessorIri', (bad) => () => switchPossession(ogm(), { workpieceIri: part, newPossessorIri: bad as string })),
    iriCases(
      'expectedPossessionState',
      (bad) => () =>
        switchPossession(ogm(), { workpieceIri: part, newPossessorIri: plant.conveyor1, expectedPossessionState: bad as string }),
      undefined,
      true,
    ),
    iriCases('workpieceIri', (bad) => () => findPossessionState(ogm(), bad as string, plant.robot1)),
    iriCases('workpieceIri', (bad) => () => currentPossessor(ogm(), bad as string)),
    iriCases('counterpartIri', (bad) => () => counterpartHasComplementaryAbility(ogm(), bad as string, mes.Put)),
    iriCases('modeAbilityIri', (bad) => () => counterpartHasComplementaryAbility(ogm(), plant.conveyor1, bad as string)),
    badOptions.map((bad) => ({ name: 'registerService options', run: () => registerService(ogm(), bad as never), value: bad })),
    badOptions.map((bad) => ({ name: 'createOperation options', run: () => createOperation(ogm(), bad as never), value: bad })),
    badOptions.map((bad) => ({ name: 'createPossession options', run: () => createPossession(ogm(), bad as never), value: bad })),
  );

  const oddCases: fc.Arbitrary<HostileCase> = fc.oneof(
    oddIri.map((iri) => ({
      name: 'unknown service class',
      run: () => registerService(ogm(), { ...service, serviceClass: iri }),
      value: iri,
      classes: [OntologyGroundTruthError],
    })),
    oddIri.map((iri) => ({
      name: 'unknown workflow class',
      run: () => registerWorkflow(ogm(), { ...workflow, workflowClass: iri }),
      value: iri,
      classes: [OntologyGroundTruthError],
    })),
    oddIri.map((iri) => ({
      name: 'unknown operation class',
      run: () => createOperation(ogm(), { ...operation, operationClass: iri }),
      value: iri,
      classes: [OntologyGroundTruthError],
    })),
    oddIri.map((iri) => ({
      name: 'unknown operation',
      run: () => setOperationStatus(ogm(), { operationIri: iri, status: 'running' }),
      value: iri,
      classes: [TransitionConflictError],
    })),
    oddIri.map((iri) => ({
      name: 'unknown operation failed',
      run: () => markOperationFailed(ogm(), iri, 'x'),
      value: iri,
      classes: [TransitionConflictError],
    })),
    oddIri.map((iri) => ({
      name: 'unknown operation workflow',
      run: () => resolveOperationWorkflow(ogm(), iri),
      value: iri,
      classes: [OperationResolutionError],
    })),
    oddIri.map((iri) => ({
      name: 'unknown capability class',
      run: () => resolveDispatchTarget(ogm(), iri),
      value: iri,
      classes: [OperationResolutionError],
    })),
    oddIri.map((iri) => ({
      name: 'unreachable resource',
      run: () => resolveDispatchTarget(ogm(), plant.DoorOpeningCapability, { targetResource: iri }),
      value: iri,
      classes: [OperationResolutionError],
    })),
    oddIri.map((iri) => ({
      name: 'untyped workpiece',
      run: () => createPossession(ogm(), { workpieceIri: iri, possessorIri: plant.robot1 }),
      value: iri,
      classes: [ValidationError],
    })),
    oddIri.map((iri) => ({
      name: 'stale expected state',
      run: () => switchPossession(ogm(), { workpieceIri: part, newPossessorIri: plant.conveyor1, expectedPossessionState: iri }),
      value: iri,
      classes: [TransitionConflictError],
    })),
  );

  onStore(
    'should refuse a hostile value in any argument of any registration operation, naming it, writing nothing',
    async () => {
      await ogm().create({ iri: part, type: plant.Part });
      await createPossession(ogm(), { workpieceIri: part, possessorIri: plant.robot1 });
      await guard.reset();
      await report.check('hostile registration calls', hostileProperty(hostileCases, guard), kind === 'remote' ? 0.5 : 1, {
        shrink: false,
      });
      // Still serving: a normal registration goes through.
      await registerService(ogm(), service);
      expect(await servicesOfResource(ogm(), R)).toEqual([S]);
    },
    120_000,
  );

  onStore(
    'should answer odd but valid IRIs with the spec errors, naming them, writing nothing',
    async () => {
      await ogm().create({ iri: part, type: plant.Part });
      await createPossession(ogm(), { workpieceIri: part, possessorIri: plant.robot1 });
      await createOperation(ogm(), { operationIri: op, operationClass: plant.OpenDoorOperation, capabilityIri: workflow.capabilityIri });
      await guard.reset();
      await report.check('odd IRIs in registration calls', hostileProperty(oddCases, guard), kind === 'remote' ? 0.5 : 1, {
        shrink: false,
      });
      expect(await findResourceOperations(ogm(), R, ['queued'])).toEqual([]);
      await setOperationStatus(ogm(), { operationIri: op, status: 'running' });
    },
    120_000,
  );
});
