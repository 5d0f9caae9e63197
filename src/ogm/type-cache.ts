import { LIMITS } from '../limits.js';

/**
 * Remembers the asserted classes of individuals the OGM has seen, so a commit validates its
 * domain rules without a read. Types are written once at create and never replaced; the cache is
 * bounded and forgets the least recently used entries.
 */
export class TypeCache {
  private readonly map = new Map<string, string[]>();

  constructor(private readonly capacity: number = LIMITS.ogmTypeCacheEntries) {}

  /** Individuals remembered now. */
  get size(): number {
    return this.map.size;
  }

  get(graph: string, iri: string): string[] | undefined {
    const key = `${graph} ${iri}`;
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }

  add(graph: string, iri: string, classes: readonly string[]): void {
    const key = `${graph} ${iri}`;
    const merged = [...new Set([...(this.map.get(key) ?? []), ...classes])];
    this.map.delete(key);
    this.map.set(key, merged);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  /** Forgets an individual (after it was removed). */
  delete(graph: string, iri: string): void {
    this.map.delete(`${graph} ${iri}`);
  }
}
