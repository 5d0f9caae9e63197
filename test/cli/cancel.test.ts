import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliCaller } from '../../src/lib/caller-identity.js';
import { mintCapabilityIri, mintOperationIri } from '../../src/iri/index.js';
import { readOperation } from '../../src/middleware/operations/operation-watch.js';
import { OGM } from '../../src/ogm/index.js';
import { createOperation } from '../../src/registration/index.js';
import { openStore } from '../../src/store/open-store.js';
import { DEFAULT_DATA_GRAPH, ONTOLOGY_GRAPHS, plant } from '../../src/vocab/index.js';
import { buildCli, cli } from './support/cli-process.js';

/**
 * `semantic-sidecar cancel` and `request --timeout` as a shell runs them, on an embedded store in
 * a data directory that the test and the spawned CLI open in turn: a cancel of a queued
 * Operation (exit 0), of a finished one (exit 1), and malformed arguments (exit 2, nothing written).
 */

const dir = mkdtempSync(join(tmpdir(), 'sm-cli-cancel-'));
const store = join(dir, 'store');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `fn` on the data directory's store, closed afterwards so the CLI can open it. */
async function withOgm<T>(fn: (ogm: OGM) => Promise<T>): Promise<T> {
  const opened = await openStore({ kind: 'embedded', dataDir: store });
  try {
    return await fn(new OGM({ store: opened, graph: DEFAULT_DATA_GRAPH, shapesGraph: ONTOLOGY_GRAPHS.shapes }));
  } finally {
    await opened.close();
  }
}

async function queued(): Promise<string> {
  const operationIri = mintOperationIri(plant.OpenDoorOperation);
  await withOgm((ogm) =>
    createOperation(ogm, { operationIri, operationClass: plant.OpenDoorOperation, capabilityIri: mintCapabilityIri(plant.door1, 'open') }),
  );
  return operationIri;
}

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
  const loaded = cli(['ontology', 'load', '--store', store]);
  expect(loaded.status).toBe(0);
  expect(cli(['ontology', 'load', 'ontology/examples/plant.ttl', '--store', store]).status).toBe(0);
}, 120_000);

describe('cancel', () => {
  it('should fail a queued Operation as cancelled by the shell user, and exit 1 for a finished one', async () => {
    const op = await queued();
    const result = cli(['cancel', op, '--store', store]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ operationIri: op, outcome: 'cancelled', status: 'failed', cancelledBy: cliCaller() });
    const snapshot = await withOgm((ogm) => readOperation(ogm, op));
    expect(snapshot).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: cliCaller() });
    const again = cli(['cancel', op, '--store', store]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("it is 'failed' already");
    const unknown = cli(['cancel', `${op}-unknown`, '--store', store]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('does not exist');
  }, 60_000);

  it('should exit 2 for a malformed Operation IRI or flag, writing nothing', async () => {
    const op = await queued();
    for (const bad of ['not an iri', 'https://example.org/a>b', 'nope:x', '"}> ; DROP ALL #']) {
      const result = cli(['cancel', bad, '--store', store]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('<operation>');
    }
    expect(cli(['cancel', '--store', store]).status).toBe(2);
    expect(cli(['cancel', op, '--wait', '--timeout', '0', '--store', store]).status).toBe(2);
    for (const timeout of ['0', '-1', 'soon', '1e9']) {
      const result = cli([
        'request',
        '--store',
        store,
        '--capability',
        'plant:DoorOpeningCapability',
        '--operation-class',
        'plant:OpenDoorOperation',
        '--timeout',
        timeout,
      ]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('--timeout');
    }
    expect(await withOgm((ogm) => readOperation(ogm, op))).toEqual({ operationIri: op, status: 'queued', createdAt: expect.any(Date) });
  }, 60_000);
});
