import { afterEach, describe, expect } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { restBinding } from '../../src/connectors/rest/binding.js';
import { ConnectorRegistry, type SemanticMiddlewareOptions } from '../../src/middleware/index.js';
import { inf, RDFS, sm, SVC, XSD } from '../../src/vocab/index.js';
import { logSink, middlewareSuite, until } from '../middleware/support/harness.js';
import { EX, getJson, lit, put as putJson } from './support.js';

const G = 'urn:test:connectors:rest-hostile';
// The reader's resource, this file's only: suites on one Virtuoso run in parallel, and recognition reads every graph.
const READER = `${EX}hostileReader`;
const PEER1 = `${EX}hostilePeer1`;
const PEER2 = `${EX}hostilePeer2`;
const TOKEN = 'peer-token-0123456789abcdef';

/** A request the fake peer received. */
interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

/** A raw HTTP server standing in for a peer middleware: answers by path, records every request. */
async function fakePeer(
  answer: (req: Received, res: ServerResponse) => void,
): Promise<{ address: string; port: number; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString() };
      received.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  servers.push(server);
  return { address: `http://127.0.0.1:${port}`, port, received, server };
}
const servers: Server[] = [];

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const view = (value: unknown) => ({ name: 'x', value, ageMs: 0, stale: false });

/** A domain property under the REST marker with an integer value. */
const restProperty = (local: string): string =>
  `<${EX}${local}> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleRESTParameter}> ; <${RDFS('range')}> [ <http://www.w3.org/2002/07/owl#onProperty> <${inf.hasValue}> ; <http://www.w3.org/2002/07/owl#allValuesFrom> <${XSD('integer')}> ] .`;

/** door1's parameter node under `ex:<local>`, with the given metadata as Turtle objects. */
const node = (local: string, facts: Record<string, string>): string =>
  `${restProperty(local)}\n<${READER}> <${EX}${local}> [ ${Object.entries(facts)
    .map(([p, o]) => `<${p}> ${o}`)
    .join(' ; ')} ] .`;

/** A readwrite parameter of `peer`'s parameter `name`. */
const peerParameter = (local: string, peer: string, name: string): string =>
  node(local, { [inf.accessMode]: lit('readwrite'), [sm.hasRESTPeer]: `<${peer}>`, [sm.hasRESTPeerParameter]: lit(name) });

/** A Service of `resource` at `address`, its heartbeat `ageSeconds` old (none when undefined). */
let services = 0;
const service = (resource: string, address: string, ageSeconds: number | undefined): string => {
  const facts = [`<${SVC('isServiceOf')}> <${resource}>`, `<${SVC('address')}> ${lit(address)}^^<${XSD('anyURI')}>`];
  if (ageSeconds !== undefined)
    facts.push(`<${SVC('lastHeartbeat')}> ${lit(new Date(Date.now() - ageSeconds * 1000).toISOString())}^^<${XSD('dateTime')}>`);
  return `<urn:test:rest-hostile:service${(services += 1)}> ${facts.join(' ; ')} .`;
};

