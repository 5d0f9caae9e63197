import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from '../../src/store/triple-store.js';

/** Called with the 1-based number of an update and its text, before the update is sent. */
export type UpdateHook = (n: number, update: string) => Promise<void> | void;

/**
 * A store that passes every request to `inner` and calls {@link HookedStore.beforeUpdate}
 * before each `update`: a hook that writes through `inner` is another writer acting between two
 * updates; one that throws is the store failing that update (which is then not sent).
 */
export class HookedStore implements TripleStore {
  beforeUpdate: UpdateHook | undefined;
  #updates = 0;

  constructor(private readonly inner: TripleStore) {}

  get description(): string {
    return this.inner.description;
  }
  get requestCount(): number {
    return this.inner.requestCount;
  }
  get deletesWithUnboundVariables(): boolean | undefined {
    return this.inner.deletesWithUnboundVariables;
  }
  select(query: string): Promise<Bindings[]> {
    return this.inner.select(query);
  }
  ask(query: string): Promise<boolean> {
    return this.inner.ask(query);
  }
  async update(update: string): Promise<void> {
    await this.beforeUpdate?.(++this.#updates, update);
    await this.inner.update(update);
  }
  conditionalUpdate(update: string, condition: ConditionalUpdateCheck): Promise<boolean> {
    return this.inner.conditionalUpdate(update, condition);
  }
  load(document: string, options: LoadOptions): Promise<void> {
    return this.inner.load(document, options);
  }
  dump(options?: { graph?: string }): Promise<string> {
    return this.inner.dump(options);
  }
  /** Leaves `inner` open: its owner closes it. */
  async close(): Promise<void> {}
}
