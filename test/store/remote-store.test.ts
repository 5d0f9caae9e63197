import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Parser } from 'n3';
import { StoreError } from '../../src/errors.js';
import { LIMITS } from '../../src/limits.js';
import { chunkByBlankNodes, openRemoteStore, updateReport, type RemoteStore } from '../../src/store/remote-store.js';
import { describeTripleStore } from '../support/store-suite.js';

const ENDPOINT = process.env.SPARQL_ENDPOINT;

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A real HTTP server on a loopback port chosen by the OS; `requests` records what it received. */
async function withServer(handler: Handler) {
  const requests: { headers: IncomingMessage['headers']; body: string; method: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body, method: req.method ?? '' });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}/sparql`, port, requests, close };
}

const json = (res: ServerResponse, doc: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/sparql-results+json' });
  res.end(JSON.stringify(doc));
};

async function storeError(promise: Promise<unknown>): Promise<StoreError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    return err as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('remote store against loopback servers', () => {
  let server: Awaited<ReturnType<typeof withServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('should name the endpoint, the HTTP status and the start of the body on a 500', async () => {
    server = await withServer((_req, _body, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`boom: internal trouble\n${'x'.repeat(5000)}`);
    });
    const store = openRemoteStore({ queryUrl: server.url });
    const err = await storeError(store.select('SELECT * WHERE { ?s ?p ?o }'));
    expect(err.code).toBe('SM_STORE');
    expect(err.httpStatus).toBe(500);
    expect(err.endpoint).toBe(server.url);
    expect(err.message).toContain(server.url);
    expect(err.message).toContain('500');
    expect(err.message).toContain('boom: internal trouble');
    expect(err.message.length).toBeLessThan(600);
    expect(store.requestCount).toBe(1);
  });

  it('should send a deadlock victim again, counting one request and one retry', async () => {
    let failures = 2;
    server = await withServer((_req, _body, res) => {
      if (failures-- > 0) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('Virtuoso 40001 Error SR172: Transaction deadlocked');
      } else json(res, { head: {}, boolean: true });
    });
    const store = openRemoteStore({ queryUrl: server.url });
    expect(await store.ask('ASK {}')).toBe(true);
    expect(server.requests).toHaveLength(3);
    expect(store.requestCount).toBe(1);
    expect(store.retriedRequests).toBe(2);
  });

  it('should give up on a request deadlocked every time after LIMITS.storeDeadlockRetries sends, waiting longer each time, and say so', async () => {
    const sentAt: number[] = [];
    server = await withServer((_req, _body, res) => {
      sentAt.push(performance.now());
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Virtuoso 40001 Error SR172: Transaction deadlocked');
    });
    const store = openRemoteStore({ queryUrl: server.url });
    const err = await storeError(store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> <urn:c> } }'));
    expect(server.requests).toHaveLength(LIMITS.storeDeadlockRetries);
    expect(err).toMatchObject({ code: 'SM_STORE', httpStatus: 500, endpoint: server.url });
    expect(err.message).toContain('Transaction deadlocked');
    expect(err.message).toContain(`sent ${LIMITS.storeDeadlockRetries} times, rolled back as a deadlock victim each time`);
    expect([store.requestCount, store.retriedRequests, store.failedRequests]).toEqual([1, LIMITS.storeDeadlockRetries - 1, 1]);
    // Each wait is drawn below a ceiling that doubles: all of them together stay under the ceilings' sum.
    const ceilings = Array.from({ length: LIMITS.storeDeadlockRetries - 1 }, (_, i) =>
      Math.min(LIMITS.storeDeadlockBackoffMs * 2 ** i, LIMITS.storeDeadlockBackoffMaxMs),
    );
    const waited = sentAt.at(-1)! - sentAt[0]!;
    expect(waited).toBeLessThan(ceilings.reduce((a, b) => a + b) + 1_000);
    // Random, but with ceilings up to 1 s: seven waits under 20 ms in all would happen about once in ten million runs.
    expect(waited).toBeGreaterThan(LIMITS.storeDeadlockBackoffMs);
  });

  it('should give up after timeoutMs on a server that never answers, naming endpoint and timeout', async () => {
    server = await withServer(() => undefined);
    const store = openRemoteStore({ queryUrl: server.url, timeoutMs: 200 });
    const started = Date.now();
    const err = await storeError(store.ask('ASK {}'));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err.message).toContain(server.url);
    expect(err.message).toContain('200 ms');
    expect(err.httpStatus).toBeUndefined();
  });

  it('should time out a body that stops half-way', async () => {
    server = await withServer((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
      res.write('{"head":{"vars":[]},');
    });
    const store = openRemoteStore({ queryUrl: server.url, timeoutMs: 200 });
    const err = await storeError(store.select('SELECT * {}'));
    expect(err.message).toContain('200 ms');
  });

  it('should report a socket closed by the server as a StoreError naming the endpoint', async () => {
    server = await withServer((req) => req.socket.destroy());
    const store = openRemoteStore({ queryUrl: server.url });
    const err = await storeError(store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> <urn:c> } }'));
    expect(err.message).toContain(`request to ${server.url} failed`);
  });

  it('should send basic auth, a query form-encoded and an update as its own body, and ask for SPARQL JSON', async () => {
    server = await withServer((req, _body, res) => {
      if (req.headers.authorization !== `Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`) {
        res.writeHead(401).end('who are you?');
        return;
      }
      json(res, { head: { vars: ['s'] }, results: { bindings: [{ s: { type: 'uri', value: 'urn:x' } }] } });
    });
    const store = openRemoteStore({ queryUrl: server.url, user: 'alice', password: 's3cret-pw' });
    await expect(store.select('SELECT ?s WHERE { ?s ?p ?o }')).resolves.toEqual([{ s: { termType: 'NamedNode', value: 'urn:x' } }]);
    const [sent] = server.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sent?.headers.accept).toBe('application/sparql-results+json');
    expect(new URLSearchParams(sent?.body).get('query')).toBe('SELECT ?s WHERE { ?s ?p ?o }');
    // A lone surrogate, which no UTF-8 text can carry, goes as U+FFFD.
    await store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> "é+%20&update=x \uD800" } }');
    const update = server.requests[1];
    expect(update?.method).toBe('POST');
    expect(update?.headers['content-type']).toBe('application/sparql-update');
    expect(update?.headers.accept).toBe('application/sparql-results+json');
    expect(update?.headers.authorization).toBe(sent?.headers.authorization);
    expect(update?.body).toBe('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> "é+%20&update=x \uFFFD" } }');
  });

  it('should take credentials out of the URL and keep them out of description and errors', async () => {
    server = await withServer((req, _body, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end(`denied for ${req.headers.authorization ?? ''} (s3cret-pw)`);
    });
    const withCreds = server.url.replace('http://', 'http://alice:s3cret-pw@');
    const store = openRemoteStore({ queryUrl: withCreds });
    expect(store.description).toContain(server.url);
    expect(store.description).not.toMatch(/alice|s3cret/u);
    expect(store.queryUrl).toBe(server.url);
    const err = await storeError(store.ask('ASK {}'));
    expect(err.message).toContain('403');
    expect(err.message).not.toContain('s3cret-pw');
    expect(err.endpoint).toBe(server.url);
    expect(server.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`);
  });

  it('should read Virtuoso-shaped and standard ASK answers', async () => {
    const answers = [
      { head: { vars: ['__ASK_RETVAL'] }, results: { bindings: [{ __ASK_RETVAL: { type: 'typed-literal', value: '1' } }] } },
      { head: { vars: ['__ASK_RETVAL'] }, results: { bindings: [] } },
      { head: {}, boolean: true },
      { head: {}, boolean: false },
    ];
    server = await withServer((_req, _body, res) => json(res, answers.shift()));
    const store = openRemoteStore({ queryUrl: server.url });
    expect(await store.ask('ASK {}')).toBe(true);
    expect(await store.ask('ASK {}')).toBe(false);
    expect(await store.ask('ASK {}')).toBe(true);
    expect(await store.ask('ASK {}')).toBe(false);
  });

  it('should fall back to the after-ASK when the update answer carries no report (204)', async () => {
    server = await withServer((_req, body, res) => {
      if (!body.startsWith('query=')) res.writeHead(204).end();
      else json(res, { head: {}, boolean: true });
    });
    const updateUrl = server.url.replace('/sparql', '/update');
    const store = openRemoteStore({ queryUrl: server.url, updateUrl });
    const applied = await store.conditionalUpdate('DELETE {..} INSERT {..} WHERE {..}', { before: 'ASK {1}', after: 'ASK {2}' });
    expect(applied).toBe(true);
    expect(store.requestCount).toBe(2);
    expect(server.requests[0]?.body).toBe('DELETE {..} INSERT {..} WHERE {..}');
    expect(new URLSearchParams(server.requests[1]?.body).get('query')).toBe('ASK {2}');
    expect(store.description).toContain(updateUrl);
  });

  it('should send queries to a Virtuoso server with the no-read-lock pragma, and updates without it', async () => {
    const sent = (i: number) => new URLSearchParams(server?.requests[i]?.body);
    for (const name of ['Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu', 'Apache Jena Fuseki (5.1.0)']) {
      server = await withServer((_req, _body, res) => {
        res.writeHead(200, { 'content-type': 'application/sparql-results+json', server: name });
        res.end(JSON.stringify({ head: { vars: [] }, results: { bindings: [] } }));
      });
      const store = openRemoteStore({ queryUrl: server.url });
      expect(store.readsMayTear).toBe(false);
      await store.ask('ASK { ?s ?p ?o }'); // the first answer names the server
      // Reads without locks may see part of a write that commits meanwhile: waiters read twice.
      expect(store.readsMayTear).toBe(name.startsWith('Virtuoso'));
      await store.ask('PREFIX ex: <urn:ex:> ASK { ?s ex:p ?o }');
      await store.select('SELECT ?s WHERE { ?s ?p ?o }');
      await store.update('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> <urn:o> } }');
      const pragma = name.startsWith('Virtuoso') ? 'define sql:table-option "isolation read committed" ' : '';
      expect(sent(0).get('query')).toBe('ASK { ?s ?p ?o }');
      expect(sent(1).get('query')).toBe(`${pragma}PREFIX ex: <urn:ex:> ASK { ?s ex:p ?o }`);
      expect(sent(2).get('query')).toBe(`${pragma}SELECT ?s WHERE { ?s ?p ?o }`);
      expect(server.requests[3]?.body).toBe('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> <urn:o> } }');
      await store.close();
      await server.close();
      server = undefined;
    }
  });

  it('should refuse calls after close', async () => {
    const store = openRemoteStore({ queryUrl: 'http://127.0.0.1:9/sparql' });
    await store.close();
    await expect(store.ask('ASK {}')).rejects.toThrow(/closed/u);
  });
});

