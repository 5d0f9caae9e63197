/**
 * Fuzzing the sidecar's local API (in process, on a Unix socket and on loopback TCP with a token)
 * on both stores: hostile Operation requests, status reads, handovers and Authorization headers
 * get a JSON 4xx naming the bad value, never a 5xx; the graph is unchanged; the API keeps serving.
 */
import { afterAll, afterEach, describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { preview } from '../../src/iri/validate.js';
import { startLocalApi, type LocalApi } from '../../src/sidecar/local-api.js';
import { mes, plant } from '../../src/vocab/index.js';
import { middlewareSuite, OPEN_REQUEST, silent } from '../middleware/support/harness.js';
import { graphGuard } from './support/graph-guard.js';
import { badIri, hostileText, namesValue, oddIri } from './support/hostile.js';
import { rawHttp, rawRequest, type RawTarget } from './support/raw-http.js';
import { fuzzReport } from './support/runs.js';

const G = `urn:fuzz:local-api:${randomUUID()}`;
const TOKEN = `fuzz-token-${randomUUID()}`;

interface ApiCase {
  name: string;
  method: string;
  path: string;
  body?: string;
  /** The value the detail must name. */
  names?: string;
}

const post = (path: string, body: unknown, names?: string, name = path): ApiCase => ({
  name,
  method: 'POST',
  path,
  body: JSON.stringify(body),
  ...(names !== undefined && { names }),
});
const enc = encodeURIComponent;
// A date-time with its zone: the only deadline text the local API accepts (when it is in the future).
const DATE_TIME = /^-?\d{4,}-\d{2}-\d{2}T/u;
const FIELDS = ['capabilityClass', 'operationClass', 'operationIri', 'targetResource'] as const;
const okRequest = { capabilityClass: OPEN_REQUEST.capabilityClass, operationClass: OPEN_REQUEST.operationClass };
const badData = fc.oneof(
  hostileText.filter((k) => !/^[A-Za-z_][A-Za-z0-9_-]*$/u.test(k)).map((k) => ({ data: { [k]: 'x' }, names: k })),
  fc.constantFrom<unknown>(null, {}, [[1]], { deep: { deeper: [1] } }, [null]).map((v) => ({ data: { testNote: v }, names: undefined })),
  fc.constantFrom<unknown>('text', 42, [1, 2], true).map((v) => ({ data: v, names: undefined })),
);

const apiCases: fc.Arbitrary<ApiCase> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...FIELDS),
      badIri.filter((v) => v.isWellFormed()),
    )
    .map(([f, bad]) => post('/operations', { ...okRequest, [f]: bad }, bad, `operations ${f}=${preview(bad)}`)),
  fc
    .tuple(fc.constantFrom('capabilityClass', 'targetResource'), oddIri)
    .map(([f, odd]) => post('/operations', { ...okRequest, [f]: odd }, odd, `operations unknown ${f}=${odd}`)),
  badData.map(({ data, names }) =>
    post('/operations', { ...okRequest, data }, names, `operations data ${JSON.stringify(data).slice(0, 60)}`),
  ),
  fc
    .jsonValue({ maxDepth: 2 })
    .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
    .map((v) => post('/operations', v, undefined, `operations body ${JSON.stringify(v).slice(0, 40)}`)),
  badIri.filter((v) => v.isWellFormed()).map((bad) => post('/operations/cancel', { operation: bad }, bad, `cancel ${preview(bad)}`)),
  oddIri.map((odd) => post('/operations/cancel', { operation: odd }, odd, `cancel unknown ${odd}`)),
  hostileText
    .filter((s) => s.isWellFormed() && !DATE_TIME.test(s))
    .map((bad) => post('/operations', { ...okRequest, deadline: bad }, bad, `operations deadline ${preview(bad)}`)),
  fc
    .constantFrom<unknown>('2020-01-01T00:00:00Z', '1970-01-01T00:00:00.000+00:00', 0, true, [1], { at: 1 })
    .map((v) => post('/operations', { ...okRequest, deadline: v }, undefined, `operations deadline ${JSON.stringify(v)}`)),
  badIri
    .filter((v) => v.isWellFormed())
    .map((bad) => ({ name: `status iri ${preview(bad)}`, method: 'GET', path: `/operations/status?iri=${enc(bad)}`, names: bad })),
  oddIri.map((odd) => ({ name: `status unknown ${odd}`, method: 'GET', path: `/operations/status?iri=${enc(odd)}`, names: odd })),
  hostileText
    .filter((s) => !/^\d{1,9}$/u.test(s) && s.isWellFormed())
    .map((bad) => ({
      name: `status waitMs ${preview(bad)}`,
      method: 'GET',
      path: `/operations/status?iri=urn:fuzz:x&waitMs=${enc(bad)}`,
      names: bad,
    })),
  fc
    .tuple(
      fc.constantFrom('mode', 'workpiece', 'counterpart'),
      badIri.filter((v) => v.isWellFormed()),
    )
    .map(([f, bad]) =>
      post(
        '/handovers',
        { mode: mes.Put, workpiece: 'urn:fuzz:wp', counterpart: plant.conveyor1, [f]: bad },
        bad,
        `handover ${f}=${preview(bad)}`,
      ),
    ),
  oddIri.map((odd) =>
    post('/handovers', { mode: mes.Put, workpiece: odd, counterpart: plant.conveyor1 }, odd, `handover of unpossessed ${odd}`),
  ),
  fc
    .tuple(
      hostileText.filter((s) => s.isWellFormed() && s !== '' && s !== '.' && s !== '..'),
      fc.constantFrom('commit', 'abort'),
    )
    .map(([id, step]) => ({ name: `handover ${step} ${preview(id)}`, method: 'POST', path: `/handovers/${enc(id)}/${step}`, names: id })),
  fc
    .constantFrom('%ZZ', '%', '%E0%A4%A')
    .map((raw) => ({ name: `undecodable id ${raw}`, method: 'POST', path: `/handovers/${raw}/commit` })),
);

