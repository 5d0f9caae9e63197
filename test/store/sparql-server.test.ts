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
import { queryForm, updateWhereAsk } from '../../src/store/sparql-server-scan.js';
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

describe('SPARQL server scanner', () => {
  it('should tell the form of a query after its prologue and comments', () => {
    expect(queryForm('PREFIX a: <urn:a#> BASE <urn:b> # SELECT\n ask { ?s ?p ?o }')).toBe('ASK');
    expect(queryForm('select * {}')).toBe('SELECT');
    expect(queryForm('PREFIX : <urn:x> CONSTRUCT WHERE { ?s ?p ?o }')).toBe('CONSTRUCT');
    expect(queryForm('DESCRIBE <urn:x>')).toBe('DESCRIBE');
    expect(queryForm('prefix:x')).toBeUndefined();
    expect(queryForm('SELEC ?x')).toBeUndefined();
  });

  it('should make the ASK of a DELETE/INSERT WHERE, keeping prologue and dataset', () => {
    expect(updateWhereAsk(CAS('urn:g', 'a', 'b'))).toBe('ASK WHERE { GRAPH <urn:g> { <urn:s> <urn:p> "a" } }');
    expect(updateWhereAsk('PREFIX ex: <urn:ex:>\nINSERT { ex:s ex:p 1 } WHERE { ex:s ex:q 2 } ;')).toBe(
      'PREFIX ex: <urn:ex:>\nASK WHERE { ex:s ex:q 2 }',
    );
    expect(updateWhereAsk('WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }')).toBe('ASK FROM <urn:g> WHERE { ?s ?p ?o }');
    expect(updateWhereAsk('WITH <urn:g> DELETE { ?s ?p ?o } USING <urn:h> USING NAMED ex:i WHERE { ?s ?p ?o }')).toBe(
      'ASK FROM <urn:h> FROM NAMED ex:i WHERE { ?s ?p ?o }',
    );
    expect(updateWhereAsk('DELETE WHERE { GRAPH <urn:g> { ?s <urn:p> "}" } }')).toBe('ASK WHERE { GRAPH <urn:g> { ?s <urn:p> "}" } }');
    expect(updateWhereAsk('INSERT {} WHERE { FILTER(?a<?b) # } comment\n }')).toBe('ASK WHERE { FILTER(?a<?b) # } comment\n }');
  });

  it('should give up on updates without a WHERE, several operations and unbalanced text', () => {
    for (const update of [
      'INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "x" } }',
      'DELETE DATA { GRAPH <urn:g> { <urn:s> <urn:p> "x" } }',
      'DROP SILENT GRAPH <urn:g>',
      `${CAS('urn:g', 'a', 'b')} ; ${CAS('urn:g', 'b', 'c')}`,
      'INSERT { <urn:s> <urn:p> "x } WHERE {}',
      'DELETE { <urn:s> <urn:p> """never closed } WHERE {}',
      'WITH DELETE { } WHERE { }',
    ]) {
      expect(updateWhereAsk(update)).toBeUndefined();
    }
  });

  it('should find the WHERE of any serialized literal, hostile or random', () => {
    const check = (text: string): void => {
      const lit = sparqlLiteral(literal(text));
      const where = `{ GRAPH <urn:g> { <urn:s> <urn:p> ${lit} . FILTER(STR(${lit}) != "{") } }`;
      expect(
        updateWhereAsk(
          `DELETE { GRAPH <urn:g> { <urn:s> <urn:p> ${lit} } } INSERT { GRAPH <urn:g> { <urn:s> <urn:q> '}' } } WHERE ${where}`,
        ),
      ).toBe(`ASK WHERE ${where}`);
    };
    HOSTILE_STRINGS.forEach(check);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => check(text)),
      { numRuns: 300 },
    );
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
  const post = (type: string, body: string, path = '/sparql') =>
    fetch(new URL(path, s.server.url), { method: 'POST', headers: { 'content-type': type }, body });

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

  it('should refuse bad requests with the status and a message naming the problem', async () => {
    const cases: [Promise<Response>, number, string][] = [
      [post('application/sparql-query', 'SELEC ?x'), 400, 'malformed SPARQL query: error at 1:'],
      [post('application/sparql-update', 'INSERT DATA { <urn:a> }'), 400, 'malformed SPARQL update: error at 1:'],
      [post('application/sparql-query', 'CONSTRUCT WHERE { ?s ?p ?o }'), 400, 'CONSTRUCT queries are not served here'],
      [post('text/plain', 'ASK {}'), 415, 'content type "text/plain" is not accepted'],
      [post('application/sparql-query', `ASK { ${' '.repeat(5000)} }`), 413, 'larger than 4096 bytes'],
      [post('application/x-www-form-urlencoded', 'query=ASK%7B%7D&update=x'), 400, 'exactly one "query" or "update"'],
      [post('application/x-www-form-urlencoded', 'nothing=here'), 400, 'expected a "query" or an "update"'],
      [fetch(`${s.server.url}?update=${encodeURIComponent('DROP ALL')}`), 400, 'must be POSTed'],
      [fetch(`${s.server.url}?query=ASK%7B%7D&default-graph-uri=urn:g`), 400, 'parameter "default-graph-uri" is not supported'],
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