describe('Virtuoso update reports', () => {
  const report = (text: string) =>
    JSON.stringify({ head: { vars: ['callret-0'] }, results: { bindings: [{ 'callret-0': { type: 'literal', value: text } }] } });

  it.each([
    ['Modify <urn:g:1>, delete 1 (or less) and insert 1 (or less) triples -- done', true],
    ['Modify <urn:g:1>, delete 0 (or less) and insert 0 (or less) triples -- done', false],
    ['Insert into <urn:g:1>, 0 triples -- nothing to do', false],
    ['Insert into <urn:g:1>, 2 (or less) triples -- done', true],
    ['Delete from <urn:g:1>, 0 triples -- nothing to do', false],
    ['Delete 1 (or less) quads -- done\nInsert into <urn:g:2>, 1 (or less) quads -- done', true],
    ['Delete from <urn:g:9>, 0 quads -- nothing to do\nInsert into <urn:g:9>, 0 quads -- nothing to do', false],
  ])('should read %j as applied=%s', (text, applied) => {
    expect(updateReport(report(text))).toBe(applied);
  });

  it.each(['', 'OK', '<html>done</html>', report('Clear graph <urn:g:1> -- done'), report('something else')])(
    'should not guess from %j',
    (body) => expect(updateReport(body)).toBeUndefined(),
  );

  it('should read every report right when it has read it before, past the cache bound and for long ones', () => {
    const texts = Array.from(
      { length: LIMITS.updateReportCacheEntries * 2 + 3 },
      (_, i) => [`Modify <urn:g:${i}>, delete ${i % 2} (or less) and insert ${i % 2} (or less) triples -- done`, i % 2 === 1] as const,
    );
    const long = `Insert into <urn:g:${'x'.repeat(LIMITS.updateReportCacheChars)}>, 1 (or less) triples -- done`;
    for (let round = 0; round < 3; round++) {
      for (const [text, applied] of texts) expect(updateReport(report(text))).toBe(applied);
      expect(updateReport(report(long))).toBe(true);
      expect(updateReport(report('Clear graph <urn:g:1> -- done'))).toBeUndefined();
    }
  });
});

