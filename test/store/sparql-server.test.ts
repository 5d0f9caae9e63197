import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { Agent, fetch as undiciFetch } from 'undici';
import { StoreError, TransitionConflictError } from '../../src/errors.js';
import { mintCapabilityIri, mintOperationIri } from '../../src/iri/index.js';
import { OGM } from '../../src/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../../src/ontology/files.js';
import { provisionOntology } from '../../src/ontology/provision.js';
import { createOperation, setOperationStatus } from '../../src/registration/index.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import { openRemoteStore, updateReport } from '../../src/store/remote-store.js';
import { serveSparql, type SparqlServer } from '../../src/store/sparql-server.js';
import { negotiate, RESULT_FORMATS } from '../../src/store/sparql-server-formats.js';
import { parseQuery, planUpdate } from '../../src/store/sparql-server-parse.js';
import sparqljs from 'sparqljs';
import { literal, sparqlLiteral } from '../../src/store/terms.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { cfc, OperationStatus, plant, svc } from '../../src/vocab/index.js';
import { HOSTILE_STRINGS, describeTripleStore } from '../support/store-suite.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sparql-server-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Serves `store` and opens the project's remote store on it; `stop` closes all three. */
async function served(store: TripleStore, options: Parameters<typeof serveSparql>[1] = {}) {
  const server = await serveSparql(store, options);
  const client = openRemoteStore({ queryUrl: server.url });
  return { server, client, stop: async () => (await client.close(), await server.close(), await store.close()) };
}

const CAS = (g: string, from: string, to: string): string =>
  `DELETE { GRAPH <${g}> { <urn:s> <urn:p> "${from}" } } INSERT { GRAPH <${g}> { <urn:s> <urn:p> "${to}" } } WHERE { GRAPH <${g}> { <urn:s> <urn:p> "${from}" } }`;

const whereAsk = (update: string, using?: Parameters<typeof planUpdate>[1]): string | undefined => planUpdate(update, using).whereAsk;
/**
 * A query's parse tree, for comparing what a generated text means rather than how it is spelled
 * (prefixed names are expanded in it, so which prefixes were declared does not count).
 */
const tree = (text: string): unknown => ({ ...new sparqljs.Parser().parse(text), prefixes: {} });

