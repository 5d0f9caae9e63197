import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { DataFactory, Parser, Store, type Quad_Object, type Term as N3Term } from 'n3';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../../src/ontology/files.js';
import { OPERATION_STATUSES } from '../../src/vocab/status.js';
import { CFC, MES, OWL, RDF, RDFS, SH, SVC, XSD } from '../../src/vocab/namespaces.js';
import { cfc, mes, plant, svc, w3, xsd } from '../../src/vocab/terms.js';

const nn = (iri: string): ReturnType<typeof DataFactory.namedNode> => DataFactory.namedNode(iri);
const literal = (value: string, datatype: ReturnType<typeof DataFactory.namedNode>) => DataFactory.literal(value, datatype);

function parse(path: string): Store {
  return new Store(new Parser({ format: 'text/turtle' }).parse(readFileSync(path, 'utf8')));
}

const modules = Object.fromEntries(BUNDLED_ONTOLOGY_FILES.map((f) => [f.name, parse(f.path)]));
const core = modules.core!;
const service = modules.service!;
const mesModule = modules.mes!;
const shapes = modules.shapes!;
const plantModule = parse(EXAMPLE_PLANT_FILE.path);
const tbox = new Store([...core, ...service, ...mesModule, ...modules.middleware!]);

function objects(store: Store, s: string | N3Term, p: string): Quad_Object[] {
  return store.getObjects(typeof s === 'string' ? nn(s) : s, nn(p), null);
}
function values(store: Store, s: string | N3Term, p: string): string[] {
  return objects(store, s, p).map((o) => o.value);
}
function has(store: Store, s: string, p: string, o: string): boolean {
  return store.has(DataFactory.quad(nn(s), nn(p), nn(o)));
}
function list(store: Store, head: N3Term): string[] {
  return store.extractLists()[head.value]?.map((t) => t.value) ?? [];
}

const DECLARATION_TYPES = [w3.Class, w3.ObjectProperty, w3.DatatypeProperty, w3.NamedIndividual];

