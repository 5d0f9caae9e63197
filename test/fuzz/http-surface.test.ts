/**
 * Fuzzing a started SemanticMiddleware's HTTP surface on both stores, with fetch and with raw
 * sockets: hostile workflow and state names, trigger bodies, paths, methods, content types,
 * oversized and deeply nested JSON, invalid UTF-8, header abuse. Every case gets a 4xx with a
 * JSON detail (naming the bad value where there is one), never a 5xx; the graph is unchanged;
 * the server keeps serving.
 */
import { describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { preview } from '../../src/iri/validate.js';
import { LIMITS } from '../../src/limits.js';
import type { SemanticMiddleware } from '../../src/middleware/index.js';
import { DOOR_STATE, middlewareSuite } from '../middleware/support/harness.js';
import { graphGuard } from './support/graph-guard.js';
import { badIri, hostileText, namesValue, oddIri } from './support/hostile.js';
import { rawHttp, rawRequest, type RawAnswer } from './support/raw-http.js';
import { fuzzReport } from './support/runs.js';

const G = `urn:fuzz:http:${randomUUID()}`;

/** A case: the request and, when there is one, the value the detail must name. */
interface HttpCase {
  name: string;
  send: (base: string, port: number) => Promise<{ status: number | undefined; text: string }>;
  names?: string;
}

async function viaFetch(url: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, init);
  return { status: res.status, text: await res.text() };
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const asAnswer = (a: RawAnswer): { status: number | undefined; text: string } => ({ status: a.status, text: a.body });
const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

// Names a route segment can carry: any hostile text, percent-encoded, and never a registered name.
// (Lone surrogates cannot be percent-encoded; raw bytes in paths are sent by the raw cases.)
const wellFormed = hostileText.filter((s) => s.isWellFormed());
const segment = wellFormed.filter((s) => s !== '' && s !== 'open' && s !== DOOR_STATE.name && s !== '.' && s !== '..');

const fetchCases: fc.Arbitrary<HttpCase> = fc.oneof(
  segment.map((n) => ({
    name: `workflow ${preview(n)}`,
    send: (b: string) => viaFetch(`${b}/workflows/${encodeURIComponent(n)}/execute`, { method: 'POST' }),
    names: n,
  })),
  segment.map((n) => ({ name: `state ${preview(n)}`, send: (b: string) => viaFetch(`${b}/state/${encodeURIComponent(n)}`), names: n })),
  fc.constantFrom('%ZZ', '%E0%A4%A', '%', '%00', '%C0%AF', '%ED%A0%80').map((raw) => ({
    name: `undecodable ${raw}`,
    send: (_b: string, port: number) => rawRequest({ port }, rawHttp('POST', `/workflows/${raw}/execute`)).then(asAnswer),
  })),
  badIri
    .filter((v) => v.isWellFormed())
    .map((iri) => ({
      name: `trigger ${preview(iri)}`,
      send: (b: string) => viaFetch(`${b}/workflows/event_trigger/execute`, json({ operation_iri: iri })),
      names: iri,
    })),
  oddIri.map((iri) => ({
    name: `trigger unknown ${iri}`,
    send: (b: string) => viaFetch(`${b}/workflows/event_trigger/execute`, json({ operation_iri: iri })),
    names: iri,
  })),
  fc
    .jsonValue({ maxDepth: 3 })
    .filter(
      (v) => typeof v !== 'object' || v === null || Array.isArray(v) || typeof (v as Record<string, unknown>).operation_iri !== 'string',
    )
    .map((body) => ({
      name: `trigger body ${JSON.stringify(body).slice(0, 60)}`,
      send: (b: string) => viaFetch(`${b}/workflows/event_trigger/execute`, json(body)),
    })),
  fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'text/json',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      '*/*',
    )
    .map((type) => ({
      name: `content type ${type}`,
      send: (b: string) => viaFetch(`${b}/workflows/open/execute`, { method: 'POST', headers: { 'content-type': type }, body: '{"a":1' }),
    })),
  fc
    .constantFrom(
      deep(50_000),
      deepObject(30_000),
      `"${'x'.repeat(LIMITS.httpBodyLimitBytes)}"`,
      `[${'1,'.repeat(LIMITS.httpBodyLimitBytes / 2)}1]`,
    )
    .map((body) => ({
      name: `body of ${body.length} bytes`,
      send: (b: string) =>
        viaFetch(`${b}/workflows/event_trigger/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
    })),
  // A deep object is a valid argument object (the handler ignores it); a deep array is not.
  fc.constantFrom(deep(50_000), `[${deepObject(30_000)}]`).map((body) => ({
    name: `deep workflow arguments of ${body.length} bytes`,
    send: (b: string) => viaFetch(`${b}/workflows/open/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
  })),
  fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), wellFormed).map(([method, p]) => ({
    name: `${method} /nowhere/${preview(p)}`,
    send: (b: string) => viaFetch(`${b}/nowhere/${encodeURIComponent(p)}`, { method }),
  })),
  fc
    .constantFrom('PUT', 'DELETE', 'PATCH')
    .map((method) => ({ name: `${method} on a workflow`, send: (b: string) => viaFetch(`${b}/workflows/open/execute`, { method }) })),
  fc
    .tuple(
      fc.constantFrom('after', 'limit'),
      wellFormed.filter((s) => !/^\d{1,15}$/u.test(s)),
    )
    .map(([k, v]) => ({
      name: `activity ${k}=${preview(v)}`,
      send: (b: string) => viaFetch(`${b}/activity?${k}=${encodeURIComponent(v)}`),
      names: v,
    })),
);

