import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Parser } from 'n3';
import { langLiteral, literal, sparqlIri, sparqlLiteral, type LiteralTerm, type Term } from '../../src/store/terms.js';
import type { StoreLogger } from '../../src/store/store-logger.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { xsd } from '../../src/vocab/terms.js';

/**
 * The behaviour every {@link TripleStore} must show, run against the embedded store and against
 * a real remote store (Virtuoso). So every request is standard SPARQL 1.1, every write names a
 * graph (Virtuoso refuses updates without one), and each test works in its own fresh graph,
 * dropped afterwards.
 */

const P = 'urn:test:p:value';
const P_TOKEN = 'urn:test:p:claimedBy';

/** Strings that break naive escaping; each must come back byte-identical. */
export const HOSTILE_STRINGS: readonly string[] = [
  'plain',
  '',
  'a "quoted" word',
  'triple """ quotes """ inside',
  "single ''' quotes",
  'ends with a quote"',
  '} } ; DROP ALL ; INSERT DATA { <urn:x> <urn:y> "z" }',
  '" . } # comment',
  'back\\slash and \\\\ double and trailing \\',
  'escape text \\u0022 and \\n and \\t (not escapes)',
  'line one\nline two\r\nline three',
  'tab\there and form\ffeed and \bbackspace',
  'unicode: Grüße, 日本語, emoji 😀, RTL עברית',
  '<urn:not:an:iri>',
  '${template} %s {0}',
  'controls: \u0001, unit separator \u001f and DEL \u007f (NUL is refused by the serializer)',
];

function graphIri(): string {
  return `urn:test:graph:${randomUUID()}`;
}

function insertData(graph: string, subject: string, object: LiteralTerm): string {
  return `INSERT DATA { GRAPH ${sparqlIri(graph)} { ${sparqlIri(subject)} ${sparqlIri(P)} ${sparqlLiteral(object)} } }`;
}

async function valueOf(store: TripleStore, graph: string, subject: string): Promise<Term[]> {
  const rows = await store.select(`SELECT ?o WHERE { GRAPH ${sparqlIri(graph)} { ${sparqlIri(subject)} ${sparqlIri(P)} ?o } }`);
  return rows.map((row) => row['o']!);
}

// A compare-and-set from "queued" to "running" that also records who won; `after` looks for the
// caller's own token so that stores which check after the write still tell winners apart.
function casQueuedToRunning(graph: string, subject: string, token: string): [string, { before: string; after: string }] {
  const [g, s, p, t] = [sparqlIri(graph), sparqlIri(subject), sparqlIri(P), sparqlIri(P_TOKEN)];
  const tok = sparqlLiteral(literal(token));
  const update =
    `DELETE { GRAPH ${g} { ${s} ${p} "queued" } } ` +
    `INSERT { GRAPH ${g} { ${s} ${p} "running" . ${s} ${t} ${tok} } } ` +
    `WHERE { GRAPH ${g} { ${s} ${p} "queued" } }`;
  return [
    update,
    {
      before: `ASK { GRAPH ${g} { ${s} ${p} "queued" } }`,
      after: `ASK { GRAPH ${g} { ${s} ${p} "running" . ${s} ${t} ${tok} } }`,
    },
  ];
}

/** A store logger that keeps the warnings and errors it is given, for assertions. */
export function captureStoreLogger(): StoreLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, warn: (_obj, msg) => warnings.push(msg), error: (_obj, msg) => warnings.push(msg) };
}

/**
 * Registers the behaviour suite for one store.
 * @param name label of the describe block
 * @param open opens a fresh store; called once, in `beforeAll`
 * @param cleanup runs after the store is closed (remove a temp dir, stop a server)
 */