describe('ontology files', () => {
  it.each([...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE])(
    'should give $name an owl:Ontology header named by its graph, with label, comment and version',
    (file) => {
      const store = parse(file.path);
      expect(has(store, file.graph, w3.type, w3.Ontology)).toBe(true);
      expect(values(store, file.graph, RDFS('label'))).toHaveLength(1);
      expect(values(store, file.graph, RDFS('comment'))).toHaveLength(1);
      expect(values(store, file.graph, OWL('versionInfo'))).toHaveLength(1);
    },
  );

  it('should mark the Core subset as version 0.9.0', () => {
    expect(values(core, BUNDLED_ONTOLOGY_FILES[0]!.graph, OWL('versionInfo'))).toEqual(['0.9.0']);
  });

  it.each([
    ['svc', svc],
    ['cfc', cfc],
    ['mes', mes],
  ])('should declare every %s term of the vocabulary module', (_prefix, terms) => {
    for (const iri of Object.values(terms)) {
      const types = values(tbox, iri, w3.type);
      expect({ iri, declared: types.some((t) => DECLARATION_TYPES.includes(t)) }).toEqual({ iri, declared: true });
    }
  });

  it('should declare every example plant term', () => {
    for (const iri of Object.values(plant)) {
      expect({ iri, types: values(plantModule, iri, w3.type).length > 0 }).toEqual({ iri, types: true });
    }
    expect(values(plantModule, plant.ControllerService, w3.subClassOf)).toEqual([svc.Service]);
    expect(values(plantModule, plant.DoorOpeningCapability, w3.subClassOf)).toEqual([cfc.Capability]);
    expect(values(plantModule, plant.Part, w3.subClassOf)).toEqual([cfc.Workpiece]);
  });

  it.each([
    [cfc.implementsCapability, cfc.Operation, cfc.Capability],
    [cfc.hasPossessor, cfc.Resource, cfc.PossessionState],
    [cfc.hasPossessedWorkpiece, cfc.Workpiece, cfc.PossessionState],
    [cfc.hasCapability, cfc.Resource, cfc.Capability],
  ])('should declare the domain and range of %s', (property, domain, range) => {
    expect(values(core, property, w3.domain)).toEqual([domain]);
    expect(values(core, property, w3.range)).toEqual([range]);
    expect(has(core, property, w3.type, w3.ObjectProperty)).toBe(true);
  });

  it("should restrict a Workpiece to exactly one PossessionState by cfc:hasPossessedWorkpiece", () => {
    const restrictions = objects(core, cfc.Workpiece, w3.subClassOf).filter((r) => r.termType === 'BlankNode');
    expect(restrictions).toHaveLength(1);
    const r = restrictions[0]!;
    expect(values(core, r, w3.type)).toEqual([w3.Restriction]);
    expect(values(core, r, w3.onProperty)).toEqual([cfc.hasPossessedWorkpiece]);
    expect(values(core, r, OWL('onClass'))).toEqual([cfc.PossessionState]);
    expect(objects(core, r, w3.qualifiedCardinality)).toEqual([literal('1', nn(xsd.nonNegativeInteger))]);
  });

  it.each([
    [svc.address, svc.Service, xsd.anyURI, w3.DatatypeProperty],
    [svc.lastHeartbeat, svc.Service, xsd.dateTime, w3.DatatypeProperty],
    [svc.isServiceOf, svc.Service, cfc.Resource, w3.ObjectProperty],
    [svc.isWorkflowOf, svc.Workflow, svc.Service, w3.ObjectProperty],
    [svc.isStatePropertyOf, svc.StateProperty, svc.Service, w3.ObjectProperty],
    [svc.realizedByWorkflow, cfc.Capability, svc.Workflow, w3.ObjectProperty],
    [svc.providedByStateProperty, cfc.Capability, svc.StateProperty, w3.ObjectProperty],
    [svc.operationStatus, cfc.Operation, xsd.string, w3.DatatypeProperty],
    [svc.failureState, cfc.Operation, xsd.string, w3.DatatypeProperty],
    [svc.executedByWorkflow, cfc.Operation, svc.Workflow, w3.ObjectProperty],
    [svc.executionTimestamp, cfc.Operation, xsd.dateTime, w3.DatatypeProperty],
    [svc.executionResult, cfc.Operation, xsd.string, w3.DatatypeProperty],
  ])('should declare %s with its domain, range and kind', (property, domain, range, kind) => {
    expect(values(service, property, w3.domain)).toEqual([domain]);
    expect(values(service, property, w3.range)).toEqual([range]);
    expect(values(service, property, w3.type)).toEqual([kind]);
  });

  it('should give svc:endpoint the union of Workflow and StateProperty as its domain', () => {
    const [domain] = objects(service, svc.endpoint, w3.domain);
    expect(domain?.termType).toBe('BlankNode');
    expect(list(service, objects(service, domain!, w3.unionOf)[0]!)).toEqual([svc.Workflow, svc.StateProperty]);
    expect(values(service, svc.endpoint, w3.range)).toEqual([xsd.anyURI]);
  });

  it.each([
    [svc.isServiceOf, svc.hasService],
    [svc.isWorkflowOf, svc.hasWorkflow],
    [svc.isStatePropertyOf, svc.hasStateProperty],
    [svc.realizedByWorkflow, svc.realizesCapability],
    [svc.providedByStateProperty, svc.providesCapability],
  ])('should declare %s as the inverse of %s', (owned, inverse) => {
    expect(values(service, owned, w3.inverseOf)).toEqual([inverse]);
  });

  it('should assert mes:complements in both directions for every pair', () => {
    const pairs = [
      [mes.Put, mes.Receive],
      [mes.Pick, mes.Release],
      [mes.Pass, mes.Retrieve],
    ] as const;
    for (const [a, b] of pairs) {
      expect(values(mesModule, a, mes.complements)).toEqual([b]);
      expect(values(mesModule, b, mes.complements)).toEqual([a]);
    }
    expect(mesModule.getQuads(null, nn(mes.complements), null, null)).toHaveLength(6);
    expect(has(mesModule, mes.complements, w3.type, w3.SymmetricProperty)).toBe(true);
    expect(values(mesModule, mes.hasHandoverAbility, w3.domain)).toEqual([cfc.Resource]);
    expect(values(mesModule, mes.hasHandoverAbility, w3.range)).toEqual([mes.HandoverAbility]);
  });

  it('should type each handover ability as mes:HandoverAbility and owl:NamedIndividual', () => {
    for (const ability of [mes.Put, mes.Receive, mes.Pick, mes.Release, mes.Pass, mes.Retrieve]) {
      expect(values(mesModule, ability, w3.type).sort()).toEqual([mes.HandoverAbility, w3.NamedIndividual].sort());
    }
  });
});

/**
 * The axioms of the Python reference's Service and MES modules (`fixtures/reference-axioms.txt`,
 * one `s p o` a line). Lines starting with `_:` are the members of the two RDF lists.
 */
