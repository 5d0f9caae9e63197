import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { SemanticMiddlewareError, StoreError, UnavailableError, ValueError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { clearGraphUpdate, countTriplesQuery, holdsHashAsk, markHashUpdate } from '../queries/provisioning.js';
import type { RdfFormat, TripleStore } from '../store/triple-store.js';
import { acquireProvisioningLease } from './provisioning-lease.js';

/** One RDF file and the named graph it is loaded into. */
export interface ModuleSource {
  /** Short name for logs (a bundled module's name, or the file name). */
  readonly name: string;
  readonly path: string;
  readonly graph: string;
  readonly format: RdfFormat;
  /** The file's bytes when the caller has already read them. */
  readonly content?: Buffer;
  /** Whether the graph held this file when the caller just looked (see {@link checkModule}). */
  readonly current?: boolean;
}

/** What happened to one module. */
export interface ModuleReport {
  readonly name: string;
  readonly path: string;
  readonly graph: string;
  /** `sha256:<hex>` of the file's bytes. */
  readonly hash: string;
  /** `unchanged`: the graph already held this exact file and was left alone. */
  readonly status: 'loaded' | 'unchanged';
  readonly bytes: number;
  /** Triples in the graph after loading (including the hash triple); not counted when unchanged. */
  readonly triples?: number;
  readonly ms: number;
}

/** Progress of a load, for progress bars: `start` before, `write` while and `done` after a module. */
export type OntologyLoadEvent =
  | { readonly phase: 'start'; readonly name: string; readonly path: string; readonly graph: string; readonly bytes: number }
  | { readonly phase: 'write'; readonly name: string; readonly written: number }
  | { readonly phase: 'done'; readonly report: ModuleReport };

/** The part of a pino logger the loader uses, so tests can pass a fake. */
export interface OntologyLogger {
  info(obj: object, msg: string): void;
}

export interface ModuleLoadOptions {
  onProgress?: (event: OntologyLoadEvent) => void;
  /** Gets one line per module. */
  logger?: OntologyLogger;
}

/** Reads an ontology file; a missing or unreadable one is a ValueError naming the file. */
export async function readModule(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(code ?? error);
    throw new ValueError(`cannot read ontology file "${path}": ${why}`, { cause: error });
  }
}

/** Checks that `path` is a readable regular file, without reading it; a ValueError names the file. */
export async function assertReadableFile(path: string): Promise<void> {
  try {
    if ((await stat(path)).isFile()) return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ValueError(`cannot read ontology file "${path}": ${code === 'ENOENT' ? 'no such file' : String(code ?? error)}`, {
      cause: error,
    });
  }
  throw new ValueError(`cannot read ontology file "${path}": it is not a regular file`);
}

async function countTriples(store: TripleStore, graph: string): Promise<number | undefined> {
  const rows = await store.select(countTriplesQuery(graph));
  const n = Number(rows[0]?.n?.value);
  return Number.isFinite(n) ? n : undefined;
}

function holdsHash(store: TripleStore, graph: string, hash: string): Promise<boolean> {
  return store.ask(holdsHashAsk(graph, hash));
}

/**
 * Under the module's provisioning lease, replaces the graph's content with the file unless a
 * process that held the lease before has just loaded this very file. Returns what a load
 * wrote, undefined when nothing was written.
 */
async function replaceUnlessCurrent(
  store: TripleStore,
  source: ModuleSource & { readonly bytes: Buffer; readonly hash: string },
  options: ModuleLoadOptions,
): Promise<{ triples: number | undefined } | undefined> {
  const { name, path, graph, bytes, hash } = source;
  const lease = await acquireProvisioningLease(store, graph, {
    onWait: () => options.logger?.info({ module: name, graph }, 'ontology module is being loaded by another process; waiting for it'),
  });
  try {
    if (await holdsHash(store, graph, hash)) return undefined;
    await store.update(clearGraphUpdate(graph));
    try {
      await store.load(bytes.toString('utf8'), {
        graph,
        format: source.format,
        baseIri: pathToFileURL(path).href,
        onProgress: (written) => options.onProgress?.({ phase: 'write', name, written }),
      });
    } catch (error) {
      // Keep the class (a StoreError stays one, with its endpoint and status), add the file.
      const message = `cannot load ontology file "${path}" into <${graph}>: ${error instanceof Error ? error.message : String(error)}`;
      if (error instanceof StoreError) throw new StoreError(message, error.endpoint, error.httpStatus, { cause: error });
      if (error instanceof SemanticMiddlewareError && !(error instanceof ValueError)) throw error;
      throw new ValueError(message, { cause: error });
    }
    // A holder that stalled past its lease may have been overtaken: leave the graph unmarked,
    // so that the next provisioning loads it again.
    if (!lease.held) throw new UnavailableError(`lost the provisioning lease of <${graph}> while loading "${path}" (the load stalled for over ${LIMITS.provisioningLeaseMs / 1000} s): provision again`);
    await store.update(markHashUpdate(graph, hash));
    return { triples: await countTriples(store, graph) };
  } finally {
    await lease.release();
  }
}

/**
 * Reads the module's file and asks whether its graph holds it (one request), so that the
 * checks of several modules can run at once; {@link loadModule} of the result asks nothing again.
 */
export async function checkModule(store: TripleStore, source: ModuleSource): Promise<ModuleSource> {
  const content = source.content ?? (await readModule(source.path));
  return { ...source, content, current: await holdsHash(store, source.graph, hashOf(content)) };
}

const hashOf = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * Loads one RDF file into its named graph, idempotently. The graph records the `sha256` of the
 * file it holds (`<graph> sm:contentHash "sha256:..."`, inside the graph); when that matches,
 * nothing is written. Otherwise the graph is cleared, the file loaded, and the hash written last,
 * so a load that failed half-way carries no hash and is redone next time. Clearing first also
 * keeps blank nodes (OWL restrictions, RDF lists) from being duplicated by a reload, and the
 * provisioning lease keeps two processes from loading one graph at once.
 *
 * One request when the graph is current. A load is several requests, not one atomic update: a
 * reader may briefly see the module missing while it is replaced, which is acceptable for
 * provisioning (it happens at install or upgrade time).
 */
export async function loadModule(
  store: TripleStore,
  source: ModuleSource,
  options: ModuleLoadOptions = {},
): Promise<ModuleReport> {
  const started = performance.now();
  const bytes = source.content ?? (await readModule(source.path));
  const hash = hashOf(bytes);
  const { name, path, graph } = source;
  options.onProgress?.({ phase: 'start', name, path, graph, bytes: bytes.length });

  const current = source.current ?? (await holdsHash(store, graph, hash));
  const loaded = current ? undefined : await replaceUnlessCurrent(store, { ...source, bytes, hash }, options);
  const triples = loaded?.triples;
  const report: ModuleReport = {
    name,
    path,
    graph,
    hash,
    status: loaded ? 'loaded' : 'unchanged',
    bytes: bytes.length,
    ...(triples === undefined ? {} : { triples }),
    ms: Math.round((performance.now() - started) * 10) / 10,
  };
  options.onProgress?.({ phase: 'done', report });
  options.logger?.info(
    { module: name, file: path, graph, status: report.status, triples, bytes: report.bytes, ms: report.ms },
    loaded ? 'ontology module loaded' : 'ontology module unchanged',
  );
  return report;
}
