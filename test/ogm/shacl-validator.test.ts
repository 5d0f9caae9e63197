import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildCli, ROOT } from '../cli/support/cli-process.js';
import { loadedIn } from '../support/import-log.js';

const IMPORT_LOG = fileURLToPath(new URL('../cli/support/import-log.mjs', import.meta.url));
const MARK = 'conforming writes done';
const dir = mkdtempSync(join(tmpdir(), 'sm-shacl-loading-'));

/**
 * An OGM on the embedded store with the shapes graph: a create and a compare-and-set that
 * conform, the mark in the import log, then a create the shapes refuse (a status outside sh:in),
 * and what it was refused with.
 */
const WRITES = `
  const { appendFileSync } = await import('node:fs');
  const { openStore, OGM, provisionOntology, svc, cfc } = await import('./dist/index.js');
  const { ONTOLOGY_GRAPHS } = await import('./dist/vocab/index.js');
  const store = await openStore({ kind: 'memory' });
  await provisionOntology(store);
  const ogm = new OGM({ store, graph: 'urn:test:shacl-loading', shapesGraph: ONTOLOGY_GRAPHS.shapes });
  const op = (n, status) => ogm.create({ iri: 'https://example.org/plant#op' + n, type: cfc.Operation, properties: { [svc.operationStatus]: status } });
  await op(1, 'queued');
  const claimed = await ogm.commit({ iri: 'https://example.org/plant#op1', set: { [svc.operationStatus]: 'running' }, guard: { [svc.operationStatus]: 'queued' } });
  appendFileSync(process.env.IMPORT_LOG, ${JSON.stringify(MARK)} + '\\n');
  const refused = await op(2, 'paused').then(() => undefined, (e) => ({ name: e.name, rule: e.details?.rule }));
  const again = await op(3, 'paused').then(() => undefined, (e) => e.details?.rule);
  await op(4, 'done');
  await store.close();
  console.log(JSON.stringify({ applied: claimed.applied, refused, again }));
`;

beforeAll(async () => {
  expect(await buildCli()).toBe(true);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SHACL validation at write time', () => {
  it('should load rdf-validate-shacl only when a write does not conform, and then refuse it with the rule', () => {
    const log = join(dir, 'imports.log');
    const result = spawnSync(process.execPath, ['--import', IMPORT_LOG, '--input-type=module', '-e', WRITES], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, IMPORT_LOG: log },
      timeout: 30_000,
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      applied: true,
      refused: { name: 'ValidationError', rule: 'sh:InConstraintComponent' },
      again: 'sh:InConstraintComponent',
    });
    const [before, after] = readFileSync(log, 'utf8').split(`${MARK}\n`);
    const half = (name: string, text: string | undefined): ReturnType<typeof loadedIn> => {
      writeFileSync(join(dir, name), text ?? '');
      return loadedIn(join(dir, name));
    };
    const conforming = half('before.log', before);
    // The store and the OGM's own checks were loaded: the absence below is not a process that loaded nothing.
    expect(conforming.packages).toEqual(expect.arrayContaining(['oxigraph', 'n3']));
    expect(conforming.packages.filter((p) => ['rdf-validate-shacl', '@vocabulary/sh', 'clownface'].includes(p))).toEqual([]);
    expect(conforming.modules).not.toContain('ogm/shacl-validator');
    const refusing = half('after.log', after);
    expect(refusing.packages).toContain('rdf-validate-shacl');
    expect(refusing.modules).toContain('ogm/shacl-validator');
  });
});
