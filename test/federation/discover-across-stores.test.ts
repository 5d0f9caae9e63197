/**
 * `discover` and `status` across two stores (one per hall): two `store serve` instances, or
 * Virtuoso and a `store serve`, each with a real sidecar registered in it. Every row names its
 * store and equals what the one-store read of that store gives; a running sidecar never loads
 * Comunica, and a read of one store does not either.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DiscoveredReceiver } from '../../src/cli/discover-command.js';
import type { ResourceStatus } from '../../src/cli/status-command.js';
import { servedStore, startDoor1, startRobot1, virtuosoStore, type CellResource, type CellStore } from '../e2e/support/cell.js';
import { buildCli } from '../cli/support/cli-process.js';
import { loadedIn } from '../support/import-log.js';
import { ProcessGroup, runCli } from '../support/sidecar-process.js';

const IMPORT_LOG = fileURLToPath(new URL('../cli/support/import-log.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sm-across-stores-'));

/** The packages a process whose import log is `log` loaded. */
const packagesIn = (log: string): string[] => loadedIn(log).packages;

/** Runs the CLI with the stores' flags (and the graph both share) and parses its JSON. */
async function json<T>(
  args: readonly string[],
  stores: readonly CellStore[],
  importLog?: string,
): Promise<{ code: number | null; out: T }> {
  const flags = stores.flatMap((s) => ['--store', s.url]);
  const graph = ['--graph', stores[0]!.graph];
  const env = importLog === undefined ? {} : { NODE_OPTIONS: `--import=${IMPORT_LOG}`, IMPORT_LOG: importLog };
  const result = await runCli([...args, ...flags, ...graph, '--json'], { env, timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  return { code: result.code, out: JSON.parse(result.stdout) as T };
}

// Fields that change between two reads a moment apart.
const settled = ({ heartbeatAgeSeconds: _age, lastHeartbeat: _hb, fresh: _fresh, ...rest }: DiscoveredReceiver) => rest;

/** door1 registered in the first store, robot1 in the second, and the checks across them. */
function describeAcross(name: string, open: (group: ProcessGroup) => Promise<[CellStore, CellStore]>, enabled = true): void {
  (enabled ? describe : describe.skip)(`discover and status across ${name}`, () => {
    const group = new ProcessGroup();
    let stores: [CellStore, CellStore];
    let door1: CellResource;
    let robot1: CellResource;
    const sidecarLog = join(dir, `${name.replace(/\W+/gu, '-')}-sidecar-imports.log`);

    beforeAll(async () => {
      expect(await buildCli()).toBe(true);
      stores = await open(group);
      const env = { NODE_OPTIONS: `--import=${IMPORT_LOG}`, IMPORT_LOG: sidecarLog };
      // Each sidecar writes into the graph the reads name (a served store's cell passes none).
      door1 = await startDoor1(group, join(dir, `${name}-door1`), stores[0], { env, args: ['--graph', stores[0].graph] });
      robot1 = await startRobot1(group, join(dir, `${name}-robot1`), stores[1], { args: ['--graph', stores[1].graph] });
    }, 120_000);
    afterAll(async () => {
      await group.cleanup();
      await Promise.all(stores.map((s) => s.close()));
    }, 60_000);

    it('should find the receivers of both stores, each naming its store, as each store alone gives them', async () => {
      const across = await json<DiscoveredReceiver[]>(['discover', '--capability', 'cfc:Capability'], stores, join(dir, `${name}-d.log`));
      expect(new Set(across.out.map((r) => [r.service, r.store].join(' ')))).toEqual(
        new Set([`${door1.sidecar.service} ${stores[0].url}`, `${robot1.sidecar.service} ${stores[1].url}`]),
      );
      expect(packagesIn(join(dir, `${name}-d.log`))).toContain('@comunica/query-sparql');
      for (const store of stores) {
        const alone = await json<DiscoveredReceiver[]>(['discover', '--capability', 'cfc:Capability'], [store], join(dir, `${name}-1.log`));
        expect(alone.out.every((r) => r.store === undefined)).toBe(true);
        expect(across.out.filter((r) => r.store === store.url).map(({ store: _s, ...r }) => settled(r))).toEqual(alone.out.map(settled));
        expect(packagesIn(join(dir, `${name}-1.log`)).filter((p) => p.startsWith('@comunica/'))).toEqual([]);
      }
    }, 180_000);

    it('should print a STORE column in the table', async () => {
      const flags = stores.flatMap((s) => ['--store', s.url]);
      const result = await runCli(['discover', '--capability', 'plant:DoorOpeningCapability', ...flags, '--graph', stores[0].graph]);
      expect(result.code).toBe(0);
      const [header, ...rows] = result.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^HEARTBEAT\s+RESOURCE\s+ADDRESS\s+SERVICE\s+CAPABILITY\s+STORE$/u);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatch(new RegExp(`plant:door1 .* ${stores[0].url.replace(/[.?]/gu, '\\$&')}$`, 'u'));
    }, 120_000);

    it("should show a resource's status from every store, naming the store of each row", async () => {
      const across = await json<ResourceStatus>(['status', '--resource', 'plant:robot1'], stores);
      const alone = await json<ResourceStatus>(['status', '--resource', 'plant:robot1'], [stores[1]]);
      expect(across.out.stores).toEqual(stores.map((s) => s.url));
      expect(across.out.services.map((s) => [s.service, s.store])).toEqual([[robot1.sidecar.service, stores[1].url]]);
      expect(across.out.capabilities.map(({ store, ...c }) => [c, store])).toEqual(alone.out.capabilities.map((c) => [c, stores[1].url]));
      expect(across.out.operations.queued).toEqual({
        count: 0,
        first: [],
        stores: stores.map((s) => ({ store: s.url, count: 0, first: [] })),
      });
      const none = await runCli(['status', '--resource', 'plant:nobody', ...stores.flatMap((s) => ['--store', s.url])]);
      expect(none.code).toBe(1);
    }, 180_000);

    // prom-client (the metrics) requires the small @opentelemetry/api itself; the SDK and the exporter are ours.
    it('should load neither Comunica nor, without an OTLP endpoint, the OpenTelemetry SDK in a running sidecar', () => {
      const { packages, modules } = loadedIn(sidecarLog);
      expect(packages).toContain('express');
      expect(modules).toContain('middleware/semantic-middleware');
      expect(packages.filter((p) => p.startsWith('@comunica/') || (p.startsWith('@opentelemetry/') && p !== '@opentelemetry/api'))).toEqual(
        [],
      );
      expect(modules.filter((m) => m.startsWith('federation/') || m === 'tracing/otlp-export')).toEqual([]);
    });
  });
}

describeAcross('two store serve instances', async (group) => [await servedStore(group), await servedStore(group)]);

const VIRTUOSO = process.env.SPARQL_ENDPOINT;
describeAcross(
  'Virtuoso and store serve',
  async (group) => {
    const virtuoso = await virtuosoStore(VIRTUOSO!);
    const served = await servedStore(group);
    // The one graph both hold the registrations in: the test's own on Virtuoso.
    return [virtuoso, { ...served, graph: virtuoso.graph }];
  },
  Boolean(VIRTUOSO),
);

describe('reading across stores: usage', () => {
  it('should refuse an embedded store among several, saying to serve it', async () => {
    const result = await runCli(['discover', '--capability', 'plant:X', '--store', 'http://127.0.0.1:9/sparql', '--store', 'memory']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('reading across several stores takes SPARQL endpoints (http(s) URLs) only');
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));