const REFERENCE_PREFIXES: Readonly<Record<string, string>> = { svc: SVC.iri, mes: MES.iri, cfc: CFC.iri, owl: OWL.iri, rdf: RDF.iri, rdfs: RDFS.iri, xsd: XSD.iri };
const referenceAxioms = readFileSync(new URL('./fixtures/reference-axioms.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => line.trim().split(/\s+/u) as [string, string, string]);
function expand(token: string): string {
  const colon = token.indexOf(':');
  const prefix = REFERENCE_PREFIXES[token.slice(0, colon)];
  return prefix === undefined ? token : prefix + token.slice(colon + 1);
}
const isModuleHeader = (token: string): boolean => token === 'svc:' || token === 'mes:';

describe('the reference ontology', () => {
  const ours = new Store([...service, ...mesModule]);

  it.each(referenceAxioms.filter(([s, , o]) => !s.startsWith('_:') && !o.startsWith('_:') && !isModuleHeader(s)))(
    'should hold %s %s %s',
    (s, p, o) => {
      expect({ axiom: [s, p, o], held: has(ours, expand(s), expand(p), expand(o)) }).toEqual({ axiom: [s, p, o], held: true });
    },
  );

  it('should enumerate the six handover abilities with owl:oneOf, in the reference order', () => {
    const [head] = objects(mesModule, mes.HandoverAbility, w3.oneOf);
    expect(list(mesModule, head!)).toEqual([mes.Put, mes.Receive, mes.Pick, mes.Release, mes.Pass, mes.Retrieve]);
  });

  it('should declare no svc: or mes: term the reference does not declare', () => {
    const declared = new Set(referenceAxioms.filter(([s]) => !s.startsWith('_:') && !isModuleHeader(s)).map(([s]) => expand(s)));
    const ownTerms = [...ours.getSubjects(null, null, null)]
      .map((t) => t.value)
      .filter((iri) => iri.startsWith(SVC.iri) || iri.startsWith(MES.iri));
    expect(ownTerms.filter((iri) => !declared.has(iri))).toEqual([]);
    for (const iri of [...Object.values(svc), ...Object.values(mes)]) expect({ iri, declared: declared.has(iri) }).toEqual({ iri, declared: true });
  });

  it('should import Core from both modules, as the reference does', () => {
    for (const [file, store] of [
      [BUNDLED_ONTOLOGY_FILES[1]!, service],
      [BUNDLED_ONTOLOGY_FILES[2]!, mesModule],
    ] as const) {
      expect(values(store, file.graph, OWL('imports'))).toEqual([BUNDLED_ONTOLOGY_FILES[0]!.graph]);
    }
  });
});

describe('shapes', () => {
  const nodeShapes = shapes.getSubjects(nn(w3.type), nn(w3.NodeShape), null);
  const propertyShape = (targetClass: string, path: string): N3Term => {
    const shape = shapes.getSubjects(nn(SH('targetClass')), nn(targetClass), null)[0]!;
    const found = objects(shapes, shape, SH('property')).find((p) => values(shapes, p, SH('path'))[0] === path);
    expect(found).toBeDefined();
    return found!;
  };

  it('should target only declared classes', () => {
    expect(nodeShapes.length).toBeGreaterThanOrEqual(6);
    for (const shape of nodeShapes) {
      for (const target of values(shapes, shape, SH('targetClass'))) {
        expect(has(tbox, target, w3.type, w3.Class)).toBe(true);
      }
    }
  });

  it('should use only declared properties as paths', () => {
    for (const quad of shapes.getQuads(null, nn(SH('path')), null, null)) {
      const path = quad.object.termType === 'NamedNode' ? quad.object.value : values(shapes, quad.object, SH('inversePath'))[0]!;
      expect(values(tbox, path, w3.type).some((t) => t === w3.ObjectProperty || t === w3.DatatypeProperty)).toBe(true);
    }
  });

  it('should allow only the four operation statuses, once', () => {
    const status = propertyShape(cfc.Operation, svc.operationStatus);
    expect(list(shapes, objects(shapes, status, SH('in'))[0]!)).toEqual([...OPERATION_STATUSES]);
    expect(values(shapes, status, SH('maxCount'))).toEqual(['1']);
  });

  it.each([
    [svc.Service, svc.address, xsd.anyURI],
    [svc.Service, svc.lastHeartbeat, xsd.dateTime],
    [svc.Workflow, svc.endpoint, xsd.anyURI],
    [svc.StateProperty, svc.endpoint, xsd.anyURI],
    [cfc.Operation, svc.executionTimestamp, xsd.dateTime],
  ])('should make %s %s single-valued with datatype %s', (target, path, datatype) => {
    const shape = propertyShape(target, path);
    expect(values(shapes, shape, SH('maxCount'))).toEqual(['1']);
    expect(values(shapes, shape, SH('datatype'))).toEqual([datatype]);
  });

  it.each([
    [cfc.Operation, cfc.implementsCapability],
    [cfc.Operation, svc.executedByWorkflow],
    [cfc.Workpiece, cfc.hasPossessedWorkpiece],
  ])('should make %s %s single-valued', (target, path) => {
    expect(values(shapes, propertyShape(target, path), SH('maxCount'))).toEqual(['1']);
  });

  it.each([
    [svc.Workflow, svc.isWorkflowOf],
    [svc.StateProperty, svc.isStatePropertyOf],
    [svc.Service, svc.isServiceOf],
  ])('should require exactly one %s %s', (target, path) => {
    const shape = propertyShape(target, path);
    expect(values(shapes, shape, SH('minCount'))).toEqual(['1']);
    expect(values(shapes, shape, SH('maxCount'))).toEqual(['1']);
  });

  it('should not require a status, so that reverting an Operation conforms', () => {
    expect(values(shapes, propertyShape(cfc.Operation, svc.operationStatus), SH('minCount'))).toEqual([]);
  });
});