describe('SPARQL server parsing (sparqljs)', () => {
  it('should tell the form of a query after its prologue and comments, and whether it names a dataset', () => {
    expect(parseQuery('PREFIX a: <urn:a#> BASE <urn:b> # SELECT\n ask { ?s ?p ?o }')).toEqual({ form: 'ASK', namesDataset: false });
    expect(parseQuery('select * {}').form).toBe('SELECT');
    expect(parseQuery('PREFIX : <urn:x> CONSTRUCT WHERE { ?s ?p ?o }').form).toBe('CONSTRUCT');
    expect(parseQuery('DESCRIBE <urn:x>').form).toBe('DESCRIBE');
    expect(parseQuery('SELECT * FROM <urn:g> { ?s ?p ?o }').namesDataset).toBe(true);
    expect(parseQuery('SELECT * FROM NAMED <urn:g> { GRAPH ?g { ?s ?p ?o } }').namesDataset).toBe(true);
    expect(() => parseQuery('prefix:x')).toThrow('malformed SPARQL query: ');
    expect(() => parseQuery('SELEC ?x')).toThrow('malformed SPARQL query: ');
    expect(() => parseQuery('INSERT DATA { <urn:a> <urn:b> <urn:c> }')).toThrow('this is an update');
  });

  it('should make the ASK of a DELETE/INSERT WHERE, keeping base and dataset', () => {
    expect(tree(whereAsk(CAS('urn:g', 'a', 'b'))!)).toEqual(tree('ASK WHERE { GRAPH <urn:g> { <urn:s> <urn:p> "a" } }'));
    expect(tree(whereAsk('PREFIX ex: <urn:ex:>\nINSERT { ex:s ex:p 1 } WHERE { ex:s ex:q 2 } ;')!)).toEqual(
      tree('ASK WHERE { <urn:ex:s> <urn:ex:q> 2 }'),
    );
    expect(tree(whereAsk('WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }')!)).toEqual(tree('ASK FROM <urn:g> WHERE { ?s ?p ?o }'));
    expect(
      tree(whereAsk('PREFIX ex: <urn:ex:> WITH <urn:g> DELETE { ?s ?p ?o } USING <urn:h> USING NAMED ex:i WHERE { ?s ?p ?o }')!),
    ).toEqual(tree('ASK FROM <urn:h> FROM NAMED <urn:ex:i> WHERE { ?s ?p ?o }'));
    expect(tree(whereAsk('DELETE WHERE { GRAPH <urn:g> { ?s <urn:p> "}" } }')!)).toEqual(
      tree('ASK WHERE { GRAPH <urn:g> { ?s <urn:p> "}" } }'),
    );
    expect(tree(whereAsk('BASE <urn:b/> INSERT {} WHERE { FILTER(?a<?b) # } comment\n }')!)).toEqual(
      tree('BASE <urn:b/> ASK WHERE { FILTER(?a<?b) }'),
    );
  });

  it("should apply the protocol's USING graphs, and refuse them beside USING or WITH", () => {
    const using = { defaultGraphs: ['urn:h'], namedGraphs: ['urn:n'] };
    const plan = planUpdate('DELETE WHERE { ?s <urn:p> "a" }', using);
    expect(tree(plan.text)).toEqual(tree('DELETE { ?s <urn:p> "a" } USING <urn:h> USING NAMED <urn:n> WHERE { ?s <urn:p> "a" }'));
    expect(tree(plan.whereAsk!)).toEqual(tree('ASK FROM <urn:h> FROM NAMED <urn:n> WHERE { ?s <urn:p> "a" }'));
    expect(() => planUpdate('WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }', using)).toThrow(
      'cannot be given for an update that has USING or WITH',
    );
    expect(planUpdate('INSERT DATA { <urn:s> <urn:p> "x" }', using)).toEqual({ text: 'INSERT DATA { <urn:s> <urn:p> "x" }' });
  });

  it('should leave updates without a WHERE unparsed, and give no ASK for several operations', () => {
    for (const update of [
      'INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "x" } }',
      'DELETE DATA { GRAPH <urn:g> { <urn:s> <urn:p> "x" } }',
      'DROP SILENT GRAPH <urn:g>',
      `${CAS('urn:g', 'a', 'b')} ; ${CAS('urn:g', 'b', 'c')}`,
    ]) {
      expect(planUpdate(update)).toEqual({ text: update });
    }
    for (const update of [
      'INSERT { <urn:s> <urn:p> "x } WHERE {}',
      'DELETE { <urn:s> <urn:p> """never closed } WHERE {}',
      'WITH DELETE { } WHERE { }',
    ]) {
      expect(() => planUpdate(update)).toThrow('malformed SPARQL update: ');
    }
  });

  it('should find the WHERE of any serialized literal, hostile or random', () => {
    const check = (text: string): void => {
      const lit = sparqlLiteral(literal(text));
      const where = `{ GRAPH <urn:g> { <urn:s> <urn:p> ${lit} . FILTER(STR(${lit}) != "{") } }`;
      const ask = whereAsk(
        `DELETE { GRAPH <urn:g> { <urn:s> <urn:p> ${lit} } } INSERT { GRAPH <urn:g> { <urn:s> <urn:q> '}' } } WHERE ${where}`,
      );
      expect(tree(ask!)).toEqual(tree(`ASK WHERE ${where}`));
    };
    HOSTILE_STRINGS.forEach(check);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => check(text)),
      { numRuns: 300 },
    );
  });

  it("should negotiate the answer format by quality, then by the server's order", () => {
    const chosen = (accept: string | undefined): string => negotiate(accept, RESULT_FORMATS).mediaTypes[0]!;
    expect(chosen(undefined)).toBe('application/sparql-results+json');
    expect(chosen('*/*')).toBe('application/sparql-results+json');
    expect(chosen('text/csv;q=0.5, application/sparql-results+xml')).toBe('application/sparql-results+xml');
    expect(chosen('text/*')).toBe('text/csv');
    expect(chosen('application/json')).toBe('application/sparql-results+json');
    expect(chosen('*/*;q=0.1, text/tab-separated-values')).toBe('text/tab-separated-values');
    expect(() => chosen('text/turtle')).toThrow('available: application/sparql-results+json, application/sparql-results+xml, text/csv');
    expect(() => chosen('application/sparql-results+json;q=0')).toThrow('none of the accepted media types');
  });
});

