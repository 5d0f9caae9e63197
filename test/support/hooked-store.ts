import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from '../../src/store/triple-store.js';

/** Called with the 1-based number of an update and its text, before the update is sent. */
export type UpdateHook = (n: number, update: string) => Promise<void> | void;

/**
 * A store that passes every request to `inner` and calls its hooks on the way: a hook that
 * writes through `inner` is another writer acting in between; one that throws is the store
 * failing that request.
 */
export class HookedStore implements TripleStore {
  /** Called before each `update` (which is not sent when it throws). */
  beforeUpdate: UpdateHook | undefined;
  /**
   * Called once, right after the next SELECT answers and before its caller sees the rows (then
   * cleared): another writer acting between a read and the update that acts on it.
   */
  afterNextSelect: (() => Promise<void>) | undefined;
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

  get readsMayTear(): boolean | undefined {
    return this.inner.readsMayTear;
  }
  async select(query: string): Promise<Bindings[]> {
    const rows = await this.inner.select(query);
    const hook = this.afterNextSelect;
    this.afterNextSelect = undefined;
    await hook?.();
    return rows;
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
