/**
 * Fuzzing the OGM, the one validated write path, on both stores: hostile IRIs, classes,
 * properties, values and graphs in create, commit, fetch and the low-level db calls fail with a
 * typed error naming the value and write nothing; odd but valid IRIs and literals made of
 * injection text are stored and read back exactly, and removed exactly.
 */
import { describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { ValidationError, ValueError } from '../../src/errors.js';
import { createOperation, revertOperation } from '../../src/registration/index.js';
import { literal } from '../../src/store/terms.js';
import { cfc, plant, SVC, svc, w3, xsd } from '../../src/vocab/index.js';
import { storeSuite } from '../support/per-store.js';
import { badLiteralValue, expectation, hostileProperty, iriCases, keyCases, type HostileCase } from './support/cases.js';
import { graphGuard } from './support/graph-guard.js';
import { badIri, badIriInput, hostileLiteral, hostileText, notAString, oddIri } from './support/hostile.js';
import { fuzzReport } from './support/runs.js';

const G = `urn:fuzz:ogm:${randomUUID()}`;
const NOTE = SVC('fuzzNote');
const COUNT = SVC('fuzzCount');
const ONTOLOGY = [
  `<${NOTE}> <${w3.type}> <${w3.DatatypeProperty}> ; <${w3.domain}> <${cfc.Operation}> ; <${w3.range}> <${xsd.string}> .`,
  `<${COUNT}> <${w3.type}> <${w3.DatatypeProperty}> ; <${w3.domain}> <${cfc.Operation}> ; <${w3.range}> <${xsd.integer}> .`,
].join('\n');
const OP = plant.OpenDoorOperation;
const CAP = 'urn:fuzz:capability';

describe.each(['embedded', 'remote'] as const)('OGM under hostile input on the %s store', (kind) => {
  const report = fuzzReport('test/fuzz/ogm.test.ts', kind);
  const guard = graphGuard(() => suite.store!, kind, [G]);
  const suite = storeSuite(kind, G, { ontology: { graph: `${G}:ontology`, turtle: ONTOLOGY }, extraGraphs: [guard.canary] });
  const { onStore } = suite;
  const existing = `urn:fuzz:op:${randomUUID()}`;

  const ok = (): { iri: string; type: string; properties: Record<string, unknown> } => ({
    iri: `urn:fuzz:new:${randomUUID()}`,
    type: OP,
    properties: { [NOTE]: 'x', [cfc.implementsCapability]: CAP },
  });
  const create = (input: Record<string, unknown>) => () => suite.ogm.create(input as never);
  const commit = (input: Record<string, unknown>) => () => suite.ogm.commit({ iri: existing, set: { [NOTE]: 'y' }, ...input });

  const termCases: fc.Arbitrary<{ term: unknown; bad: unknown }> = fc.oneof(
    badIri.map((bad) => ({ term: { termType: 'Literal', value: 'x', datatype: bad }, bad })),
    hostileText
      .filter((s) => !/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/u.test(s))
      .map((bad) => ({ term: { termType: 'Literal', value: 'x', language: bad, datatype: w3.langString }, bad })),
    badIri.map((bad) => ({ term: { termType: 'NamedNode', value: bad }, bad })),
    hostileText.map((bad) => ({ term: { termType: 'BlankNode', value: bad }, bad: undefined })),
    notAString.map((bad) => ({ term: { termType: 'Literal', value: bad, datatype: xsd.string }, bad: undefined })),
    hostileText.map((bad) => ({ term: { termType: bad, value: 'x' }, bad: undefined })),
  );

  const writeCases: fc.Arbitrary<HostileCase> = fc.oneof(
    iriCases('individual IRI', (bad) => create({ ...ok(), iri: bad })),
    iriCases('class', (bad) => create({ ...ok(), type: [OP, bad] })),
    // A list is read as classes (each checked, an empty one is "no type"); anything else names itself.
    notAString.map((bad) => ({
      name: `type = ${String(typeof bad)}`,
      run: create({ ...ok(), type: bad }),
      ...(Array.isArray(bad) ? {} : { value: bad }),
    })),
    keyCases('property', (bad) => create({ ...ok(), properties: { [bad]: 'x' } })),
    iriCases('graph', (bad) => create({ ...ok(), graph: bad }), undefined, true),
    badLiteralValue.map((bad) => ({ name: 'literal value', run: create({ ...ok(), properties: { [NOTE]: bad } }), ...expectation(bad) })),
    badLiteralValue.map((bad) => ({
      name: 'literal in a list',
      run: create({ ...ok(), properties: { [NOTE]: ['fine', bad] } }),
      ...expectation(bad),
    })),
    hostileText
      .filter((s) => !/^[+-]?\d+$/u.test(s))
      .map((bad) => ({
        name: 'integer lexical form',
        run: create({ ...ok(), properties: { [COUNT]: bad } }),
        value: bad,
        classes: [ValidationError],
      })),
    // An empty list is "no value", which is allowed.
    badIriInput
      .filter((v) => !(Array.isArray(v) && v.length === 0))
      .map((bad) => ({
        name: 'object value',
        run: create({ ...ok(), properties: { [cfc.implementsCapability]: bad } }),
        ...(typeof bad === 'string' ? { value: bad } : {}),
        classes: [ValidationError],
      })),
    // A bad datatype or language first makes the literal the wrong kind for the range; that error is named.
    termCases.map(({ term, bad }) => ({
      name: `term ${JSON.stringify(term, (_k, v: unknown) => (typeof v === 'bigint' || typeof v === 'symbol' ? String(v) : v))}`,
      run: create({ ...ok(), properties: { [NOTE]: term } }),
      ...(bad !== undefined && (term as { termType: string }).termType === 'NamedNode' ? { value: bad } : {}),
    })),
    iriCases('individual IRI', (bad) => commit({ iri: bad })),
    keyCases('property', (bad) => commit({ set: { [bad]: 'y' } })),
    keyCases('property', (bad) => commit({ set: { [NOTE]: 'y' }, guard: { [bad]: [] } })),
    badLiteralValue.map((bad) => ({ name: 'commit value', run: commit({ set: { [NOTE]: bad } }), ...expectation(bad) })),
    badLiteralValue.map((bad) => ({
      name: 'guard value',
      run: commit({ set: { [NOTE]: 'y' }, guard: { [NOTE]: bad } }),
      ...expectation(bad),
    })),
    badLiteralValue.map((bad) => ({
      name: 'guardOneOf value',
      run: commit({ set: { [NOTE]: 'y' }, guardOneOf: { [NOTE]: [bad] } }),
      ...expectation(bad),
    })),
    iriCases('graph', (bad) => commit({ set: { [NOTE]: 'y' }, graph: bad }), undefined, true),
    iriCases('individual IRI', (bad) => () => suite.ogm.fetch(bad as string)),
    iriCases('property', (bad) => () => suite.ogm.fetch(existing, { follow: [[bad as string]] })),
    iriCases('subject', (bad) => () => suite.ogm.db.append({ subject: bad as string, predicate: cfc.hasCapability, object: CAP })),
    badIriInput.map((bad) => ({
      name: 'append object',
      run: () => suite.ogm.db.append({ subject: existing, predicate: cfc.hasCapability, object: bad as string }),
      ...(typeof bad === 'string' ? { value: bad } : {}),
    })),
    hostileText.map((bad) => ({
      name: 'append predicate',
      run: () => suite.ogm.db.append({ subject: existing, predicate: bad, object: CAP }),
      value: bad,
      classes: [ValidationError],
    })),
    iriCases(
      'predicate',
      (bad) => () => suite.ogm.db.tripleDelete([{ subject: existing, predicate: bad as string, object: literal('x') }]),
    ),
    termCases.map(({ term, bad }) => ({
      name: 'tripleDelete object',
      run: () => suite.ogm.db.tripleDelete([{ subject: existing, predicate: NOTE, object: term as never }]),
      ...(bad === undefined ? {} : { value: bad }),
      classes: [ValueError],
    })),
  );

  onStore(
    'should refuse every hostile create, commit, fetch and low-level write with a typed error naming the value, writing nothing',
    async () => {
      await suite.ogm.create({ iri: existing, type: OP, properties: { [NOTE]: 'before', [cfc.implementsCapability]: CAP } });
      await guard.reset();
      await report.check('hostile OGM calls', hostileProperty(writeCases, guard), kind === 'remote' ? 0.5 : 1, { shrink: false });
      // The OGM still serves: a normal write and read succeed.
      await suite.ogm.commit({ iri: existing, set: { [NOTE]: 'after' } });
      expect((await suite.ogm.fetch(existing))?.properties[NOTE]?.map((t) => t.value)).toEqual(['after']);
    },
    120_000,
  );

  onStore(
    'should store odd IRIs and injection-like literals exactly, read them back, and revert them exactly',
    async () => {
      await guard.reset();
      const before = await guard.snapshot();
      await report.check(
        'odd IRIs and literals round-trip',
        fc.asyncProperty(oddIri, oddIri, hostileLiteral, fc.integer(), async (opIri, capIri, note, count) => {
          fc.pre(opIri !== capIri);
          const options = { operationIri: opIri, operationClass: OP, capabilityIri: capIri, data: { fuzzNote: note, [COUNT]: count } };
          await createOperation(suite.ogm, options);
          const read = await suite.ogm.fetch(opIri);
          expect(read?.properties[NOTE]).toEqual([literal(note, xsd.string)]);
          expect(read?.properties[COUNT]?.map((t) => Number(t.value))).toEqual([count]);
          expect(read?.properties[cfc.implementsCapability]?.map((t) => t.value)).toEqual([capIri]);
          expect(read?.properties[svc.operationStatus]?.map((t) => t.value)).toEqual(['queued']);
          await revertOperation(suite.ogm, options);
          await guard.expectUnchanged(`the revert of ${JSON.stringify(options)}`);
        }),
        kind === 'remote' ? 0.5 : 1,
        // A failed case may leave its Operation behind, and every shrunk case would then fail on it.
        { shrink: false },
      );
      expect(await guard.snapshot()).toBe(before);
    },
    120_000,
  );
});
