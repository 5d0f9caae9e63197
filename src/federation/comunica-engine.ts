/**
 * Loads Comunica's SPARQL engine on first use, once per process. Comunica takes about a second
 * and some 60 MB to load and build, so nothing imports it statically: only the reads across
 * several stores call this, never a running sidecar.
 */
import Module, { createRequire } from 'node:module';
import zlib from 'node:zlib';
import type { QueryEngine } from '@comunica/query-sparql';
import { StoreError } from '../errors.js';

// Loaded with a real `require` (Comunica is CommonJS): the redirect below acts on Node's
// CommonJS resolver, which an `import()` inside a test runner's module registry would bypass.
const require = createRequire(import.meta.url);

let engine: Promise<QueryEngine> | undefined;

/** The process's one Comunica engine, loaded and built on the first call. */
export function comunicaEngine(): Promise<QueryEngine> {
  engine ??= Promise.resolve().then(buildEngine);
  return engine;
}

type Resolve = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve };

// Comunica's HTTP actor pins undici 8, which needs Node 22.19 (it reads zlib's zstd functions
// and newer web internals while it loads) and fails to load on Node 20. The actor needs from
// undici only what undici 7 has (an Agent with the cache interceptor, used with an HTTP cache
// only; requests go through the fetch each read passes, see read-connections.ts), so on a Node
// without zstd its `undici` resolves to the project's own undici 7 while the engine is built,
// and nothing else changes.
function buildEngine(): QueryEngine {
  if (typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function') return newEngine();
  const undici = undici7();
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request, parent, ...rest) {
    if (request === 'undici' && parent?.filename?.includes('/@comunica/actor-http-fetch/')) return undici;
    return resolve.call(this, request, parent, ...rest);
  };
  try {
    return newEngine();
  } finally {
    loader._resolveFilename = resolve;
  }
}

function undici7(): string {
  try {
    return require.resolve('undici');
  } catch (error) {
    throw new StoreError(
      `reading across several stores needs Node 22.19 or newer, or the undici package (7.x) installed next to this one, on Node ${process.versions.node}`,
      undefined,
      undefined,
      { cause: error },
    );
  }
}

function newEngine(): QueryEngine {
  const { QueryEngine: Engine } = require('@comunica/query-sparql') as typeof import('@comunica/query-sparql');
  return new Engine();
}
