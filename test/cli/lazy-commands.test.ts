import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadedIn } from '../support/import-log.js';
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
function importedBy(nodeArgs: string[]): { packages: string[]; modules: string[]; status: number | null; stdout: string } {
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
 * A script that answers SPARQL on a loopback server of its own, sends a query and an update
 * through the remote store, and prints whether Node's fetch was loaded meanwhile.
 */
const STORE_ROUND_TRIP = `
  const { createServer } = await import('node:http');
  const { openRemoteStore } = await import('./dist/store/remote-store.js');
  const server = createServer((req, res) => req.resume().on('end', () => res.end('{"head":{},"boolean":true}')));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const store = openRemoteStore({ queryUrl: \`http://127.0.0.1:\${server.address().port}/sparql\` });
  const asked = await store.ask('ASK {}');
  await store.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> <urn:c> } }');
  await store.close();
  server.close();
  console.log(JSON.stringify({ asked, nodeUndici: process.moduleLoadList.includes(${JSON.stringify(NODE_UNDICI)}) }));
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

  it("should send a remote store's requests without undici, Node's fetch or sparql-http-client", () => {
    const { packages, status, stdout } = importedBy(['--input-type=module', '-e', STORE_ROUND_TRIP]);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ asked: true, nodeUndici: false });
    expect(packages.filter((p) => ['undici', 'sparql-http-client', 'nodeify-fetch'].includes(p))).toEqual([]);
  });
});
