/**
 * Reads the import log that `test/cli/support/import-log.mjs` writes: which packages (under
 * node_modules) and which project modules (under dist/) a process loaded. The CLI runs from the
 * esbuild bundle in dist/cli-bundle/, whose chunks hold many modules and packages each: a loaded
 * chunk counts as every input its metafile (dist/cli-bundle/meta.json) names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './sidecar-process.js';

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/** What a process loaded: package names (`express`, `@comunica/query-sparql`) and dist/ modules without `.js` (`cli/main`). */
export interface Loaded {
  readonly packages: string[];
  readonly modules: string[];
  /** The files of `node_modules/<package>/` it loaded, relative to the package (`lib/dispatcher/pool.js`). */
  readonly filesOf: (pkg: string) => string[];
}

const PACKAGE = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//u;
const MODULE = /(?:^|\/)dist\/(?!cli-bundle\/)(.+)\.js$/u;

/** The bundle chunk file -> the paths (relative to the project root) of the inputs it holds. */
function chunkInputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli-bundle', 'meta.json'), 'utf8')) as Metafile;
  return new Map(Object.entries(meta.outputs).map(([output, { inputs }]) => [join(ROOT, output), Object.keys(inputs)]));
}

/** What the process whose import log is `log` loaded, chunks of the CLI bundle resolved to their inputs. */
export function loadedIn(log: string): Loaded {
  const chunks = chunkInputs();
  const paths = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .flatMap((url) => {
      const path = fileURLToPath(url);
      return [path, ...(chunks.get(path) ?? [])];
    });
  const pick = (pattern: RegExp): string[] => [...new Set(paths.flatMap((p) => pattern.exec(p)?.[1] ?? []))].sort();
  const filesOf = (pkg: string): string[] => {
    const marker = `/node_modules/${pkg}/`;
    return [...new Set(paths.filter((p) => p.includes(marker)).map((p) => p.slice(p.lastIndexOf(marker) + marker.length)))].sort();
  };
  return { packages: pick(PACKAGE), modules: pick(MODULE), filesOf };
}
