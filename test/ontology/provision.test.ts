import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ValueError } from '../../src/errors.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE, type OntologyFile } from '../../src/ontology/files.js';
import { loadOntologyFiles, provisionOntology, type OntologyLoadEvent } from '../../src/ontology/provision.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { inGraph } from '../../src/store/sparql.js';
import { sparqlIri } from '../../src/store/terms.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { FILE_GRAPH_PREFIX, ONTOLOGY_GRAPHS } from '../../src/vocab/graphs.js';
import { MES, SVC } from '../../src/vocab/namespaces.js';
import { cfc, mes, sm, svc, w3 } from '../../src/vocab/terms.js';

async function count(store: TripleStore, graph?: string): Promise<number> {
  const pattern = graph === undefined ? 'GRAPH ?g { ?s ?p ?o }' : inGraph(graph, '?s ?p ?o .');
  const rows = await store.select(`SELECT (COUNT(*) AS ?n) WHERE { ${pattern} }`);
  return Number(rows[0]!.n!.value);
}

async function graphs(store: TripleStore): Promise<string[]> {
  const rows = await store.select('SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }');
  return rows.map((r) => r.g!.value).sort();
}

let dir: string;
let store: TripleStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sm-provision-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  store = await openEmbeddedStore({});
});
afterEach(async () => {
  await store.close();
});

