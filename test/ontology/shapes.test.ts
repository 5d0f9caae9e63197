import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Parser, Store } from 'n3';
import SHACLValidator from 'rdf-validate-shacl';
import { BUNDLED_ONTOLOGY_FILES } from '../../src/ontology/files.js';
import { sparqlIri, sparqlLiteral } from '../../src/store/terms.js';
import { cfc, plant, svc, w3, xsd } from '../../src/vocab/terms.js';

// The shipped shapes, run by rdf-validate-shacl over small data graphs written in Turtle. The
// data graphs carry the subclass axioms they need, as the OGM's data graph does.
const shapesFile = BUNDLED_ONTOLOGY_FILES.find((f) => f.name === 'shapes')!;
const shapes = new Store(new Parser().parse(readFileSync(shapesFile.path, 'utf8')));

const OP = 'https://example.org/op1';
const WF = 'https://example.org/wf1';
const SERVICE = 'https://example.org/svc1';

const t = (s: string, p: string, o: string): string => `${sparqlIri(s)} ${sparqlIri(p)} ${o} .`;
const iri = sparqlIri;
const lit = (value: string, datatype: string = xsd.string): string => sparqlLiteral({ value, datatype });

async function conforms(lines: string[]): Promise<{ conforms: boolean; messages: string[] }> {
  const data = new Store(new Parser().parse(lines.join('\n')));
  const report = await new SHACLValidator(shapes).validate(data);
  return { conforms: report.conforms, messages: report.results.flatMap((r) => r.message.map((m) => m.value)) };
}

const serviceTriples = [
  t(plant.ControllerService, w3.subClassOf, iri(svc.Service)),
  t(SERVICE, w3.type, iri(plant.ControllerService)),
  t(SERVICE, svc.isServiceOf, iri(plant.door1)),
  t(SERVICE, svc.address, lit('http://127.0.0.1:8000', xsd.anyURI)),
];

describe('shapes.ttl', () => {
  it('should accept a registered Service, Workflow and queued Operation', async () => {
    const result = await conforms([
      ...serviceTriples,
      t(WF, w3.type, iri(svc.Workflow)),
      t(WF, svc.isWorkflowOf, iri(SERVICE)),
      t(WF, svc.endpoint, lit('http://127.0.0.1:8000/workflows/open/execute', xsd.anyURI)),
      t(OP, w3.type, iri(cfc.Operation)),
      t(OP, cfc.implementsCapability, iri('https://example.org/cap1')),
      t(OP, svc.operationStatus, lit('queued')),
    ]);
    expect(result).toEqual({ conforms: true, messages: [] });
  });

  it('should reject an unknown status and a second status', async () => {
    expect((await conforms([t(OP, w3.type, iri(cfc.Operation)), t(OP, svc.operationStatus, lit('paused'))])).conforms).toBe(false);
    const two = await conforms([t(OP, w3.type, iri(cfc.Operation)), t(OP, svc.operationStatus, lit('queued')), t(OP, svc.operationStatus, lit('done'))]);
    expect(two.messages).toContain('an Operation has at most one svc:operationStatus, one of queued, running, done, failed');
  });

  it('should reject an untyped heartbeat and a Service without a resource', async () => {
    const untyped = await conforms([...serviceTriples, t(SERVICE, svc.lastHeartbeat, lit('2025-01-01T00:00:00Z'))]);
    expect(untyped.conforms).toBe(false);
    const orphan = await conforms([t(SERVICE, w3.type, iri(svc.Service))]);
    expect(orphan.messages).toContain('a Service is the service of exactly one resource (svc:isServiceOf, an IRI)');
  });

  it('should reject a Workflow whose service is not a svc:Service', async () => {
    const result = await conforms([t(WF, w3.type, iri(svc.Workflow)), t(WF, svc.isWorkflowOf, iri(plant.door1))]);
    expect(result.messages).toContain('a Workflow belongs to exactly one svc:Service (svc:isWorkflowOf)');
  });

  it('should reject a Workpiece in two possession states', async () => {
    const part = 'https://example.org/part1';
    const result = await conforms([
      t(part, w3.type, iri(cfc.Workpiece)),
      t(part, cfc.hasPossessedWorkpiece, iri('https://example.org/ps1')),
      t(part, cfc.hasPossessedWorkpiece, iri('https://example.org/ps2')),
    ]);
    expect(result.conforms).toBe(false);
  });

  it('should accept a reverted Operation without status', async () => {
    expect((await conforms([t(OP, w3.type, iri(cfc.Operation))])).conforms).toBe(true);
  });
});
