/**
 * What every fault test shares: the two stores a suite runs on (the embedded store served by
 * `store serve`, and the Virtuoso under test when SPARQL_ENDPOINT is set), the soak knobs, a
 * seeded random generator, an in-process caller, and polling helpers.
 *
 * Knobs (read once, documented at the top of each test file that uses them):
 * - `SOAK=1` (`npm run soak`): the long, randomized variants;
 * - `FAULT_ROUNDS=n`: rounds of the randomized loops (overrides the CI and soak defaults);
 * - `FAULT_SEED=n`: replays one run of a randomized loop (each run prints its seed).
 */
import { randomInt } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createLogger } from '../../../src/lib/logger.js';
import { readOperation, type OperationSnapshot } from '../../../src/middleware/operations/operation-watch.js';
import { SemanticMiddleware } from '../../../src/middleware/semantic-middleware.js';
import { OGM } from '../../../src/ogm/index.js';
import { ONTOLOGY_GRAPHS, svc } from '../../../src/vocab/index.js';
import { cellSuite, servedStore, virtuosoStore, type CellStore } from '../../e2e/support/cell.js';
import type { ProcessGroup } from '../../support/sidecar-process.js';

/** The stores every fault suite runs on. */
export const STORE_KINDS = ['served', 'virtuoso'] as const;
export type FaultStoreKind = (typeof STORE_KINDS)[number];

/** True under `npm run soak` (SOAK=1). */
export const SOAK = process.env.SOAK === '1' || process.env.SOAK === 'true';

/** Rounds of a randomized loop: FAULT_ROUNDS, else `soak` under SOAK, else `ci`. */
export function rounds(ci: number, soak: number): number {
  const given = Number(process.env.FAULT_ROUNDS);
  if (Number.isInteger(given) && given > 0) return given;
  return SOAK ? soak : ci;
}

/** The seed of a randomized loop: FAULT_SEED, else a fresh one (print it). */
export function seed(): number {
  const given = Number(process.env.FAULT_SEED);
  return Number.isInteger(given) && given > 0 ? given : randomInt(1, 2 ** 31);
}

/** A small seeded PRNG (mulberry32): the same seed replays the same choices. */
export function prng(seedValue: number): { next(): number; int(min: number, max: number): number; pick<T>(items: readonly T[]): T } {
  let a = seedValue >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** Whether a suite on `kind` can run here, and its `it` that says so when it cannot. */
export const faultSuite = cellSuite;

/** Ends a suite's processes, then what `closers` close (proxies, recorders), the cell's store client and the temp dir. */
export async function closeFaultCell(
  group: ProcessGroup,
  cell: CellStore | undefined,
  dir: string | undefined,
  ...closers: (() => Promise<unknown> | undefined)[]
): Promise<void> {
  await group.cleanup();
  await Promise.all(closers.map((close) => Promise.resolve(close())));
  await cell?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

/** The cell store of `kind`: `store serve --memory --provision` (its data in `serveArgs`), or Virtuoso with a fresh graph. */
export function openCellStore(kind: FaultStoreKind, group: ProcessGroup, serveArgs?: readonly string[]): Promise<CellStore> {
  return kind === 'served' ? servedStore(group, serveArgs) : virtuosoStore(process.env.SPARQL_ENDPOINT!);
}

/** `store` as seen through another URL (a fault proxy): what a sidecar started with it connects to. */
export function via(store: CellStore, url: string): CellStore {
  return { ...store, url };
}

/**
 * A caller in this process, as `semantic-sidecar request` is one: a never-started
 * watchdog-mode middleware on the cell's graph, whose `request` discovers, creates and triggers.
 */
export function inProcessCaller(store: CellStore): SemanticMiddleware {
  const ogm = new OGM({ store: store.client, graph: store.graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  return new SemanticMiddleware({ mode: 'watchdog', ogm, namedGraph: store.graph, logger: createLogger({ level: 'silent' }) });
}

/** Polls `probe` every `everyMs` until it returns a value other than undefined; rejects after `timeoutMs` with `what` and `detail()`. */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs: number,
  detail: () => string = () => '',
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The Operation's snapshot once `done(snapshot)` holds. */
export function operationWhen(
  store: CellStore,
  operation: string,
  done: (s: OperationSnapshot | null) => boolean,
  timeoutMs: number,
  detail?: () => string,
): Promise<OperationSnapshot | null> {
  return until(
    async () => {
      const snapshot = await readOperation(store.ogm, operation);
      return done(snapshot) ? { snapshot } : undefined;
    },
    `Operation <${operation}> reaching the expected state`,
    timeoutMs,
    detail,
  ).then((r) => r.snapshot);
}

/** The latest `svc:lastHeartbeat` of `service` (ms since the epoch), or undefined. */
export async function lastHeartbeat(store: CellStore, service: string): Promise<number | undefined> {
  const rows = await store.client.select(`SELECT ?hb WHERE { GRAPH <${store.graph}> { <${service}> <${svc.lastHeartbeat}> ?hb } }`);
  const times = rows.map((r) => Date.parse(r.hb!.value)).filter((t) => !Number.isNaN(t));
  return times.length === 0 ? undefined : Math.max(...times);
}

/** True while `service` carries `svc:address`. */
export function reachable(store: CellStore, service: string): Promise<boolean> {
  return store.client.ask(`ASK { GRAPH <${store.graph}> { <${service}> <${svc.address}> ?a } }`);
}

/** GET `url`; resolves with the status and the parsed JSON body (undefined when not JSON). */
export async function getJson(url: string, timeoutMs = 10_000): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}