describe('provisionOntology', () => {
  it('should load each bundled module into its own named graph', async () => {
    const report = await provisionOntology(store);
    expect(report.modules.map((m) => [m.name, m.graph, m.status])).toEqual([
      ['core', ONTOLOGY_GRAPHS.core, 'loaded'],
      ['service', ONTOLOGY_GRAPHS.service, 'loaded'],
      ['mes', ONTOLOGY_GRAPHS.mes, 'loaded'],
      ['middleware', ONTOLOGY_GRAPHS.middleware, 'loaded'],
      ['shapes', ONTOLOGY_GRAPHS.shapes, 'loaded'],
    ]);
    expect(report).toMatchObject({ loaded: 5, unchanged: 0 });
    expect(await graphs(store)).toEqual(
      [ONTOLOGY_GRAPHS.core, ONTOLOGY_GRAPHS.service, ONTOLOGY_GRAPHS.mes, ONTOLOGY_GRAPHS.middleware, ONTOLOGY_GRAPHS.shapes].sort(),
    );
    for (const m of report.modules) {
      expect(m.hash).toMatch(/^sha256:[0-9a-f]{64}$/u);
      expect(m.triples).toBe(await count(store, m.graph));
    }
    expect(
      await store.ask(`ASK { ${inGraph(ONTOLOGY_GRAPHS.core, `${sparqlIri(cfc.implementsCapability)} ${sparqlIri(w3.domain)} ${sparqlIri(cfc.Operation)} .`)} }`),
    ).toBe(true);
    expect(
      await store.ask(`ASK { ${inGraph(ONTOLOGY_GRAPHS.mes, `${sparqlIri(mes.Receive)} ${sparqlIri(mes.complements)} ${sparqlIri(mes.Put)} .`)} }`),
    ).toBe(true);
  });

  it('should record the content hash of each module inside its graph', async () => {
    const report = await provisionOntology(store);
    for (const m of report.modules) {
      const rows = await store.select(`SELECT ?h WHERE { ${inGraph(m.graph, `${sparqlIri(m.graph)} ${sparqlIri(sm.contentHash)} ?h .`)} }`);
      expect(rows.map((r) => r.h!.value)).toEqual([m.hash]);
    }
  });

  it('should be idempotent: a second run writes nothing and duplicates no blank node', async () => {
    await provisionOntology(store);
    const before = await count(store);
    const dump = await store.dump();
    const requests = store.requestCount;
    const report = await provisionOntology(store);
    expect(store.requestCount - requests).toBe(5); // one ASK per module, nothing written
    expect(report).toMatchObject({ loaded: 0, unchanged: 5 });
    expect(report.modules.every((m) => m.status === 'unchanged' && m.triples === undefined)).toBe(true);
    expect(await count(store)).toBe(before);
    expect(await store.dump()).toBe(dump);
  });

  it('should reload a changed module as a whole, leaving the others alone', async () => {
    const path = join(dir, 'mes.ttl');
    await copyFile(BUNDLED_ONTOLOGY_FILES[2]!.path, path);
    const files: OntologyFile[] = [BUNDLED_ONTOLOGY_FILES[0]!, { name: 'mes', path, graph: ONTOLOGY_GRAPHS.mes }];
    const first = await provisionOntology(store, { files });
    const mesTriples = await count(store, ONTOLOGY_GRAPHS.mes);

    const original = await readFile(path, 'utf8');
    await writeFile(path, original.replace('mes:complements mes:Pass .', 'mes:complements mes:Pass ; rdfs:seeAlso <https://example.org/x> .'));
    const second = await provisionOntology(store, { files });
    expect(second.modules.map((m) => m.status)).toEqual(['unchanged', 'loaded']);
    expect(second.modules[1]!.hash).not.toBe(first.modules[1]!.hash);
    expect(await count(store, ONTOLOGY_GRAPHS.mes)).toBe(mesTriples + 1);

    await writeFile(path, original);
    await provisionOntology(store, { files });
    expect(await count(store, ONTOLOGY_GRAPHS.mes)).toBe(mesTriples);
  });

  it('should replace the modules of a store provisioned with the earlier term names', async () => {
    // The earlier release named the abilities mes:PutAbility ... and the inverses svc:realizes, svc:provides.
    const earlier = async (file: OntologyFile): Promise<OntologyFile> => {
      const path = join(dir, `earlier-${file.name}.ttl`);
      const text = (await readFile(file.path, 'utf8'))
        .replace(/\bmes:(Put|Receive|Pick|Release|Pass|Retrieve)\b/gu, 'mes:$1Ability')
        .replace(/\bsvc:(realizes|provides)Capability\b/gu, 'svc:$1');
      await writeFile(path, text);
      return { ...file, path };
    };
    await provisionOntology(store, { files: await Promise.all(BUNDLED_ONTOLOGY_FILES.map(earlier)) });
    const holds = (graph: string, iri: string): Promise<boolean> =>
      store.ask(`ASK { ${inGraph(graph, `{ ${sparqlIri(iri)} ?p ?o } UNION { ?s ?p ${sparqlIri(iri)} }`)} }`);
    expect(await holds(ONTOLOGY_GRAPHS.mes, MES('PutAbility'))).toBe(true);

    const report = await provisionOntology(store);
    expect(report.modules.map((m) => m.status)).toEqual(['unchanged', 'loaded', 'loaded', 'unchanged', 'unchanged']);
    expect(await holds(ONTOLOGY_GRAPHS.mes, MES('PutAbility'))).toBe(false);
    expect(await holds(ONTOLOGY_GRAPHS.service, SVC('realizes'))).toBe(false);
    expect(await holds(ONTOLOGY_GRAPHS.mes, mes.Put)).toBe(true);
    expect(await holds(ONTOLOGY_GRAPHS.service, svc.realizesCapability)).toBe(true);
  });

  it('should reload a module whose graph holds a load that never finished (no hash)', async () => {
    await provisionOntology(store);
    const triples = await count(store, ONTOLOGY_GRAPHS.core);
    const hash = `${sparqlIri(ONTOLOGY_GRAPHS.core)} ${sparqlIri(sm.contentHash)} ?h .`;
    await store.update(`DELETE { ${inGraph(ONTOLOGY_GRAPHS.core, hash)} } WHERE { ${inGraph(ONTOLOGY_GRAPHS.core, hash)} }`);
    const report = await provisionOntology(store);
    expect(report.modules.map((m) => m.status)).toEqual(['loaded', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(await count(store, ONTOLOGY_GRAPHS.core)).toBe(triples);
  });

  it('should report progress and log one line per module', async () => {
    const events: OntologyLoadEvent[] = [];
    const lines: Array<{ obj: object; msg: string }> = [];
    await provisionOntology(store, {
      onProgress: (e) => events.push(e),
      logger: { info: (obj, msg) => lines.push({ obj, msg }) },
    });
    expect(events.filter((e) => e.phase === 'start').map((e) => (e.phase === 'start' ? e.name : ''))).toEqual(['core', 'service', 'mes', 'middleware', 'shapes']);
    expect(events.filter((e) => e.phase === 'done')).toHaveLength(5);
    expect(events.some((e) => e.phase === 'write' && e.written > 0)).toBe(true);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toEqual({ msg: 'ontology module loaded', obj: expect.objectContaining({ module: 'core', graph: ONTOLOGY_GRAPHS.core, status: 'loaded' }) });
  });
});

describe('loadOntologyFiles', () => {
  it("should load a file into the graph of its owl:Ontology IRI, idempotently", async () => {
    const first = await loadOntologyFiles(store, [EXAMPLE_PLANT_FILE.path]);
    expect(first.modules).toEqual([expect.objectContaining({ name: 'plant.ttl', graph: ONTOLOGY_GRAPHS.plant, status: 'loaded' })]);
    const second = await loadOntologyFiles(store, [EXAMPLE_PLANT_FILE.path]);
    expect(second.modules[0]!.status).toBe('unchanged');
  });

  it('should load a file without an ontology header into a graph named after the file', async () => {
    const path = join(dir, 'extra data.nt');
    await writeFile(path, `${sparqlIri('https://example.org/a')} ${sparqlIri(w3.type)} ${sparqlIri(cfc.Resource)} .\n`);
    const report = await loadOntologyFiles(store, [path]);
    expect(report.modules[0]!.graph).toBe(`${FILE_GRAPH_PREFIX}extra%20data.nt`);
    expect(await count(store, report.modules[0]!.graph)).toBe(2);
  });

  it('should load into the graph given for a single file', async () => {
    const report = await loadOntologyFiles(store, [EXAMPLE_PLANT_FILE.path], { graph: 'urn:example:g' });
    expect(report.modules[0]!.graph).toBe('urn:example:g');
  });

  it('should refuse a graph for several files, an unknown extension and a missing file before loading anything', async () => {
    await expect(loadOntologyFiles(store, [EXAMPLE_PLANT_FILE.path, EXAMPLE_PLANT_FILE.path], { graph: 'urn:example:g' })).rejects.toThrow(ValueError);
    await expect(loadOntologyFiles(store, [EXAMPLE_PLANT_FILE.path, join(dir, 'x.owl')])).rejects.toThrow(/x\.owl.*\.ttl/u);
    const missing = join(dir, 'missing.ttl');
    await expect(loadOntologyFiles(store, [EXAMPLE_PLANT_FILE.path, missing])).rejects.toThrow(`cannot read ontology file "${missing}": no such file`);
    expect(await count(store)).toBe(0);
  });

  it('should name the file when it does not parse, and leave its graph without a hash', async () => {
    const path = join(dir, 'broken.ttl');
    await writeFile(path, '@prefix ex: <https://example.org/> .\nex:a ex:b ');
    await expect(loadOntologyFiles(store, [path])).rejects.toThrow(`cannot load ontology file "${path}"`);
    expect(await count(store)).toBe(0);
  });
});