export function describeTripleStore(
  name: string,
  open: () => TripleStore | Promise<TripleStore>,
  cleanup?: () => void | Promise<void>,
): void {
  describe(`TripleStore behaviour: ${name}`, () => {
    let store: TripleStore;

    beforeAll(async () => {
      store = await open();
    });

    afterAll(async () => {
      await store?.close();
      await cleanup?.();
    });

    // Runs `body` with a fresh graph and drops the graph afterwards, whatever happened.
    async function inGraph(body: (graph: string) => Promise<void>): Promise<void> {
      const graph = graphIri();
      try {
        await body(graph);
      } finally {
        await store.update(`DROP SILENT GRAPH ${sparqlIri(graph)}`);
      }
    }

    it('should describe itself', () => {
      expect(typeof store.description).toBe('string');
      expect(store.description.length).toBeGreaterThan(0);
    });

    it('should round-trip an update through select and ask', () =>
      inGraph(async (g) => {
        const ask = `ASK { GRAPH ${sparqlIri(g)} { <urn:test:s:1> ${sparqlIri(P)} "one" } }`;
        expect(await store.ask(ask)).toBe(false);
        await store.update(insertData(g, 'urn:test:s:1', literal('one')));
        expect(await store.ask(ask)).toBe(true);
        expect(await valueOf(store, g, 'urn:test:s:1')).toEqual([literal('one')]);
        await store.update(`DELETE DATA { GRAPH ${sparqlIri(g)} { <urn:test:s:1> ${sparqlIri(P)} "one" } }`);
        expect(await store.ask(ask)).toBe(false);
        expect(await valueOf(store, g, 'urn:test:s:1')).toEqual([]);
      }));

    it('should return IRIs as named nodes', () =>
      inGraph(async (g) => {
        await store.update(`INSERT DATA { GRAPH ${sparqlIri(g)} { <urn:test:s:1> ${sparqlIri(P)} <urn:test:o:1> } }`);
        const rows = await store.select(`SELECT ?o WHERE { GRAPH ${sparqlIri(g)} { <urn:test:s:1> ?p ?o } }`);
        expect(rows).toEqual([{ o: { termType: 'NamedNode', value: 'urn:test:o:1' } }]);
      }));

    it('should round-trip typed literals and language tags', () =>
      inGraph(async (g) => {
        const cases: [string, LiteralTerm][] = [
          ['urn:test:s:int', literal('42', xsd.integer)],
          ['urn:test:s:time', literal('2024-05-06T07:08:09Z', xsd.dateTime)],
          ['urn:test:s:uri', literal('https://example.org/a?b=c#d', xsd.anyURI)],
          ['urn:test:s:en', langLiteral('colour', 'en')],
          ['urn:test:s:de', langLiteral('Farbe "rot"', 'de')],
        ];
        for (const [s, term] of cases) await store.update(insertData(g, s, term));
        for (const [s, term] of cases) {
          const [got] = (await valueOf(store, g, s)) as LiteralTerm[];
          expect(got?.termType).toBe('Literal');
          expect(got?.datatype).toBe(term.datatype);
          expect(got?.language?.toLowerCase()).toBe(term.language);
          // Stores may normalise lexical forms (Virtuoso pads decimals): compare values.
          if (term.datatype === xsd.integer) expect(Number(got?.value)).toBe(42);
          else if (term.datatype === xsd.dateTime) expect(Date.parse(got!.value)).toBe(Date.parse(term.value));
          else expect(got?.value).toBe(term.value);
        }
      }));

    it('should return hostile literal strings byte-identical', () =>
      inGraph(async (g) => {
        const subject = (i: number): string => `urn:test:s:hostile:${i}`;
        for (const [i, text] of HOSTILE_STRINGS.entries()) await store.update(insertData(g, subject(i), literal(text)));
        await store.update(insertData(g, 'urn:test:s:hostile:lang', langLiteral(HOSTILE_STRINGS[6]!, 'en')));
        for (const [i, text] of HOSTILE_STRINGS.entries()) {
          const got = await valueOf(store, g, subject(i));
          expect(got).toHaveLength(1);
          expect(got[0]?.value).toBe(text);
        }
        expect((await valueOf(store, g, 'urn:test:s:hostile:lang'))[0]?.value).toBe(HOSTILE_STRINGS[6]);
        // Nothing escaped the literal: the graph holds exactly the triples written.
        const count = await store.select(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ${sparqlIri(g)} { ?s ?p ?o } }`);
        expect(Number(count[0]?.['n']?.value)).toBe(HOSTILE_STRINGS.length + 1);
      }));

    it('should apply a conditional update when its condition holds', () =>
      inGraph(async (g) => {
        await store.update(insertData(g, 'urn:test:s:op', literal('queued')));
        const [update, check] = casQueuedToRunning(g, 'urn:test:s:op', 'winner');
        expect(await store.conditionalUpdate(update, check)).toBe(true);
        expect(await valueOf(store, g, 'urn:test:s:op')).toEqual([literal('running')]);
      }));

    it('should change nothing and report false when the condition does not hold', () =>
      inGraph(async (g) => {
        await store.update(insertData(g, 'urn:test:s:op', literal('done')));
        const [update, check] = casQueuedToRunning(g, 'urn:test:s:op', 'late');
        expect(await store.conditionalUpdate(update, check)).toBe(false);
        expect(await valueOf(store, g, 'urn:test:s:op')).toEqual([literal('done')]);
        expect(await store.ask(`ASK { GRAPH ${sparqlIri(g)} { ?s ${sparqlIri(P_TOKEN)} ?t } }`)).toBe(false);
      }));

    it('should let exactly one of 20 concurrent compare-and-sets win', () =>
      inGraph(async (g) => {
        await store.update(insertData(g, 'urn:test:s:op', literal('queued')));
        const tokens = Array.from({ length: 20 }, (_, i) => `caller-${i}`);
        const results = await Promise.all(tokens.map((token) => store.conditionalUpdate(...casQueuedToRunning(g, 'urn:test:s:op', token))));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await valueOf(store, g, 'urn:test:s:op')).toEqual([literal('running')]);
        const winners = await store.select(`SELECT ?t WHERE { GRAPH ${sparqlIri(g)} { <urn:test:s:op> ${sparqlIri(P_TOKEN)} ?t } }`);
        expect(winners.map((row) => row['t']?.value)).toEqual([tokens[results.indexOf(true)]]);
      }));

    it('should load a Turtle document into a graph and dump it', () =>
      inGraph(async (g) => {
        const turtle = [
          '@prefix ex: <urn:test:ex:> .',
          'ex:a ex:name "A \\"quoted\\" name"@en ;',
          '  ex:count 3 ;',
          '  ex:next ex:b .',
        ].join('\n');
        const progress: number[] = [];
        await store.load(turtle, { graph: g, format: 'text/turtle', onProgress: (n) => progress.push(n) });
        expect(Math.max(...progress)).toBe(3);
        expect(await store.ask(`ASK { GRAPH ${sparqlIri(g)} { <urn:test:ex:a> <urn:test:ex:next> <urn:test:ex:b> } }`)).toBe(true);
        const quads = new Parser({ format: 'N-Quads' }).parse(await store.dump({ graph: g }));
        expect(quads).toHaveLength(3);
        const objects = quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`).sort();
        expect(objects).toEqual([
          'urn:test:ex:a urn:test:ex:count 3',
          'urn:test:ex:a urn:test:ex:name A "quoted" name',
          'urn:test:ex:a urn:test:ex:next urn:test:ex:b',
        ]);
      }));

    it('should give every load blank nodes of its own, shared within the document', () =>
      inGraph(async (g) => {
        // Two documents with the same blank node label: one node each, never one between them.
        const turtle =
          '_:r <urn:test:ex:onProperty> <urn:test:ex:p> .\n_:r <urn:test:ex:card> 1 .\n<urn:test:ex:c> <urn:test:ex:sub> _:r .';
        await store.load(turtle, { graph: g, format: 'text/turtle' });
        await store.load(turtle.replaceAll('ex:c>', 'ex:d>'), { graph: g, format: 'text/turtle' });
        const rows = await store.select(
          `SELECT ?c ?r WHERE { GRAPH ${sparqlIri(g)} { ?c <urn:test:ex:sub> ?r . ?r <urn:test:ex:onProperty> <urn:test:ex:p> ; <urn:test:ex:card> ?n } }`,
        );
        expect(rows.map((row) => row['c']?.value).sort()).toEqual(['urn:test:ex:c', 'urn:test:ex:d']);
        expect(rows.every((row) => row['r']?.termType === 'BlankNode')).toBe(true);
        expect(new Set(rows.map((row) => row['r']?.value)).size).toBe(2);
      }));

    it('should refuse a document that does not parse with a ValueError, writing nothing', () =>
      inGraph(async (g) => {
        const broken = '@prefix ex: <urn:test:ex:> .\nex:a ex:b "unterminated .';
        const error = await store.load(broken, { graph: g, format: 'text/turtle' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ name: 'ValueError', message: expect.stringContaining('cannot parse the text/turtle document') });
        expect(await store.ask(`ASK { GRAPH ${sparqlIri(g)} { ?s ?p ?o } }`)).toBe(false);
      }));

    it('should reject a malformed update with a StoreError and change nothing', () =>
      inGraph(async (g) => {
        await store.update(insertData(g, 'urn:test:s:1', literal('kept')));
        const broken = `INSERT DATA { GRAPH ${sparqlIri(g)} { <urn:test:s:1> ${sparqlIri(P)} "x" `;
        const error = await store.update(broken).then(
          () => undefined,
          (e: unknown) => e,
        );
        // By name: a store on another thread answers with the class of the build it runs.
        expect(error).toBeInstanceOf(Error);
        expect(error).toMatchObject({ name: 'StoreError', code: 'SM_STORE' });
        expect(await valueOf(store, g, 'urn:test:s:1')).toEqual([literal('kept')]);
      }));

    it('should count exactly one request per call', () =>
      inGraph(async (g) => {
        const steps: (() => Promise<unknown>)[] = [
          () => store.update(insertData(g, 'urn:test:s:op', literal('queued'))),
          () => store.select(`SELECT ?o WHERE { GRAPH ${sparqlIri(g)} { ?s ?p ?o } }`),
          () => store.ask(`ASK { GRAPH ${sparqlIri(g)} { ?s ?p ?o } }`),
          () => store.conditionalUpdate(...casQueuedToRunning(g, 'urn:test:s:op', 'a')),
          () => store.conditionalUpdate(...casQueuedToRunning(g, 'urn:test:s:op', 'b')),
          () => store.load('<urn:test:x> <urn:test:y> "z" .', { graph: g, format: 'application/n-triples' }),
        ];
        for (const step of steps) {
          const before = store.requestCount;
          await step();
          expect(store.requestCount).toBe(before + 1);
        }
      }));
  });
}
