import type { TraceContext } from '../../tracing/trace-context.js';
import type { OperationDescription } from '../operations/operation-description.js';

/**
 * The instance's in-memory FIFO of triggered Operations (the spec's per-instance queue) and the
 * Operations it is running right now. Every change is synchronous, so an Operation taken by one
 * claimer is invisible to the next one before any `await`: no Operation runs twice here.
 */

/** One queued Operation. */
export interface QueueEntry {
  readonly operationIri: string;
  /** The Workflow of this Service that realizes the Operation's Capability; resolved at claim time when unknown (queue reconstruction). */
  readonly workflowIri?: string;
  readonly workflowName?: string;
  /** True when a claim of it was sent but the store's answer was lost: it may have applied. */
  readonly claimSent?: boolean;
  /** Its `sm:deadline` as read with its Workflow: past it, the claim fails the Operation instead of running it. */
  readonly deadline?: Date;
  /** The trace of the event trigger that enqueued it: its claim and device call continue that trace. */
  readonly trace?: TraceContext;
  /** What the Operation holds, as its requester described it with the trigger: the claim requires exactly that. */
  readonly described?: OperationDescription;
  /** Told once whether its claim applied: an event trigger that claims before it answers waits on it. */
  readonly claimWaiter?: ClaimWaiter;
}

/** Settled once by the claim of a queue entry: without an error when the receiver took the Operation. */
export interface ClaimWaiter {
  settle(error?: Error): void;
}

/** A {@link ClaimWaiter} and the promise it settles. */
export function claimWaiter(): { waiter: ClaimWaiter; claimed: Promise<void> } {
  let waiter!: ClaimWaiter;
  const claimed = new Promise<void>((resolve, reject) => {
    let settled = false;
    waiter = {
      settle: (error) => {
        if (settled) return;
        settled = true;
        if (error === undefined) resolve();
        else reject(error);
      },
    };
  });
  return { waiter, claimed };
}

/** An Operation taken from the queue and not finished yet. */
export interface InFlight {
  readonly operationIri: string;
  /** True once the claim's compare-and-set to `running` applied. */
  running: boolean;
  /** `performance.now()` when `running` became true. */
  runningSince?: number;
  /** Aborted when `stop()` gives up waiting for the Operation. */
  readonly abort: AbortRelay;
  /** Aborted, with an OperationCancelledError as the reason, when a caller cancelled the Operation while it ran. */
  readonly cancel: AbortRelay;
  /** What the work gets (`claimed.signal`): aborted by either of the two. */
  readonly signal: AbortSignal;
  /** Settles when the claim has finished (terminal status written, or given up). */
  readonly done: Promise<void>;
}

/**
 * One of the two ways an in-flight Operation's work is stopped (shutdown, cancel): its abort
 * aborts the work's controller with the same reason, and the first abort of either wins there.
 * It makes a signal of its own only when one is asked for (a retry's sleep): most Operations are
 * never aborted, and a signal costs several microseconds to make and outlives the Operation as
 * garbage. Not `AbortSignal.any`: Node keeps weak references and registry entries per composite
 * signal.
 */
export class AbortRelay {
  #aborted = false;
  #reason: unknown;
  #own: AbortController | undefined;

  constructor(private readonly to: AbortController) {}

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why it was aborted, as an AbortSignal's `reason`: undefined until then. */
  get reason(): unknown {
    return this.#reason;
  }

  /** A signal aborted when this is (with the same reason). */
  get signal(): AbortSignal {
    if (!this.#own) {
      this.#own = new AbortController();
      if (this.#aborted) this.#own.abort(this.#reason);
    }
    return this.#own.signal;
  }

  /** Aborts with `reason` (an AbortError DOMException, as AbortController's, by default); later calls change nothing. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#own?.abort(reason);
    this.to.abort(reason);
  }
}

/** FIFO of queued Operations plus the set of in-flight ones, keyed by Operation IRI. */
export class WorkQueue {
  private readonly entries: QueueEntry[] = [];
  private readonly queued = new Set<string>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly listeners: (() => void)[] = [];

  /** Queued Operations. */
  get size(): number {
    return this.entries.length;
  }

  /** True when the Operation is queued or in flight here. */
  has(operationIri: string): boolean {
    return this.queued.has(operationIri) || this.inFlight.has(operationIri);
  }

  /** True when the Operation waits in the queue here (not taken yet). */
  isQueued(operationIri: string): boolean {
    return this.queued.has(operationIri);
  }

  /**
   * Calls `listener` after every entry appended by {@link push}, on a later microtask (never
   * inside the caller's synchronous step), so whoever runs the queue learns of work however it
   * was enqueued: by a trigger, or picked up again from the graph.
   */
  onPush(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Appends an entry; returns false (and changes nothing) when the Operation is already here. */
  push(entry: QueueEntry): boolean {
    if (this.has(entry.operationIri)) return false;
    this.entries.push(entry);
    this.queued.add(entry.operationIri);
    for (const listener of this.listeners) queueMicrotask(listener);
    return true;
  }

  /** Puts an entry back at the head (a claim interrupted by a store error). */
  unshift(entry: QueueEntry): void {
    if (this.queued.has(entry.operationIri)) return;
    this.entries.unshift(entry);
    this.queued.add(entry.operationIri);
  }

  /**
   * Takes the head entry and marks it in flight in the same synchronous step. Returns the entry
   * and a `finish` function that ends its in-flight record.
   */
  take(): { entry: QueueEntry; flight: InFlight; finish: () => void } | undefined {
    const entry = this.entries.shift();
    if (!entry) return undefined;
    this.queued.delete(entry.operationIri);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const work = new AbortController();
    const [abort, cancel] = [new AbortRelay(work), new AbortRelay(work)];
    const flight: InFlight = { operationIri: entry.operationIri, running: false, abort, cancel, signal: work.signal, done };
    this.inFlight.set(entry.operationIri, flight);
    return {
      entry,
      flight,
      finish: () => {
        if (this.inFlight.get(entry.operationIri) === flight) this.inFlight.delete(entry.operationIri);
        finish();
      },
    };
  }

  /** Operations in flight right now. */
  flights(): InFlight[] {
    return [...this.inFlight.values()];
  }

  /** IRIs of the queued Operations, head first. */
  snapshot(): string[] {
    return this.entries.map((e) => e.operationIri);
  }

  /** Empties the queue (in-flight records stay until their claims finish); a waiting trigger is told `reason`. */
  clear(reason: Error): void {
    for (const entry of this.entries) entry.claimWaiter?.settle(reason);
    this.entries.length = 0;
    this.queued.clear();
  }
}
