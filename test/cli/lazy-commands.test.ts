import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadedIn, type Loaded } from '../support/import-log.js';
import { BIN, buildCli, ROOT } from './support/cli-process.js';

// Libraries that only some commands need, each costing tens to hundreds of ms to load.
const HEAVY = [
  ...['express', 'oxigraph', 'rdf-validate-shacl', 'mqtt', 'n3', 'sparqljs', 'sparql-http-client', 'ajv', 'yaml', 'pino'],
  ...['@comunica/query-sparql', '@opentelemetry/api', '@opentelemetry/sdk-trace-base'],
];
const IMPORT_LOG = fileURLToPath(new URL('./support/import-log.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sm-lazy-commands-'));
let runs = 0;

/** The packages (under node_modules) and the project modules (under dist/) `args` imported. */
function imported(args: string[]): { packages: string[]; modules: string[]; status: number | null } {
  return importedBy([BIN, ...args]);
}

/** What `node <nodeArgs>` imported, and what it printed. */
function importedBy(nodeArgs: string[]): Loaded & { status: number | null; stdout: string } {
  const log = join(dir, `imports-${(runs += 1)}.log`);
  const result = spawnSync(process.execPath, ['--import', IMPORT_LOG, ...nodeArgs], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, IMPORT_LOG: log },
    timeout: 30_000,
  });
  return { ...loadedIn(log), status: result.status, stdout: result.stdout };
}

// Node's fetch is undici bundled into Node: it loads as this internal module, never from node_modules.
const NODE_UNDICI = 'NativeModule internal/deps/undici/undici';

/**
 * A script with a loopback server of its own that answers SPARQL and event triggers (with the
 * outcome channel's two lines): it sends a query and an update through the remote store and
 * rings a trigger as a middleware does by default, then prints whether Node's fetch was loaded.
 */
const ROUND_TRIPS = `
  const { createServer } = await import('node:http');
  const { openRemoteStore } = await import('./dist/store/remote-store.js');
  const { createKeepAliveFetch } = await import('./dist/lib/keep-alive-fetch.js');
  const { deliverTrigger } = await import('./dist/middleware/operations/trigger-delivery.js');
  // On Node 24 undici's pool itself loads Node's copy; what counts is that sending loads it nowhere.
  const byUndici = process.moduleLoadList.includes(${JSON.stringify(NODE_UNDICI)});
  const server = createServer((req, res) => req.resume().on('end', () => {
    if (!req.url.includes('event_trigger')) return res.end('{"head":{},"boolean":true}');
    res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end('{"status":"queued"}\\n{}\\n');
  }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = \`http://127.0.0.1:\${server.address().port}\`;
  const store = openRemoteStore({ queryUrl: \`\${base}/sparql\` });
  const asked = await store.ask('ASK {}');
  await store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> <urn:c> } }');
  await store.close();
  const send = createKeepAliveFetch();
  const delivered = await deliverTrigger(send, base, 'urn:op', { outcome: true });
  const outcome = await delivered.outcome;
  await send.close();
  server.close();
  console.log(JSON.stringify({ asked, outcome, nodeUndici: process.moduleLoadList.includes(${JSON.stringify(NODE_UNDICI)}), byUndici }));
`;

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('semantic-sidecar loads each command only when it runs', () => {
  it.each([['--version'], ['-V']])('should answer %s with the version module alone, before the CLI is loaded', (arg) => {
    const { packages, modules, status } = imported([arg]);
    expect(status).toBe(0);
    expect(packages).toEqual([]);
    expect(modules).toEqual(['cli/version']);
  });

  it.each([['--help'], ['help']])('should load no command module and no heavy library for %s', (arg) => {
    const { packages, modules, status } = imported([arg]);
    expect(status).toBe(0);
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
    expect(packages).toEqual(['commander']);
    expect(modules.filter((m) => m.endsWith('-command'))).toEqual([]);
  });

  it.each([
    ['discover', ['discover', '--help'], 'discover-command'],
    ['store serve', ['store', 'serve', '--help'], 'store-command'],
    ['ontology load', ['help', 'ontology'], 'ontology-command'],
  ])("should load only %s's command module for its help", (_name, args, module) => {
    const { modules, status } = imported(args);
    expect(status).toBe(0);
    expect(modules.filter((m) => m.endsWith('-command'))).toEqual([`cli/${module}`]);
  });

  it("should send store requests and event triggers on undici's pool alone: no fetch (Node's or undici's), no sparql-http-client", () => {
    const { packages, filesOf, status, stdout } = importedBy(['--input-type=module', '-e', ROUND_TRIPS]);
    expect(status).toBe(0);
    const { byUndici, ...rest } = JSON.parse(stdout) as { byUndici: boolean };
    expect(rest).toEqual({ asked: true, outcome: null, nodeUndici: byUndici });
    // Before Node 24 nothing of ours loads Node's copy, loading included.
    if (Number(process.versions.node.split('.')[0]) < 24) expect(byUndici).toBe(false);
    expect(packages.filter((p) => ['sparql-http-client', 'nodeify-fetch'].includes(p))).toEqual([]);
    const undici = filesOf('undici');
    expect(undici).toEqual(expect.arrayContaining(['lib/dispatcher/pool.js', 'lib/api/api-request.js']));
    // Not its index, which loads fetch, WebSocket, EventSource, caches and mocks.
    expect(undici.filter((f) => f === 'index.js' || /^lib\/(web|mock|cache|interceptor)\//u.test(f))).toEqual([]);
  });
});