const cleanups: (() => Promise<void>)[] = [];
describeTripleStore(
  'served embedded store through the remote store',
  async () => {
    const { server, client } = await served(await openEmbeddedStore());
    cleanups.push(() => server.close());
    return client;
  },
  async () => {
    await Promise.all(cleanups.splice(0).map((c) => c()));
  },
);

const ENDPOINT = process.env.SPARQL_ENDPOINT;
(ENDPOINT ? describe : describe.skip)('Virtuoso served through the remote store (SPARQL_ENDPOINT)', () => {
  const proxied: (() => Promise<void>)[] = [];
  describeTripleStore(
    'served Virtuoso through the remote store',
    async () => {
      const { server, client } = await served(openRemoteStore({ queryUrl: ENDPOINT! }));
      proxied.push(() => server.close());
      return client;
    },
    async () => {
      await Promise.all(proxied.splice(0).map((c) => c()));
    },
  );
});

describe('SPARQL server protocol', () => {
  let s: Awaited<ReturnType<typeof served>>;
  const lines: Record<string, unknown>[] = [];
  const post = (type: string, body: string, path = '/sparql', headers: Record<string, string> = {}) =>
    fetch(new URL(path, s.server.url), { method: 'POST', headers: { 'content-type': type, ...headers }, body });

  it('should start on a free loopback port', async () => {
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    s = await served(await openEmbeddedStore(), { logger, bodyLimitBytes: 4096 });
    expect(s.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sparql$/u);
  });

  it('should answer GET and direct POST queries as SPARQL JSON', async () => {
    expect(await s.client.update('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "queued"@en, 5 } }')).toBeUndefined();
    const ask = await fetch(`${s.server.url}?query=${encodeURIComponent('ASK { GRAPH <urn:g> { <urn:s> <urn:p> 5 } }')}`);
    expect(ask.headers.get('content-type')).toBe('application/sparql-results+json');
    expect(await ask.json()).toEqual({ head: {}, boolean: true });
    const select = await post('application/sparql-query', 'SELECT ?o WHERE { GRAPH <urn:g> { ?s ?p ?o } } ORDER BY ?o');
    expect(await select.json()).toEqual({
      head: { vars: ['o'] },
      results: {
        bindings: [
          { o: { type: 'literal', value: '5', datatype: 'http://www.w3.org/2001/XMLSchema#integer' } },
          { o: { type: 'literal', value: 'queued', 'xml:lang': 'en' } },
        ],
      },
    });
  });

  it('should answer 204 to a plain update and a report to a DELETE/INSERT WHERE', async () => {
    const plain = await post('application/sparql-update', 'INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "a" } }');
    expect(plain.status).toBe(204);
    const applied = await post('application/x-www-form-urlencoded', new URLSearchParams({ update: CAS('urn:g', 'a', 'b') }).toString());
    expect(applied.status).toBe(200);
    expect(updateReport(await applied.text())).toBe(true);
    const missed = await post('application/sparql-update', CAS('urn:g', 'a', 'c'));
    expect(updateReport(await missed.text())).toBe(false);
    expect(await s.client.ask('ASK { GRAPH <urn:g> { <urn:s> <urn:p> "c" } }')).toBe(false);
  });

  it('should read the union of all graphs when a query names none, and honour FROM and the dataset parameters', async () => {
    await s.client.update('INSERT DATA { GRAPH <urn:u1> { <urn:x> <urn:in> "one" } GRAPH <urn:u2> { <urn:x> <urn:in> "two" } }');
    const values = async (res: Response): Promise<string[]> =>
      ((await res.json()) as { results: { bindings: { v: { value: string } }[] } }).results.bindings.map((b) => b.v.value).sort();
    const query = (q: string, extra = '') => fetch(`${s.server.url}?query=${encodeURIComponent(q)}${extra}`);
    expect(await values(await query('SELECT ?v WHERE { <urn:x> <urn:in> ?v }'))).toEqual(['one', 'two']);
    expect(await values(await query('SELECT ?v FROM <urn:u1> WHERE { <urn:x> <urn:in> ?v }'))).toEqual(['one']);
    expect(await values(await query('SELECT ?v WHERE { <urn:x> <urn:in> ?v }', '&default-graph-uri=urn:u2'))).toEqual(['two']);
    // The protocol's parameters win over the query's FROM.
    expect(await values(await query('SELECT ?v FROM <urn:u1> WHERE { <urn:x> <urn:in> ?v }', '&default-graph-uri=urn:u2'))).toEqual([
      'two',
    ]);
    const named = await post(
      'application/sparql-query',
      'SELECT ?v WHERE { GRAPH ?g { <urn:x> <urn:in> ?v } }',
      '/sparql?named-graph-uri=urn:u1',
    );
    expect(await values(named)).toEqual(['one']);
    const form = await post(
      'application/x-www-form-urlencoded',
      new URLSearchParams({ query: 'SELECT ?v WHERE { <urn:x> <urn:in> ?v }', 'default-graph-uri': 'urn:u1' }).toString(),
    );
    expect(await values(form)).toEqual(['one']);
    const formWithUrlDataset = await post(
      'application/x-www-form-urlencoded',
      new URLSearchParams({ query: 'SELECT ?v WHERE { <urn:x> <urn:in> ?v }' }).toString(),
      '/sparql?default-graph-uri=urn:u2',
    );
    expect(await values(formWithUrlDataset)).toEqual(['two']);
  });

  it('should read a form-encoded value exactly as URLSearchParams decodes it, stray and invalid escapes included', async () => {
    const stored = async (body: string): Promise<string | undefined> => {
      await s.client.update('DROP SILENT GRAPH <urn:form>');
      expect((await post('application/x-www-form-urlencoded', body)).status).toBe(204);
      const rows = await s.client.select('SELECT ?v WHERE { GRAPH <urn:form> { <urn:x> <urn:v> ?v } }');
      return rows[0]?.['v']?.value;
    };
    const insert = (value: string) => `INSERT DATA { GRAPH <urn:form> { <urn:x> <urn:v> "${value}" } }`;
    // Spaces as "+" (as URLSearchParams writes them) and as %20, a "+" escaped, non-ASCII text.
    for (const value of ['a+b c', 'ü €😀', '100%', 'x=y&z']) {
      expect(await stored(new URLSearchParams({ update: insert(value) }).toString())).toBe(value);
      expect(await stored(`update=${encodeURIComponent(insert(value))}`)).toBe(value);
    }
    // A stray "%" and an escape of invalid UTF-8, which decodeURIComponent refuses: read as URLSearchParams reads them.
    for (const raw of ['%zz', '%C3%28']) {
      const body = `update=${encodeURIComponent(insert('<>')).replace('%3C%3E', raw)}`;
      expect(await stored(body)).toBe(new URLSearchParams(body).get('update')!.match(/"(.*)"/u)![1]);
    }
  });

  it("should apply using-graph-uri to an update's WHERE", async () => {
    const update = 'INSERT { GRAPH <urn:u3> { <urn:x> <urn:copied> ?v } } WHERE { <urn:x> <urn:in> ?v }';
    const res = await post('application/sparql-update', update, '/sparql?using-graph-uri=urn:u2');
    expect(updateReport(await res.text())).toBe(true);
    const copied = await s.client.select('SELECT ?v WHERE { GRAPH <urn:u3> { <urn:x> <urn:copied> ?v } }');
    expect(copied.map((row) => row['v']?.value)).toEqual(['two']);
    // Without USING the WHERE reads the store's default graph, which holds nothing.
    const unmatched = await post('application/x-www-form-urlencoded', new URLSearchParams({ update }).toString());
    expect(updateReport(await unmatched.text())).toBe(false);
  });

  it('should answer every query form in the format Accept asks for', async () => {
    const ask = (accept: string) => post('application/sparql-query', 'ASK { <urn:x> <urn:in> "one" }', '/sparql', { accept });
    const formats: [string, string, string][] = [
      ['application/sparql-results+xml', 'application/sparql-results+xml', '<boolean>true</boolean>'],
      ['text/csv', 'text/csv; charset=utf-8', 'true'],
      ['text/tab-separated-values', 'text/tab-separated-values; charset=utf-8', 'true'],
      ['*/*', 'application/sparql-results+json', '"boolean":true'],
    ];
    for (const [accept, type, body] of formats) {
      const res = await ask(accept);
      expect({ type: res.headers.get('content-type'), vary: res.headers.get('vary'), body: await res.text() }).toEqual({
        type,
        vary: 'Accept',
        body: expect.stringContaining(body),
      });
    }
    const select = await post('application/sparql-query', 'SELECT ?v WHERE { <urn:x> <urn:in> ?v } ORDER BY ?v', '/sparql', {
      accept: 'text/csv',
    });
    expect(await select.text()).toBe('v\r\none\r\ntwo\r\n');
    const construct = 'CONSTRUCT { ?s <urn:out> ?v } WHERE { ?s <urn:in> ?v }';
    const turtle = await post('application/sparql-query', construct);
    expect(turtle.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    expect(await turtle.text()).toMatch(/<urn:x> <urn:out> "(one|two)" , "(one|two)" \.\n/u);
    const ntriples = await fetch(`${s.server.url}?query=${encodeURIComponent(construct)}`, {
      headers: { accept: 'application/n-triples' },
    });
    expect((await ntriples.text()).split('\n').sort()).toEqual(['', '<urn:x> <urn:out> "one" .', '<urn:x> <urn:out> "two" .']);
    const describe = await post('application/sparql-query', 'DESCRIBE <urn:x>', '/sparql', { accept: 'application/ld+json' });
    expect(describe.headers.get('content-type')).toBe('application/ld+json');
    expect(JSON.stringify(await describe.json())).toContain('urn:copied');
  });

  it('should refuse bad requests with the status and a message naming the problem', async () => {
    const cases: [Promise<Response>, number, string][] = [
      [post('application/sparql-query', 'SELEC ?x'), 400, 'malformed SPARQL query: Parse error on line 1'],
      [post('application/sparql-update', 'INSERT DATA { <urn:a> }'), 400, 'malformed SPARQL update: error at 1:'],
      [post('application/sparql-update', 'DELETE { <urn:a> ?p ?o } WHERE { <urn:a> ?p }'), 400, 'malformed SPARQL update: Parse error'],
      [post('application/sparql-query', 'ASK {}', '/sparql', { accept: 'text/turtle' }), 406, 'available: application/sparql-results+json'],
      [post('text/plain', 'ASK {}'), 415, 'content type "text/plain" is not accepted'],
      [post('application/sparql-query', `ASK { ${' '.repeat(5000)} }`), 413, 'larger than 4096 bytes'],
      [post('application/x-www-form-urlencoded', 'query=ASK%7B%7D&update=x'), 400, 'exactly one "query" or "update"'],
      [post('application/x-www-form-urlencoded', 'nothing=here'), 400, 'expected a "query" or an "update"'],
      [fetch(`${s.server.url}?update=${encodeURIComponent('DROP ALL')}`), 400, 'must be POSTed'],
      [fetch(`${s.server.url}?query=ASK%7B%7D&using-graph-uri=urn:g`), 400, 'parameter "using-graph-uri" belongs to an update'],
      [fetch(`${s.server.url}?query=ASK%7B%7D&default-graph-uri=g`), 400, 'parameter "default-graph-uri" "g" is not an absolute IRI'],
      [fetch(s.server.url, { method: 'PUT', body: 'x' }), 405, 'method PUT is not allowed'],
      [post('application/sparql-query', 'ASK {}', '/query'), 404, 'the SPARQL endpoint is /sparql'],
    ];
    for (const [request, status, message] of cases) {
      const res = await request;
      expect({ status: res.status, body: await res.text() }).toEqual({ status, body: expect.stringContaining(message) });
    }
    expect(await s.client.ask('ASK { GRAPH <urn:g> { <urn:a> ?p ?o } }')).toBe(false);
  });

  it('should log every request at debug with its kind and status', async () => {
    const requests = lines.filter((l) => l.msg === 'sparql request');
    expect(requests.length).toBeGreaterThan(10);
    expect(requests).toContainEqual(expect.objectContaining({ level: 20, kind: 'update', status: 204 }));
    expect(requests).toContainEqual(expect.objectContaining({ level: 20, kind: 'query', status: 400 }));
    await s.stop();
    await expect(fetch(s.server.url)).rejects.toThrow();
  });

  it('should answer 500 without the internal message when the store fails unexpectedly', async () => {
    const broken = {
      description: 'broken',
      requestCount: 0,
      select: () => Promise.reject(new Error('secret internal detail')),
    } as unknown as TripleStore;
    const logged: Record<string, unknown>[] = [];
    const server = await serveSparql(broken, {
      logger: pino({ level: 'error' }, { write: (l: string) => void logged.push(JSON.parse(l) as Record<string, unknown>) }),
    });
    const res = await fetch(`${server.url}?query=SELECT%20*%20%7B%7D`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('secret');
    expect(logged[0]).toMatchObject({ msg: 'sparql request failed', status: 500, err: { message: 'secret internal detail' } });
    await server.close();
  });
});

describe('SPARQL server compare-and-set', () => {
  it('should let exactly one of two remote OGMs claim each Operation', async () => {
    const store = await openEmbeddedStore();
    await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
    const { server, client, stop } = await served(store);
    const other = openRemoteStore({ queryUrl: server.url });
    const [a, b] = [new OGM({ store: client }), new OGM({ store: other })];
    const capabilityIri = mintCapabilityIri(plant.door1, 'open');
    await a.create({ iri: capabilityIri, type: plant.DoorOpeningCapability });
    for (let i = 0; i < 10; i++) {
      const operationIri = mintOperationIri(plant.OpenDoorOperation);
      await createOperation(a, { operationIri, operationClass: plant.OpenDoorOperation, capabilityIri });
      const results = await Promise.allSettled(
        [a, b].map((ogm) => setOperationStatus(ogm, { operationIri, status: OperationStatus.RUNNING })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(TransitionConflictError);
    }
    const running = await client.select(
      `SELECT (COUNT(?op) AS ?n) WHERE { GRAPH ?g { ?op <${cfc.implementsCapability}> <${capabilityIri}> ; <${svc.operationStatus}> "running" } }`,
    );
    expect(Number(running[0]?.['n']?.value)).toBe(10);
    await other.close();
    await stop();
  });
});

describe('SPARQL server deployment', () => {
  it('should make acknowledged updates durable in the served data dir', async () => {
    const dir = tempDir();
    const { client, stop } = await served(await openEmbeddedStore({ dataDir: dir }));
    await client.update('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "a" } }');
    expect(await client.conditionalUpdate(CAS('urn:g', 'a', 'b'), { before: 'ASK {}', after: 'ASK {}' })).toBe(true);
    await stop();
    const reopened = await openEmbeddedStore({ dataDir: dir });
    expect(await reopened.ask('ASK { GRAPH <urn:g> { <urn:s> <urn:p> "b" } }')).toBe(true);
    await reopened.close();
  });

  it('should require the token when one is set, as basic-auth password or Bearer token', async () => {
    const token = 'correct horse battery staple';
    const { server, stop } = await served(await openEmbeddedStore(), { token });
    const anonymous = await fetch(`${server.url}?query=ASK%7B%7D`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('Basic');
    expect(await anonymous.text()).toContain('needs the store token');
    const error = await openRemoteStore({ queryUrl: server.url, user: 'x', password: 'wrong password' })
      .ask('ASK {}')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).httpStatus).toBe(401);
    expect(await openRemoteStore({ queryUrl: server.url, user: 'sidecar', password: token }).ask('ASK {}')).toBe(true);
    const bearer = await fetch(`${server.url}?query=ASK%7B%7D`, { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    await stop();
  });

  it('should listen on a Unix socket, replacing a stale one and removing it on close', async () => {
    const socketPath = join(tempDir(), 'store.sock');
    // A process killed while listening leaves its socket file behind.
    const holder = spawn(process.execPath, [
      '-e',
      'require("net").createServer().listen(process.argv[1], () => console.log("up"))',
      socketPath,
    ]);
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(existsSync(socketPath)).toBe(true);
    const store = await openEmbeddedStore();
    const server: SparqlServer = await serveSparql(store, { socketPath });
    expect(server.url).toBe(`http+unix://${encodeURIComponent(socketPath)}/sparql`);
    const dispatcher = new Agent({ connect: { socketPath } });
    const res = await undiciFetch(`http://localhost/sparql?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`, { dispatcher });
    expect(await res.json()).toEqual({ head: {}, boolean: false });
    await dispatcher.close();
    await server.close();
    await store.close();
    expect(existsSync(socketPath)).toBe(false);
  });

  it('should refuse an address in use and bad options, naming them', async () => {
    const store = await openEmbeddedStore();
    const first = await serveSparql(store);
    const port = Number(new URL(first.url).port);
    await expect(serveSparql(store, { port })).rejects.toThrow(`127.0.0.1:${port} is already in use`);
    await expect(serveSparql(store, { port: 70_000 })).rejects.toThrow('port must be an integer from 0 to 65535, got 70000');
    await expect(serveSparql(store, { token: 'short' })).rejects.toThrow('token must hold at least 8 characters');
    await first.close();
    await store.close();
  });
});
