/**
 * The console's live picture: reads the plant every `intervalMs` while a page watches (await,
 * then sleep, under an AbortSignal), keeps the latest view, turns what changed between two reads
 * into activity lines, and hands each new view to its subscribers (the page's event streams).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { compactIri } from '../iri/curie.js';
import type { Logger } from '../lib/logger.js';
import { readPlant, type PlantStore } from './plant-reads.js';
import type { OperationView, PlantView, ServiceView, WorkpieceView } from './plant-view.js';

/** One line of the console's activity: what changed, seen between two reads. */
export interface ActivityLine {
  seq: number;
  time: string;
  kind: 'service' | 'operation' | 'possession' | 'store';
  /** Resources it concerns, for the filter. */
  resources: string[];
  text: string;
  store?: string;
}

/** What subscribers receive: the latest view (or the read's failure) and the activity so far. */
export interface PlantUpdate {
  view: PlantView | undefined;
  /** Why the latest read failed, when it did; the view is then the last good one. */
  error?: string;
  activity: readonly ActivityLine[];
}

/** Options of {@link PlantWatch}. */
export interface PlantWatchOptions {
  stores: readonly PlantStore[];
  graph: string;
  stalenessThresholdMs: number;
  intervalMs: number;
  logger: Logger;
  /** Activity lines kept; default 200. */
  activityCapacity?: number;
}

const key = (store: string, iri: string): string => `${store}\n${iri}`;

function serviceChanges(before: Map<string, ServiceView>, after: readonly ServiceView[]): Omit<ActivityLine, 'seq' | 'time'>[] {
  return after.flatMap((s) => {
    const old = before.get(key(s.store, s.service));
    if (old?.state === s.state) return [];
    return [{ kind: 'service' as const, resources: [s.resource], store: s.store, text: `Service ${compactIri(s.service)} is ${s.state}` }];
  });
}

function operationChanges(before: Map<string, OperationView>, after: readonly OperationView[]): Omit<ActivityLine, 'seq' | 'time'>[] {
  return after.flatMap((o) => {
    const old = before.get(key(o.store, o.operation));
    if (old?.status === o.status) return [];
    const why = o.failureKind === undefined ? '' : ` (${o.failureKind})`;
    return [
      {
        kind: 'operation' as const,
        resources: o.resources,
        store: o.store,
        text: `Operation ${compactIri(o.operation)} is ${o.status}${why}`,
      },
    ];
  });
}

function possessionChanges(before: Map<string, WorkpieceView>, after: readonly WorkpieceView[]): Omit<ActivityLine, 'seq' | 'time'>[] {
  return after.flatMap((w) => {
    const old = before.get(key(w.store, w.workpiece));
    if (old?.possessor === w.possessor || w.possessor === undefined) return [];
    const text = `${compactIri(w.workpiece)} is possessed by ${compactIri(w.possessor)}`;
    return [{ kind: 'possession' as const, resources: [w.possessor, ...(old?.possessor ? [old.possessor] : [])], store: w.store, text }];
  });
}

function byKey<T extends { store: string }>(items: readonly T[], iri: (item: T) => string): Map<string, T> {
  return new Map(items.map((item) => [key(item.store, iri(item)), item]));
}

/**
 * What changed from `before` to `after`, as activity lines without number and time. The first
 * read has no `before` and reports nothing: the page shows the state itself.
 */
export function plantChanges(before: PlantView | undefined, after: PlantView): Omit<ActivityLine, 'seq' | 'time'>[] {
  if (before === undefined) return [];
  const operations = (view: PlantView) => [...view.openOperations, ...view.recentOperations];
  return [
    ...serviceChanges(
      byKey(before.services, (s) => s.service),
      after.services,
    ),
    ...operationChanges(
      byKey(operations(before), (o) => o.operation),
      operations(after),
    ),
    ...possessionChanges(
      byKey(before.workpieces, (w) => w.workpiece),
      after.workpieces,
    ),
  ];
}

/**
 * Polls the plant and publishes updates.
 * @example const watch = new PlantWatch({ stores, graph, stalenessThresholdMs: 90_000, intervalMs: 2000, logger }); watch.start(); ... await watch.stop();
 */
export class PlantWatch {
  readonly #options: PlantWatchOptions;
  readonly #listeners = new Set<(update: PlantUpdate) => void>();
  readonly #activity: ActivityLine[] = [];
  readonly #abort = new AbortController();
  #seq = 0;
  #readAt = 0;
  #loop: Promise<void> | undefined;
  #update: PlantUpdate = { view: undefined, activity: [] };

  constructor(options: PlantWatchOptions) {
    this.#options = options;
  }

  /** The latest update (no view before the first read answered). */
  get latest(): PlantUpdate {
    return this.#update;
  }

  /** Reads now, then every `intervalMs` until {@link stop}. A repeated call does nothing. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops the loop and waits for it. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
    this.#listeners.clear();
  }

  /** Calls `listener` with every update from now on; returns the function that unsubscribes. */
  subscribe(listener: (update: PlantUpdate) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The latest update, read anew first when it is older than `intervalMs` (nobody watched meanwhile). */
  async fresh(): Promise<PlantUpdate> {
    return Date.now() - this.#readAt < this.#options.intervalMs ? this.#update : this.refresh();
  }

  /** One read, published. Exposed for tests and for a refresh on demand (after a cancel). */
  async refresh(): Promise<PlantUpdate> {
    const { stores, graph, stalenessThresholdMs } = this.#options;
    this.#readAt = Date.now();
    try {
      const view = await readPlant(stores, { graph, stalenessThresholdMs });
      this.#record(plantChanges(this.#update.view, view));
      this.#update = { view, activity: this.#activity };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.#update.error !== message) this.#options.logger.warn({ err: error }, 'console: reading the plant failed');
      this.#update = { view: this.#update.view, error: message, activity: this.#activity };
    }
    for (const listener of this.#listeners) listener(this.#update);
    return this.#update;
  }

  #record(lines: readonly Omit<ActivityLine, 'seq' | 'time'>[]): void {
    const time = new Date().toISOString();
    for (const line of lines) this.#activity.unshift({ ...line, seq: (this.#seq += 1), time });
    this.#activity.splice(this.#options.activityCapacity ?? 200);
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      // Nobody watching, nothing read: an idle console costs the stores nothing.
      if (this.#listeners.size > 0 || this.#update.view === undefined) await this.refresh();
      await sleep(this.#options.intervalMs, undefined, { signal }).catch(() => undefined);
    }
  }
}