const TRIGGER = '/workflows/event_trigger/execute';
const rawCases: fc.Arbitrary<HttpCase> = fc.oneof(
  fc
    .constantFrom<[string, Buffer]>(
      ['huge header', rawHttp('GET', '/healthz', [`X-Big: ${'a'.repeat(70_000)}`])],
      [
        'many headers',
        rawHttp(
          'GET',
          '/healthz',
          Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`),
        ),
      ],
      [
        'duplicate content-length',
        rawHttp('POST', TRIGGER, ['Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 20'], '{}'),
      ],
      [
        'content-length and chunked',
        rawHttp(
          'POST',
          TRIGGER,
          ['Content-Type: application/json', 'Content-Length: 2', 'Transfer-Encoding: chunked'],
          '2\r\n{}\r\n0\r\n\r\n',
        ),
      ],
      [
        'bad chunk size',
        rawHttp('POST', TRIGGER, ['Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n'),
      ],
      ['gzip transfer encoding', rawHttp('POST', TRIGGER, ['Content-Type: application/json', 'Transfer-Encoding: gzip'], '{}')],
      [
        'chunked, gzip',
        rawHttp('POST', TRIGGER, ['Content-Type: application/json', 'Transfer-Encoding: chunked, gzip'], '2\r\n{}\r\n0\r\n\r\n'),
      ],
      [
        'garbage gzip body',
        rawHttp('POST', TRIGGER, ['Content-Type: application/json', 'Content-Encoding: gzip', 'Content-Length: 6'], 'notgz!'),
      ],
      [
        'unknown content encoding',
        rawHttp('POST', TRIGGER, ['Content-Type: application/json', 'Content-Encoding: zstd-x', 'Content-Length: 2'], '{}'),
      ],
      ['short body', rawHttp('POST', TRIGGER, ['Content-Type: application/json', 'Content-Length: 50'], '{}')],
      ['NUL in a header', rawHttp('GET', '/healthz', ['X-A: a\u0000b'])],
      ['folded header', rawHttp('GET', '/healthz', ['X-A: a', ' folded'])],
      ['space before colon', rawHttp('GET', '/healthz', ['X-A : a'])],
      ['bad request line', Buffer.from('GARBAGE\r\n\r\n')],
      ['HTTP/2 preface', Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')],
      ['space in path', Buffer.from('GET /he althz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')],
      [
        'raw bytes in path',
        Buffer.concat([
          Buffer.from('GET /state/'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        ]),
      ],
    )
    .map(([name, bytes]) => ({ name, send: (_b: string, port: number) => rawRequest({ port }, bytes).then(asAnswer) })),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => {
    // Invalid UTF-8 inside the JSON string: refused with 400 (accepted when the bytes happen to be UTF-8), never a 5xx.
    const body = Buffer.concat([Buffer.from('{"operation_iri":"urn:fuzz:'), Buffer.from(bytes.map((b) => b | 0x80)), Buffer.from('"}')]);
    return {
      name: `invalid UTF-8 body ${Buffer.from(bytes).toString('hex')}`,
      send: (_b: string, port: number) =>
        rawRequest({ port }, rawHttp('POST', TRIGGER, ['Content-Type: application/json', `Content-Length: ${body.length}`], body)).then(
          asAnswer,
        ),
    };
  }),
);

/** Header abuse the middleware does not act on (it has no authentication yet): never a 5xx, never a crash. */
const headerCases: fc.Arbitrary<HttpCase> = fc
  .tuple(
    fc.constantFrom('Authorization', 'Authorization', 'Content-Type', 'Accept', 'Cookie', 'X-Forwarded-For', 'Last-Event-ID'),
    fc.oneof(hostileText, fc.constantFrom('Bearer', 'Bearer ', `Bearer ${'x'.repeat(8000)}`, 'Basic !!!', 'bearer token token')),
  )
  .map(([h, v]) => ({
    name: `${h}: ${preview(v)}`,
    send: (_b: string, port: number) =>
      rawRequest({ port }, rawHttp('GET', '/healthz', [`${h}: ${Buffer.from(v, 'utf8').toString('latin1')}`])).then(asAnswer),
  }));

describe.each(['embedded', 'remote'] as const)('the HTTP surface under hostile requests on the %s store', (kind) => {
  const report = fuzzReport('test/fuzz/http-surface.test.ts', kind);
  const guard = graphGuard(() => suite.store!, kind, [G]);
  const suite = middlewareSuite(kind, G);
  const weight = kind === 'remote' ? 0.25 : 0.5;

  async function started(httpToken?: string): Promise<{ mw: SemanticMiddleware; base: string; port: number }> {
    // No heartbeat loop: the graph must stay as start-up left it.
    const mw = suite.controller({ heartbeatInterval: null, activityFeed: true, ...(httpToken && { httpToken }) });
    mw.state(DOOR_STATE, () => 'closed');
    await mw.start();
    const port = (mw.server!.address() as { port: number }).port;
    return { mw, base: `http://127.0.0.1:${port}`, port };
  }

  async function stillServes(base: string): Promise<void> {
    expect((await viaFetch(`${base}/healthz`)).status).toBe(200);
    expect(await viaFetch(`${base}/workflows/open/execute`, { method: 'POST' })).toEqual({ status: 200, text: '"opened"' });
  }

  function property(
    cases: fc.Arbitrary<HttpCase>,
    base: string,
    port: number,
    allow: (status: number) => boolean = (s) => s >= 400 && s < 500,
  ): fc.IAsyncProperty<[HttpCase]> {
    return fc.asyncProperty(cases, async (c) => {
      const { status, text } = await c.send(base, port);
      if (status === undefined || !allow(status)) throw new Error(`${c.name}: answered ${status}: ${text.slice(0, 300)}`);
      if (status >= 400 && text !== '') {
        const detail = (JSON.parse(text) as { detail?: unknown }).detail;
        expect(typeof detail).toBe('string');
        if (c.names !== undefined && status !== 400 && !namesValue(detail as string, c.names))
          throw new Error(`${c.name}: the detail does not name the value: ${detail as string}`);
      }
      await guard.expectUnchanged(c.name);
      expect((await viaFetch(`${base}/healthz`)).status).toBe(200);
    });
  }

  suite.onStore(
    'should answer hostile names, bodies, paths and methods with a JSON 4xx, writing nothing',
    async () => {
      const { base, port } = await started();
      await guard.reset();
      await report.check('hostile HTTP requests', property(fetchCases, base, port), weight, { shrink: false });
      await stillServes(base);
    },
    120_000,
  );

  suite.onStore(
    'should answer malformed HTTP (headers, framing, encodings, invalid UTF-8) with a 4xx, writing nothing',
    async () => {
      const { base, port } = await started();
      await guard.reset();
      await report.check('malformed HTTP on raw sockets', property(rawCases, base, port), weight, { shrink: false });
      await report.check(
        'header abuse',
        property(headerCases, base, port, (s) => s < 500),
        weight,
        { shrink: false },
      );
      await stillServes(base);
    },
    120_000,
  );

  suite.onStore(
    'should refuse every hostile Authorization header with a 401 when a token is set, writing nothing',
    async () => {
      const token = `fuzz-${randomUUID()}`;
      const { base, port } = await started(token);
      await guard.reset();
      const guarded = fc
        .tuple(
          fc.constantFrom('POST /workflows/open/execute', 'GET /activity', 'GET /state/doorState'),
          fc.oneof(
            hostileText,
            fc.constantFrom('Bearer', `Bearer ${token} x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`, `${token}`),
          ),
        )
        .map(([route, value]) => {
          const [method, path] = route.split(' ') as [string, string];
          const header = `Authorization: ${Buffer.from(value, 'utf8').toString('latin1')}`;
          return {
            name: `${route} with ${preview(value)}`,
            send: (_b: string, p: number) => rawRequest({ port: p }, rawHttp(method, path, [header])).then(asAnswer),
          };
        });
      await report.check(
        'hostile bearer tokens',
        property(guarded, base, port, (s) => s === 401 || s === 400),
        weight,
        { shrink: false },
      );
      const open = await fetch(`${base}/workflows/open/execute`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect([open.status, await open.text()]).toEqual([200, '"opened"']);
    },
    120_000,
  );
});
