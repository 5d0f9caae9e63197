import { performance } from 'node:perf_hooks';
import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from './triple-store.js';

/** The kinds of request a {@link TripleStore} takes, as measured. */
export type StoreRequestKind = 'select' | 'ask' | 'update' | 'conditional_update' | 'load' | 'dump';

/** How a measured request ended: answered, or failed (no answer, or an error answer). */
export type StoreRequestOutcome = 'ok' | 'error';

/** Told of every request a {@link MeasuredStore} made: its kind, outcome and duration in seconds. */
export type StoreObserver = (kind: StoreRequestKind, outcome: StoreRequestOutcome, seconds: number) => void;

/**
 * A {@link TripleStore} that tells its observers of every request it passes on to the store it
 * wraps: the one place the store seam is measured, so no caller times its own requests. Observers
 * come and go ({@link MeasuredStore.observe}), so the store can be opened before whoever counts
 * its requests exists (a sidecar's metrics start with its middleware). With no observer it costs
 * one call per request. Closing it closes the wrapped store.
 * @example
 * const store = new MeasuredStore(await openEmbeddedStore({ dataDir }));
 * const unobserve = store.observe((kind, outcome, seconds) => console.log(kind, outcome, seconds));
 */
export class MeasuredStore implements TripleStore {
  readonly #observers = new Set<StoreObserver>();

  constructor(readonly inner: TripleStore) {}

  /** Adds an observer; returns the function that removes it again. */
  observe(observer: StoreObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  get description(): string {
    return this.inner.description;
  }
  get requestCount(): number {
    return this.inner.requestCount;
  }
  get retriedRequests(): number | undefined {
    return this.inner.retriedRequests;
  }
  get failedRequests(): number | undefined {
    return this.inner.failedRequests;
  }
  get deletesWithUnboundVariables(): boolean | undefined {
    return this.inner.deletesWithUnboundVariables;
  }

  get readsMayTear(): boolean | undefined {
    return this.inner.readsMayTear;
  }

  select(query: string): Promise<Bindings[]> {
    return this.#measure('select', () => this.inner.select(query));
  }
  ask(query: string): Promise<boolean> {
    return this.#measure('ask', () => this.inner.ask(query));
  }
  update(update: string): Promise<void> {
    return this.#measure('update', () => this.inner.update(update));
  }
  conditionalUpdate(update: string, condition: ConditionalUpdateCheck): Promise<boolean> {
    return this.#measure('conditional_update', () => this.inner.conditionalUpdate(update, condition));
  }
  load(document: string, options: LoadOptions): Promise<void> {
    return this.#measure('load', () => this.inner.load(document, options));
  }
  dump(options?: { graph?: string }): Promise<string> {
    return this.#measure('dump', () => this.inner.dump(options));
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  async #measure<T>(kind: StoreRequestKind, request: () => Promise<T>): Promise<T> {
    if (this.#observers.size === 0) return request();
    const started = performance.now();
    let outcome: StoreRequestOutcome = 'error';
    try {
      const answer = await request();
      outcome = 'ok';
      return answer;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      for (const observer of this.#observers) observer(kind, outcome, seconds);
    }
  }
}
