import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ensureBuilt } from '../support/build.js';
import { ROOT } from '../support/sidecar-process.js';

// What `npm pack` would put in the tarball. Scripts are skipped: `prepack` rebuilds dist/, which
// the other test files run the CLI from; the built tree is made fresh here instead.
let files: Set<string>;

beforeAll(async () => {
  await ensureBuilt();
  const packed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--offline'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [pack] = JSON.parse(packed) as [{ files: { path: string }[] }];
  files = new Set(pack.files.map((f) => f.path));
}, 120_000);

describe('the packed package', () => {
  it('should hold the CLI, the library entry points and the ontology', () => {
    for (const path of [
      'bin/semantic-sidecar.js',
      'dist/cli/main.js',
      'dist/cli-bundle/main.js',
      'dist/index.js',
      'dist/index.d.ts',
      'ontology/service.ttl',
    ])
      expect([path, files.has(path)]).toEqual([path, true]);
  });

  it('should ship no source map without the sources it maps', () => {
    const orphans = [...files]
      .filter((path) => path.endsWith('.map'))
      .filter((path) => {
        const map = JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
        return map.sources.some((source, i) => map.sourcesContent?.[i] == null && !files.has(normalize(join(dirname(path), source))));
      });
    expect(orphans).toEqual([]);
  });

  it('should ship every examples/ file that its configs and README point to', () => {
    const texts = [...files].filter((path) => /^(config\/.*\.ya?ml|README\.md|docs\/.*\.md)$/u.test(path));
    const named = new Set(
      texts.flatMap((path) => readFileSync(join(ROOT, path), 'utf8').match(/(?<![\w./-])examples\/[\w./-]*\w/gu) ?? []),
    );
    expect(named.size).toBeGreaterThan(0);
    expect([...named].filter((path) => !files.has(path) && ![...files].some((f) => f.startsWith(`${path}/`)))).toEqual([]);
  });

  it('should ship nothing under examples/ but sources, ontologies and docs', () => {
    const examples = [...files].filter((path) => path.startsWith('examples/'));
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.filter((path) => !/\.(mjs|js|md|ttl)$/u.test(path))).toEqual([]);
  });
});
