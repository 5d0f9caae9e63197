/**
 * The caller's discovery, remembered for a short while. Each request used to read the graph
 * before it could write anything: one store request on the critical path of every dispatch, which
 * measured here about 0.5 ms of latency and a fifth of the store's CPU per Operation. What
 * discovery found for a Capability class (and pinned resource) is reused for `ttlMs` from the
 * read; the request whose remembered receiver declines the Operation asks discovery again (see `request`).
 */
import { LIMITS } from '../../limits.js';
import type { OGM } from '../../ogm/ogm.js';
import { resolveDispatchTarget, type DispatchTarget, type ResolveDispatchTargetOptions } from '../../registration/dispatch.js';

/** What {@link DispatchTargets.find} answers. */
export interface FoundTarget {
  readonly target: DispatchTarget;
  /** True when it was remembered from an earlier read (it may be up to `ttlMs` old). */
  readonly remembered: boolean;
}

interface Entry {
  /** Settles with the read's target; a rejected read leaves no entry. */
  readonly read: Promise<DispatchTarget>;
  /** `performance.now()` past which the entry is not used. */
  readonly until: number;
  /** Set once the read resolved. */
  target?: DispatchTarget;
}

const keyOf = (capabilityClass: string, targetResource: string | null | undefined): string => `${capabilityClass}\n${targetResource ?? ''}`;

/**
 * Discovery results of one middleware instance, keyed by Capability class and target resource.
 * Requests that miss at the same moment share one read. Only reads that found a target are kept;
 * the graph and the freshness window are the instance's own, fixed at construction.
 */
export class DispatchTargets {
  private readonly entries = new Map<string, Entry>();

  /**
   * @param ttlMs How long a read's target is reused; 0 reads every time.
   * @param maxEntries Keys remembered at once; past it the oldest goes. Default `LIMITS.discoveryCacheEntries`.
   * @param now Clock in ms; default `performance.now()`, which no wall-clock step moves.
   */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number = LIMITS.discoveryCacheEntries,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The target discovery finds for the class, remembered when a read found it less than
   * `ttlMs` ago; a read in flight for it is shared.
   * @throws what resolveDispatchTarget throws (OperationResolutionError when none is reachable).
   */
  async find(ogm: OGM, capabilityClass: string, options: ResolveDispatchTargetOptions): Promise<FoundTarget> {
    if (this.ttlMs <= 0) return { target: await resolveDispatchTarget(ogm, capabilityClass, options), remembered: false };
    const key = keyOf(capabilityClass, options.targetResource);
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && now < entry.until) {
      // A read still in flight is as fresh as one of this request's own.
      return entry.target ? { target: entry.target, remembered: true } : { target: await entry.read, remembered: false };
    }
    const read = resolveDispatchTarget(ogm, capabilityClass, options);
    const started: Entry = { read, until: now + this.ttlMs };
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, started);
    try {
      started.target = await read;
    } catch (error) {
      if (this.entries.get(key) === started) this.entries.delete(key);
      throw error;
    }
    return { target: started.target, remembered: false };
  }

  /** Forgets the class's remembered target, if it is still `target` (a later read's stays). */
  forget(capabilityClass: string, targetResource: string | null | undefined, target: DispatchTarget): void {
    const key = keyOf(capabilityClass, targetResource);
    const entry = this.entries.get(key);
    if (entry?.target !== undefined && sameTarget(entry.target, target)) this.entries.delete(key);
  }
}

/** Whether two targets are the same Capability of the same Service at the same address. */
export function sameTarget(a: DispatchTarget, b: DispatchTarget): boolean {
  return a.capabilityIri === b.capabilityIri && a.serviceIri === b.serviceIri && a.serviceAddress === b.serviceAddress;
}