describe('chunkByBlankNodes', () => {
  const quads = (ttl: string) => new Parser().parse(ttl);

  it('should keep triples connected through blank nodes in one chunk', () => {
    const doc = quads(`
      <urn:a> <urn:p> <urn:1> . <urn:a> <urn:p> <urn:2> .
      <urn:d> <urn:domain> [ <urn:unionOf> ( <urn:A> <urn:B> <urn:C> ) ] .
      <urn:a> <urn:p> <urn:3> .`);
    const chunks = chunkByBlankNodes(doc, 2);
    expect(chunks.flat()).toHaveLength(doc.length);
    const withBlank = chunks.filter((c) => c.some((q) => q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode'));
    expect(withBlank).toHaveLength(1);
    expect(withBlank[0]).toHaveLength(8); // domain link + unionOf + 3 x (first, rest)
    expect(chunks.every((c) => c.length <= 2 || c === withBlank[0])).toBe(true);
  });

  it('should put all of a small document in one chunk', () => {
    expect(chunkByBlankNodes(quads('<urn:a> <urn:p> _:x . _:x <urn:q> _:y . <urn:b> <urn:p> <urn:c> .'), 10)).toHaveLength(1);
  });
});

/** Virtuoso (or any SPARQL endpoint named by SPARQL_ENDPOINT) for real. */
// The real tests, skipped by name when no endpoint is configured (`eval "$(bash scripts/virtuoso.sh start)"`).
(ENDPOINT ? describe : describe.skip)('a real SPARQL endpoint (SPARQL_ENDPOINT)', () => {
  const queryUrl = ENDPOINT ?? 'http://127.0.0.1:1/unset';
  describeTripleStore(`remote (${queryUrl})`, () => openRemoteStore({ queryUrl }));

  describe(`remote store against ${ENDPOINT}`, () => {
    let store: RemoteStore;
    const graphs: string[] = [];
    const newGraph = () => {
      const g = `urn:sm:test:remote:${randomUUID()}`;
      graphs.push(g);
      return g;
    };
    beforeAll(() => {
      store = openRemoteStore({ queryUrl, timeoutMs: 20_000 });
    });
    afterAll(async () => {
      for (const g of graphs) await store.update(`CLEAR SILENT GRAPH <${g}>`);
      await store.close();
    });

    it('should tell applied from not applied in one request each', async () => {
      const g = newGraph();
      await store.update(`INSERT DATA { GRAPH <${g}> { <urn:op> <urn:status> "queued" } }`);
      const cas = (from: string, to: string) =>
        store.conditionalUpdate(
          `DELETE { GRAPH <${g}> { <urn:op> <urn:status> "${from}" } } INSERT { GRAPH <${g}> { <urn:op> <urn:status> "${to}" } } WHERE { GRAPH <${g}> { <urn:op> <urn:status> "${from}" } }`,
          {
            before: `ASK { GRAPH <${g}> { <urn:op> <urn:status> "${from}" } }`,
            after: `ASK { GRAPH <${g}> { <urn:op> <urn:status> "${to}" } }`,
          },
        );
      let count = store.requestCount;
      expect(await cas('queued', 'running')).toBe(true);
      expect(store.requestCount).toBe(count + 1);
      count = store.requestCount;
      expect(await cas('queued', 'running')).toBe(false);
      expect(store.requestCount).toBe(count + 1);
      expect(await store.ask(`ASK { GRAPH <${g}> { <urn:op> <urn:status> "running" } }`)).toBe(true);
      expect(await store.ask(`ASK { GRAPH <${g}> { <urn:op> <urn:status> "queued" } }`)).toBe(false);
    });

    it('should report a matching WHERE as applied even when its triples were already there', async () => {
      const g = newGraph();
      await store.update(`INSERT DATA { GRAPH <${g}> { <urn:a> <urn:p> "x" } }`);
      const update = `INSERT { GRAPH <${g}> { <urn:a> <urn:p> "x" } } WHERE { GRAPH <${g}> { <urn:a> <urn:p> "x" } }`;
      const count = store.requestCount;
      expect(await store.conditionalUpdate(update, { before: 'ASK {}', after: 'ASK {}' })).toBe(true);
      expect(store.requestCount).toBe(count + 1);
    });

    it('should turn a refused query into a StoreError with status and Virtuoso message', async () => {
      const err = await storeError(store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:p> } }'));
      expect(err.httpStatus).toBe(400);
      expect(err.message).toContain(ENDPOINT);
    });

    it('should load in chunks without breaking blank-node structures', async () => {
      const g = newGraph();
      const filler = Array.from({ length: 23 }, (_, i) => `ex:c${i} a owl:Class .`).join('\n');
      const doc = `@prefix ex: <urn:ex:> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        ${filler}
        ex:hasThing rdfs:domain [ a owl:Class ; owl:unionOf ( ex:A ex:B ex:C ex:D ) ] .
        ex:W rdfs:subClassOf [ a owl:Restriction ; owl:onProperty ex:holds ; owl:cardinality 1 ] .
        ex:label rdfs:label "étiquette"@fr, "line\\nbreak \\"quoted\\"" .`;
      const progress: number[] = [];
      const chunked = openRemoteStore({ queryUrl, loadChunkTriples: 5 });
      await chunked.load(doc, { graph: g, format: 'text/turtle', onProgress: (n) => progress.push(n) });
      const total = new Parser().parse(doc).length;
      expect(progress.at(-1)).toBe(total);
      expect(progress.length).toBeGreaterThan(3);
      expect(chunked.requestCount).toBe(progress.length);

      const members = await store.select(`SELECT ?c WHERE { GRAPH <${g}> {
        <urn:ex:hasThing> <http://www.w3.org/2000/01/rdf-schema#domain> ?d .
        ?d <http://www.w3.org/2002/07/owl#unionOf>/<http://www.w3.org/1999/02/22-rdf-syntax-ns#rest>*/<http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ?c } }`);
      expect(members.map((r) => r.c?.value).sort()).toEqual(['urn:ex:A', 'urn:ex:B', 'urn:ex:C', 'urn:ex:D']);
      expect(
        await store.ask(
          `ASK { GRAPH <${g}> { <urn:ex:W> ?sub ?r . ?r <http://www.w3.org/2002/07/owl#onProperty> <urn:ex:holds> ; <http://www.w3.org/2002/07/owl#cardinality> ?n } }`,
        ),
      ).toBe(true);

      const dumped = new Parser({ format: 'application/n-quads' }).parse(await store.dump({ graph: g }));
      expect(dumped).toHaveLength(total);
      expect(dumped.every((q) => q.graph.value === g)).toBe(true);
      expect(dumped.some((q) => q.object.termType === 'Literal' && q.object.value === 'line\nbreak "quoted"')).toBe(true);
      expect(dumped.some((q) => q.object.termType === 'Literal' && q.object.language === 'fr')).toBe(true);
    });

    it('should dump every user graph without Virtuoso system graphs', async () => {
      const g = newGraph();
      await store.update(`INSERT DATA { GRAPH <${g}> { <urn:a> <urn:p> "dump me" } }`);
      const all = await store.dump();
      expect(all).toContain(`<urn:a> <urn:p> "dump me" <${g}> .`);
      expect(all).not.toContain('openlinksw.com/schemas/virtrdf#>');
    });
  });
});
