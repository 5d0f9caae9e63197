/**
 * "The graph is unchanged": snapshots of what a hostile call could have touched, compared after
 * every case. On the embedded store (one per test file) that is the whole store; on a shared
 * remote store it is the file's own graphs, a canary graph of its own and {@link EVIL_GRAPH}
 * (other test files write the rest of it at the same time). Suites pass {@link GraphGuard.canary}
 * to `storeSuite`'s `extraGraphs`, which drops it.
 */
import { expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { TripleStore } from '../../../src/store/triple-store.js';
import type { StoreKind } from '../../support/fixtures.js';
import { EVIL_GRAPH } from './hostile.js';

/** Compares the guarded graphs with the snapshot taken by {@link GraphGuard.reset}. */
export interface GraphGuard {
  /** The canary graph: a few triples nobody may change. */
  readonly canary: string;
  /** Loads the canary and takes the snapshot later cases are compared with. */
  reset(): Promise<void>;
  /** The current snapshot text. */
  snapshot(): Promise<string>;
  /** Expects the guarded graphs to equal the snapshot; `what` says which case broke it. */
  expectUnchanged(what: string): Promise<void>;
}

/**
 * A guard over `graphs` of `store()` (a getter: suites open their store in beforeAll).
 * @example const guard = graphGuard(() => suite.store!, kind, [G]); await guard.reset();
 */
export function graphGuard(store: () => TripleStore, kind: StoreKind, graphs: readonly string[]): GraphGuard {
  const canary = `urn:fuzz:canary:${randomUUID()}`;
  let before = '';
  const snapshot = async (): Promise<string> => {
    const s = store();
    if (kind === 'embedded') return s.dump();
    const parts = await Promise.all([...graphs, canary, EVIL_GRAPH].map(async (g) => `# ${g}\n${await s.dump({ graph: g })}`));
    return parts.join('\n');
  };
  return {
    canary,
    snapshot,
    async reset() {
      // Loading the same triples again changes nothing, so every reset may (re)load the canary.
      await store().load(`<urn:fuzz:canary> <urn:fuzz:holds> "intact" .\n<urn:fuzz:canary> <urn:fuzz:id> <${canary}> .\n`, {
        graph: canary,
        format: 'text/turtle',
      });
      before = await snapshot();
      expect(before).toContain('"intact"');
    },
    async expectUnchanged(what) {
      const after = await snapshot();
      if (after === before) return;
      const [was, is] = [new Set(before.split('\n')), new Set(after.split('\n'))];
      const gone = [...was].filter((l) => !is.has(l));
      const added = [...is].filter((l) => !was.has(l));
      throw new Error(
        `the graph changed after ${what}\n--- removed\n${gone.join('\n').slice(0, 3000)}\n--- added\n${added.join('\n').slice(0, 3000)}`,
      );
    },
  };
}