describe.each(['embedded', 'remote'] as const)('REST connectors facing a hostile peer and graph on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  const load = (turtle: string): Promise<void> => suite.store!.load(turtle, { graph: G, format: 'text/turtle' });
  async function reader(options: Partial<SemanticMiddlewareOptions> = {}) {
    const registry = new ConnectorRegistry();
    registry.register(restBinding({ pollIntervalMs: 50, resolveMs: 200 }));
    const mw = suite.controller({ resourceIri: READER, connectorRegistry: registry, ...options });
    await mw.start();
    const url = (path: string): string => `${mw.address!}${path}`;
    const get = (path: string) => getJson(url(path));
    const put = (path: string, value: unknown) => putJson(url(path), { value });
    const ready = async (): Promise<boolean> => (await fetch(url('/readyz'))).status === 200;
    return { mw, get, put, ready };
  }

  /** A peer answering the routes of `remoteGood`, `remoteMissing`, `remoteBroken` and friends. */
  const answers = (r: Received, res: ServerResponse): void => {
    const path = r.url.split('?')[0]!.replace(/^\/base\//u, '/');
    if (path === '/parameters/remoteGood') return json(res, 200, view(4));
    if (path === '/parameters/remoteAncient') return json(res, 200, { ...view(4), ageMs: 1e308 });
    if (path === '/parameters/remoteNotJson') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('four');
    if (path === '/parameters/remoteHuge') return json(res, 200, { ...view(4), pad: 'x'.repeat(70_000) });
    if (path === '/parameters/remoteNotView') return json(res, 200, [4]);
    if (path === '/parameters/remoteLocked') return json(res, 401, { detail: 'token refused' });
    if (path === '/state/remoteBroken') return json(res, 500, { detail: 'secret-internal failure at 10.9.8.7' });
    return json(res, 404, { detail: 'no such route' });
  };

  suite.onStore('should send the outgoing token and refuse unusable answers with a reason, never as a value', async () => {
    const peer = await fakePeer(answers);
    const names = ['remoteGood', 'remoteAncient', 'remoteNotJson', 'remoteHuge', 'remoteNotView', 'remoteLocked', 'remoteMissing'];
    await load(
      [
        ...names.map((n) => peerParameter(n.replace('remote', 'local'), PEER1, n)),
        node('localBroken', { [sm.hasRESTPeer]: `<${PEER1}>`, [sm.hasRESTPeerState]: lit('remoteBroken') }),
        service(PEER1, peer.address, 1),
      ].join('\n'),
    );
    const { get, put } = await reader({ outgoingTokens: { default: TOKEN } });
    const reason = (name: string) => async (): Promise<string | undefined> => (await get(`/parameters/${name}`)).body.lastRejection?.reason;
    await until(async () => (await get('/parameters/localGood')).body.value === 4, 'the good value');
    // An absurd age from the peer is bounded: the value is served with a valid receive time.
    await until(async () => (await get('/parameters/localAncient')).body.value === 4, 'the ancient value');
    expect(Number.isNaN(Date.parse((await get('/parameters/localAncient')).body.receivedAt!))).toBe(false);
    const expected: Record<string, unknown> = {
      localNotJson: "the peer's answer is not JSON or exceeds 65536 bytes",
      localHuge: "the peer's answer is not JSON or exceeds 65536 bytes",
      localNotView: "the peer's answer is not a parameter view",
      localLocked: expect.stringMatching(/^the peer refused this instance's token \(HTTP 401\); configure it in outgoingTokens/u),
      localMissing: 'the peer serves no such parameter (HTTP 404)',
      localBroken: 'the peer answered HTTP 500',
    };
    for (const [name, why] of Object.entries(expected)) {
      await until(async () => (await reason(name)()) !== undefined, `the refusal of ${name}`);
      expect({ name, reason: await reason(name)(), value: (await get(`/parameters/${name}`)).body.value }).toEqual({
        name,
        reason: why,
        value: null,
      });
    }
    expect(peer.received.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);

    expect((await put('/parameters/localGood', 5)).status).toBe(200);
    expect(peer.received.filter((r) => r.method === 'PUT')).toEqual([
      { method: 'PUT', url: '/parameters/remoteGood', authorization: `Bearer ${TOKEN}`, body: '{"value":5}' },
    ]);
    expect(await put('/parameters/localMissing', 5)).toEqual({
      status: 502,
      body: { detail: 'parameter "localMissing": its peer serves no such parameter (HTTP 404)' },
    });
  });

  suite.onStore('should read only from a Service with a fresh heartbeat and a usable http(s) address', async () => {
    const peer = await fakePeer(answers);
    await load(
      [
        peerParameter('localGood', PEER2, 'remoteGood'),
        service(PEER2, peer.address, 3600),
        service(PEER2, `${peer.address}/none`, undefined),
        service(PEER2, `file:///etc/passwd`, 1),
        service(PEER2, `http://user:secret@127.0.0.1:${peer.port}`, 1),
        service(PEER2, `${peer.address}/?q=1`, 1),
        service(PEER2, `javascript:alert(1)`, 1),
        service(PEER2, `${peer.address}/x y`, 1),
      ].join('\n'),
    );
    const sink = logSink('warn');
    const { get, ready } = await reader({ logger: sink.logger });
    await new Promise((r) => setTimeout(r, 400));
    expect(peer.received).toEqual([]);
    // Said once, not at every poll; the addresses themselves are not logged.
    expect(sink.lines().filter((l) => l.msg === 'the peer of these parameters registered no usable http(s) address')).toHaveLength(1);
    expect(JSON.stringify(sink.lines())).not.toContain(`${peer.port}`);
    expect(await ready()).toBe(false);
    expect((await get('/parameters/localGood')).body.value).toBeNull();

    await load(service(PEER2, `${peer.address}/base/`, 0));
    await until(ready, 'the reader to find the fresh Service');
    await until(async () => (await get('/parameters/localGood')).body.value === 4, 'the value');
    expect(new Set(peer.received.map((r) => r.url))).toEqual(new Set(['/base/parameters/remoteGood']));
  });

  suite.onStore('should leave out parameters with hostile metadata and request odd but valid names exactly', async () => {
    const peer = await fakePeer((r, res) => json(res, 200, view(7)));
    const odd = 'we/ird ?#näme "q" } ;';
    await load(
      [
        peerParameter('oddName', PEER1, odd),
        node('literalPeer', { [sm.hasRESTPeer]: lit(`${PEER1}> } ; DROP ALL #`), [sm.hasRESTPeerParameter]: lit('x') }),
        node('noPeer', { [sm.hasRESTPeerParameter]: lit('x') }),
        peerParameter('dotDot', PEER1, '..'),
        peerParameter('lineBreak', PEER1, 'a\nb'),
        peerParameter('tooLong', PEER1, 'x'.repeat(200)),
        peerParameter('empty', PEER1, ''),
        node('both', { [sm.hasRESTPeer]: `<${PEER1}>`, [sm.hasRESTPeerParameter]: lit('x'), [sm.hasRESTPeerState]: lit('y') }),
        node('neither', { [sm.hasRESTPeer]: `<${PEER1}>` }),
        service(PEER1, peer.address, 1),
      ].join('\n'),
    );
    const sink = logSink('warn');
    const { get } = await reader({ logger: sink.logger });
    expect((await get('/parameters')).body.parameters!.map((p) => p.name)).toEqual(['oddName']);
    await until(async () => (await get('/parameters/oddName')).body.value === 7, 'the odd value');
    expect(new Set(peer.received.map((r) => r.url))).toEqual(new Set([`/parameters/${encodeURIComponent(odd)}`]));
    const leftOut = sink.lines().filter((l) => l.msg === 'parameter left out: its connection metadata is unusable');
    expect(leftOut.map((l) => l.parameter).sort()).toEqual([
      'both',
      'dotDot',
      'empty',
      'lineBreak',
      'literalPeer',
      'neither',
      'noPeer',
      'tooLong',
    ]);
    // The graph is intact: nothing in it was run as SPARQL.
    expect(await suite.dump()).toContain('DROP ALL');
  });

  suite.onStore(
    'should keep the peer address, resource and route names out of every northbound answer, error, activity entry and info log',
    async () => {
      const peer = await fakePeer(answers);
      await load(
        [
          peerParameter('localGood', PEER1, 'remoteGood'),
          peerParameter('localMissing', PEER1, 'remoteMissing'),
          node('localBroken', { [sm.hasRESTPeer]: `<${PEER1}>`, [sm.hasRESTPeerState]: lit('remoteBroken') }),
          service(PEER1, peer.address, 1),
        ].join('\n'),
      );
      const sink = logSink('info');
      const { mw, get, put, ready } = await reader({ logger: sink.logger, activityFeed: true });
      await until(async () => (await get('/parameters/localGood')).body.value === 4, 'the good value');
      await until(async () => (await get('/parameters/localBroken')).body.lastRejection !== null, 'the broken refusal');
      const outputs: unknown[] = [
        await get('/parameters'),
        await get('/parameters/localGood'),
        await get('/parameters/localMissing'),
        await get('/parameters/localBroken'),
        await put('/parameters/localGood', 'x'),
        await put('/parameters/localGood', 6),
        await put('/parameters/localMissing', 6),
        await put('/parameters/localBroken', 6),
      ];
      // The peer goes away: unreachable, not ready, setpoints refused.
      await new Promise((r) => peer.server.close(r));
      peer.server.closeAllConnections();
      await until(async () => !(await ready()), 'the reader to say not ready');
      outputs.push(await put('/parameters/localGood', 7), await get('/parameters'), await get('/activity'), await get('/readyz'));
      await mw.stop();
      const text = JSON.stringify(outputs) + JSON.stringify(sink.lines());
      expect(text).toContain('localGood');
      expect(text).toContain('its peer is not reachable');
      const secrets = [
        `127.0.0.1:${peer.port}`,
        `:${peer.port}`,
        `"${peer.port}"`,
        `${peer.port},`,
        PEER1,
        'remoteGood',
        'remoteMissing',
        'remoteBroken',
        'secret-internal',
        '10.9.8.7',
      ];
      for (const secret of secrets) expect(text).not.toContain(secret);
    },
  );
});
