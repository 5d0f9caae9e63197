import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { compileShapes } from '../../src/ogm/compiled-shapes.js';
import { WriteShapes } from '../../src/ogm/shapes.js';
import { loadTbox, type Tbox } from '../../src/ogm/tbox.js';
import type { WriteIntent } from '../../src/ogm/validate.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../../src/ontology/files.js';
import { provisionOntology } from '../../src/ontology/provision.js';
import { graphTriplesQuery } from '../../src/queries/schema.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import type { Term } from '../../src/store/terms.js';
import type { Bindings, TripleStore } from '../../src/store/triple-store.js';
import { SH, XSD } from '../../src/vocab/namespaces.js';
import { ONTOLOGY_GRAPHS, plant, svc } from '../../src/vocab/index.js';

let store: TripleStore;
let rows: Bindings[];
let tbox: Tbox;
let compiled: WriteShapes;
let library: WriteShapes;
beforeAll(async () => {
  store = await openEmbeddedStore({});
  await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
  rows = await store.select(graphTriplesQuery(ONTOLOGY_GRAPHS.shapes));
  tbox = await loadTbox(store);
  compiled = WriteShapes.fromRows(rows);
  library = WriteShapes.fromRows(rows, { compile: false });
});
afterAll(() => store.close());

const lit = (value: string, datatype: string = XSD('string'), language?: string): Term =>
  language
    ? { termType: 'Literal', value, datatype: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString', language }
    : { termType: 'Literal', value, datatype };
const iri = (value: string): Term => ({ termType: 'NamedNode', value });
const SERVICE = 'urn:test:shapes:service';
const WORKPIECE = 'https://w3id.org/circularfactory/Core#Workpiece';
const VALUES: Term[] = [
  ...['queued', 'running', 'done', 'failed', 'cancelled', 'swept', 'error', 'jammed', ''].map((v) => lit(v)),
  lit('queued', XSD('normalizedString')),
  lit('queued', '', 'en'),
  lit('2026-11-29T06:00:00.000Z', XSD('dateTime')),
  lit('2026-11-29T06:00:00Z', XSD('dateTime')),
  lit('yesterday', XSD('dateTime')),
  lit('30', XSD('integer')),
  lit('0', XSD('integer')),
  lit('1', XSD('integer')),
  lit('1'),
  lit('one', XSD('integer')),
  lit('0.5', XSD('double')),
  lit('3.5', XSD('decimal')),
  lit('-1', XSD('nonNegativeInteger')),
  lit('http://127.0.0.1:8080', XSD('anyURI')),
  lit('true', XSD('boolean')),
  iri(SERVICE),
  iri('urn:test:shapes:untyped'),
  iri(plant.door1),
  { termType: 'BlankNode', value: 'b0' },
];

/** Every property some shape constrains. */
function constrainedPaths(): string[] {
  return [...new Set(rows.filter((r) => r.p?.value === SH('path')).map((r) => r.o!.value))];
}

/** What a check came to: passed, or the error message. */
async function verdict(
  shapes: WriteShapes,
  intent: WriteIntent,
  paths: Set<string> | undefined,
  objectTypes: Map<string, string[]>,
): Promise<string> {
  try {
    await shapes.check(tbox, intent, paths, objectTypes);
    return 'conforms';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('compiled write shapes', () => {
  it('should compile every shape the project ships but the one with an inverse path', () => {
    const targets = new Set(rows.filter((r) => r.p?.value === SH('targetClass')).map((r) => r.s!.value));
    const inverse = 'https://w3id.org/semantic-middleware/shapes#PossessionStateShape';
    expect([...compileShapes(rows, targets).keys()].sort()).toEqual([...targets].filter((t) => t !== inverse).sort());
  });

  it('should leave a shape with a constraint it does not know to the library', () => {
    const shape = { termType: 'NamedNode', value: 'urn:test:shape' } as const;
    const property = { termType: 'BlankNode', value: 'p' } as const;
    const row = (s: Term, p: string, o: Term): Bindings => ({ s, p: iri(p), o });
    const base = [
      row(shape, SH('targetClass'), iri('urn:test:C')),
      row(shape, SH('property'), property),
      row(property, SH('path'), iri('urn:test:p')),
    ];
    expect(compileShapes([...base, row(property, SH('maxCount'), lit('1', XSD('integer')))], [shape.value]).size).toBe(1);
    expect(compileShapes([...base, row(property, SH('pattern'), lit('^a'))], [shape.value]).size).toBe(0);
    expect(
      compileShapes(
        [...base, row(property, SH('maxCount'), lit('1', XSD('integer'))), row(property, SH('maxCount'), lit('2', XSD('integer')))],
        [shape.value],
      ).size,
    ).toBe(0);
    expect(compileShapes([...base, row(shape, SH('closed'), lit('true', XSD('boolean')))], [shape.value]).size).toBe(0);
  });

  it('should judge every value of every property as the library does, one property at a time', async () => {
    // As a commit of that property alone, so no other fault hides a wrong verdict: every class,
    // every property, no value, each value alone, and each value beside a good one.
    const classes = [plant.OpenDoorOperation, plant.ControllerService, plant.OpenDoorWorkflow, plant.DoorOpeningCapability, WORKPIECE];
    const lists: Term[][] = [[], ...VALUES.map((v) => [v]), ...VALUES.map((v) => [lit('queued'), v])];
    let refused = 0;
    let checked = 0;
    for (const cls of classes)
      for (const path of constrainedPaths())
        for (const values of lists)
          for (const objectTypes of [new Map<string, string[]>(), new Map([[SERVICE, [svc.Service]]])]) {
            const write: WriteIntent = { focus: 'urn:test:shapes:focus', classes: [cls], values: new Map([[path, values]]) };
            const only = new Set([path]);
            const expected = await verdict(library, write, only, objectTypes);
            if (expected !== 'conforms') refused += 1;
            checked += 1;
            if ((await verdict(compiled, write, only, objectTypes)) !== expected)
              throw new Error(`${cls} ${path} ${JSON.stringify(values)}: expected ${expected}`);
          }
    expect(refused).toBeGreaterThan(checked / 20);
  });

  it('should judge writes checked at once each on its own, by the library too', async () => {
    // The library keeps one validation engine and one data graph between awaits: checks that
    // overlap must not see each other's results.
    const write = (status: string, n: number): WriteIntent => ({
      focus: `urn:test:shapes:op${n}`,
      classes: [plant.OpenDoorOperation],
      values: new Map([[svc.operationStatus, [lit(status)]]]),
    });
    for (const shapes of [library, compiled]) {
      const writes = Array.from({ length: 12 }, (_, n) => write(n % 3 === 0 ? 'jammed' : 'queued', n));
      const verdicts = await Promise.all(writes.map((w) => verdict(shapes, w, undefined, new Map())));
      writes.forEach((w, n) => {
        if (n % 3 !== 0) expect(verdicts[n]).toBe('conforms');
        else expect(verdicts[n]).toMatch(new RegExp(`^<${w.focus}> violates a shape on <${svc.operationStatus}>`));
      });
    }
  });

  it('should judge every write as the library does, and refuse with its message', async () => {
    const paths = constrainedPaths();
    const classes = [
      plant.OpenDoorOperation,
      plant.ControllerService,
      plant.OpenDoorWorkflow,
      plant.DoorOpeningCapability,
      'https://w3id.org/circularfactory/Core#Workpiece',
    ];
    // Mostly values some shape allows, so that writes near the limits (two good values where one
    // is allowed) come up often.
    const likely = [
      lit('queued'),
      lit('done'),
      lit('a note'),
      lit('2026-11-29T06:00:00.000Z', XSD('dateTime')),
      lit('30', XSD('integer')),
      iri(SERVICE),
    ];
    const value = fc.oneof({ arbitrary: fc.constantFrom(...likely), weight: 3 }, { arbitrary: fc.constantFrom(...VALUES), weight: 2 });
    const intent = fc.record({
      classes: fc.subarray(classes, { minLength: 1, maxLength: 2 }),
      values: fc.array(fc.tuple(fc.constantFrom(...paths), fc.array(value, { maxLength: 3 })), { maxLength: 6 }),
      paths: fc.option(fc.subarray(paths, { minLength: 1 }), { nil: undefined }),
      serviceTyped: fc.boolean(),
    });
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(intent, async (w) => {
        const write: WriteIntent = { focus: 'urn:test:shapes:focus', classes: w.classes, values: new Map(w.values) };
        const objectTypes = new Map(w.serviceTyped ? [[SERVICE, [svc.Service]]] : []);
        const paths = w.paths && new Set(w.paths);
        const expected = await verdict(library, write, paths, objectTypes);
        expect(await verdict(compiled, write, paths, objectTypes)).toBe(expected);
        if (expected !== 'conforms') refused += 1;
      }),
      { numRuns: 1000 },
    );
    // Both verdicts came up, so the comparison was not one-sided.
    expect(refused).toBeGreaterThan(100);
    expect(refused).toBeLessThan(900);
  });
});
