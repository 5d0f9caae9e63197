/**
 * Fuzzing the SemanticMiddleware library surface on both stores: hostile constructor options,
 * and hostile `request` and `handover` arguments on a started instance. Each fails with a typed
 * error naming the option or value; nothing is written; the instance keeps serving.
 */
import { describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  HandoverPreconditionError,
  OntologyGroundTruthError,
  OperationResolutionError,
  RuntimeError,
  ValueError,
} from '../../src/errors.js';
import { SemanticMiddleware } from '../../src/middleware/index.js';
import { mes, plant } from '../../src/vocab/index.js';
import { middlewareSuite, OPEN_REQUEST, silent } from '../middleware/support/harness.js';
import { hostileProperty, iriCases, type HostileCase } from './support/cases.js';
import { graphGuard } from './support/graph-guard.js';
import { caught, expectTyped, hostileText, notAString, oddIri } from './support/hostile.js';
import { fuzzReport } from './support/runs.js';

const G = `urn:fuzz:middleware:${randomUUID()}`;

describe.each(['embedded', 'remote'] as const)('SemanticMiddleware under hostile input on the %s store', (kind) => {
  const report = fuzzReport('test/fuzz/middleware.test.ts', kind);
  const guard = graphGuard(() => suite.store!, kind, [G]);
  const suite = middlewareSuite(kind, G);
  const weight = kind === 'remote' ? 0.5 : 1;

  suite.onStore(
    'should refuse hostile constructor options with a ValueError or RuntimeError naming the option',
    async () => {
      const base = { resourceIri: plant.door1, serviceClass: plant.ControllerService, logger: silent, port: 0 };
      const options = fc.oneof(
        fc
          .tuple(
            fc.constantFrom('resourceIri', 'serviceClass', 'namedGraph', 'address'),
            fc.oneof(
              hostileText.filter((v) => v !== ''),
              notAString.filter((v) => v !== null),
            ),
          )
          .map(([k, v]) => ({ k, v })),
        fc
          .tuple(
            fc.constantFrom('heartbeatInterval', 'stalenessThreshold', 'sweepInterval', 'port', 'activityCapacity', 'shutdownGraceMs'),
            fc.oneof(
              fc.constantFrom(-1, Number.NaN, Number.POSITIVE_INFINITY, 1.5e9, 65536),
              hostileText,
              notAString.filter((v) => v !== null && typeof v !== 'number'),
            ),
          )
          .map(([k, v]) => ({ k, v })),
        fc
          .tuple(
            fc.constantFrom('mode', 'connectorSyncDirection', 'host'),
            fc.oneof(
              hostileText.filter((v) => !['resource', 'watchdog', 'bidirectional', 'to_persistence', 'from_persistence'].includes(v)),
              notAString.filter((v) => v !== null),
            ),
          )
          .map(([k, v]) => ({ k, v })),
        fc
          .tuple(
            fc.constantFrom(
              'ogm',
              'logger',
              'fetch',
              'ensureTransport',
              'classScope',
              'activityFeed',
              'autoregisterConnectors',
              'connectorRegistry',
            ),
            fc.oneof(
              hostileText,
              fc.constantFrom<unknown>(42, 'x', [1], { follow: 'x' }, { follow: [[]] }, { follow: [['bad iri']] }, { child: 1 }),
            ),
          )
          .map(([k, v]) => ({ k, v })),
      );
      await report.check(
        'hostile constructor options',
        fc.asyncProperty(options, async ({ k, v }) => {
          const error = await caught(() => new SemanticMiddleware({ ...base, ogm: suite.newOgm(), [k]: v }));
          // Values that happen to be valid (a host name, say) construct an instance; nothing starts.
          if (error === undefined) return;
          expectTyped(error, { classes: [ValueError, RuntimeError], mentions: [k] });
        }),
        weight,
      );
      expectTyped(await caught(() => new SemanticMiddleware(null as never)), { classes: [ValueError] });
    },
    120_000,
  );

  suite.onStore(
    'should refuse hostile request and handover arguments, naming them, writing nothing',
    async () => {
      const mw = suite.controller({ heartbeatInterval: null });
      await mw.start();
      await guard.reset();
      const cases: fc.Arbitrary<HostileCase> = fc.oneof(
        iriCases('capabilityClass', (bad) => () => mw.request({ ...OPEN_REQUEST, capabilityClass: bad as string })),
        iriCases('operationClass', (bad) => () => mw.request({ ...OPEN_REQUEST, operationClass: bad as string })),
        iriCases('operationIri', (bad) => () => mw.request({ ...OPEN_REQUEST, operationIri: bad as string }), undefined, true),
        iriCases('targetResource', (bad) => () => mw.request({ ...OPEN_REQUEST, targetResource: bad as string }), undefined, true),
        hostileText
          .filter((k) => !/^[A-Za-z_][A-Za-z0-9_-]*$/u.test(k))
          .map((k) => ({ name: `data key ${k}`, run: () => mw.request(OPEN_REQUEST, (d) => void (d.data[k] = 'x')), value: k })),
        fc
          .constantFrom<unknown>(null, {}, [[1]], Symbol('x'))
          .map((v) => ({ name: 'data value', run: () => mw.request(OPEN_REQUEST, (d) => void (d.data.testNote = v as never)) })),
        oddIri.map((iri) => ({
          name: 'unknown capability',
          run: () => mw.request({ ...OPEN_REQUEST, capabilityClass: iri }),
          value: iri,
          classes: [OperationResolutionError],
        })),
        oddIri.map((iri) => ({
          name: 'unknown operation class',
          run: () => mw.request({ ...OPEN_REQUEST, operationClass: iri }),
          value: iri,
          classes: [OntologyGroundTruthError],
        })),
        fc.constantFrom<unknown>(null, 42, 'x').map((v) => ({ name: 'request options', run: () => mw.request(v as never), value: v })),
        iriCases('mode', (bad) => () => mw.handover({ mode: bad as string, workpiece: 'urn:fuzz:wp', counterpart: plant.conveyor1 })),
        iriCases('workpiece', (bad) => () => mw.handover({ mode: mes.Put, workpiece: bad as string, counterpart: plant.conveyor1 })),
        iriCases('counterpart', (bad) => () => mw.handover({ mode: mes.Put, workpiece: 'urn:fuzz:wp', counterpart: bad as string })),
        oddIri.map((iri) => ({
          name: 'unpossessed workpiece',
          run: () => mw.handover({ mode: mes.Put, workpiece: iri, counterpart: plant.conveyor1 }),
          value: iri,
          classes: [HandoverPreconditionError],
        })),
        fc.constantFrom<unknown>(null, 42, 'x').map((v) => ({ name: 'handover options', run: () => mw.handover(v as never), value: v })),
      );
      await report.check('hostile request and handover', hostileProperty(cases, guard), weight, { shrink: false });
      expect(mw.queued).toEqual([]);
      expect((await fetch(`${mw.address!}/workflows/open/execute`, { method: 'POST' })).status).toBe(200);
    },
    120_000,
  );
});