describe.each(['embedded', 'remote'] as const)('the local API under hostile requests on the %s store', (kind) => {
  const report = fuzzReport('test/fuzz/local-api.test.ts', kind);
  const guard = graphGuard(() => suite.store!, kind, [G]);
  const suite = middlewareSuite(kind, G);
  const weight = kind === 'remote' ? 0.25 : 0.5;
  const dir = mkdtempSync(join(tmpdir(), 'sm-fuzz-local-'));
  let api: LocalApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function send(target: RawTarget, c: ApiCase, auth?: string): Promise<{ status: number | undefined; text: string }> {
    const headers = [
      ...(c.body !== undefined ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(c.body)}`] : []),
      ...(auth === undefined ? [] : [`Authorization: ${auth}`]),
    ];
    const a = await rawRequest(target, rawHttp(c.method, c.path, headers, c.body ?? ''));
    return { status: a.status, text: a.body };
  }

  suite.onStore(
    'should answer hostile operations, status reads and handovers with a JSON 4xx naming the value, writing nothing',
    async () => {
      const mw = suite.controller({ heartbeatInterval: null });
      await mw.start();
      const socket = join(dir, `api-${randomUUID().slice(0, 8)}.sock`);
      api = await startLocalApi({ middleware: mw, listen: { socket }, logger: silent });
      await guard.reset();
      await report.check(
        'hostile local API requests',
        fc.asyncProperty(apiCases, async (c) => {
          const { status, text } = await send({ socket }, c);
          if (status === undefined || status < 400 || status >= 500)
            throw new Error(`${c.name}: answered ${status}: ${text.slice(0, 300)}`);
          const detail = (JSON.parse(text) as { detail?: unknown }).detail;
          expect(typeof detail).toBe('string');
          if (c.names !== undefined && !namesValue(detail as string, c.names))
            throw new Error(`${c.name}: the detail does not name the value: ${detail as string}`);
          await guard.expectUnchanged(c.name);
        }),
        weight,
        { shrink: false },
      );
      expect((await send({ socket }, { name: 'health', method: 'GET', path: '/healthz' })).status).toBe(200);
      expect(mw.queued).toEqual([]);
    },
    120_000,
  );

  suite.onStore(
    'should refuse every request without the exact bearer token on loopback TCP with a JSON 401',
    async () => {
      const mw = suite.controller({ heartbeatInterval: null });
      await mw.start();
      api = await startLocalApi({ middleware: mw, listen: { port: 0, token: TOKEN }, logger: silent });
      const port = Number(new URL(api.url).port);
      const health: ApiCase = { name: 'health', method: 'GET', path: '/healthz' };
      const badAuth = fc
        .oneof(
          hostileText,
          hostileText.map((t) => `Bearer ${t}`),
          // Trailing white space is not part of a header value (RFC 9110), so `Bearer <token> ` is the
          // token; so are `bearer <token>` and `Bearer  <token>` (the scheme is case-insensitive and
          // followed by 1*SP, RFC 7235 and 6750), accepted below.
          fc.constantFrom(
            'Bearer',
            'Bearer ',
            `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`,
            `Bearer ${TOKEN.slice(0, -1)}`,
            `Bearer ${TOKEN}x`,
            `Bearer ${'x'.repeat(60_000)}`,
            `Token ${TOKEN}`,
          ),
        )
        .filter((v) => v !== `Bearer ${TOKEN}`);
      await report.check(
        'bad Authorization headers',
        fc.asyncProperty(badAuth, async (auth) => {
          const { status, text } = await send({ port }, health, Buffer.from(auth, 'utf8').toString('latin1'));
          // Header bytes the HTTP parser refuses are a 400 before the API sees them; the rest a 401.
          if (status !== 401 && status !== 400 && status !== 431)
            throw new Error(`Authorization ${preview(auth)}: answered ${status}: ${text.slice(0, 200)}`);
          if (status === 401) expect((JSON.parse(text) as { detail: string }).detail).toContain("the sidecar's local API token");
        }),
        weight,
        { shrink: false },
      );
      for (const auth of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer  ${TOKEN}`])
        expect((await send({ port }, health, auth)).status).toBe(200);
    },
    120_000,
  );
});
