/**
 * Two-step handovers for the local API: `begin` checks the preconditions and holds the handover
 * open while the device does the physical transfer; `commit` switches possession, `abort`
 * switches nothing. Built on `mw.handover`, whose body is the wait for the device's decision, so
 * the exit semantics stay the spec's: a clean exit switches, a thrown body does not.
 */
import { randomUUID } from 'node:crypto';
import { SemanticMiddlewareError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { HandoverOptions } from '../middleware/operations/handover.js';

/** No open handover has the id given (never begun, already ended, or expired). */
export class UnknownHandoverError extends SemanticMiddlewareError {
  override readonly code: string = 'SM_UNKNOWN_HANDOVER';
  override readonly status: number = 404;
}

/** Why a held handover ended without a switch; the body's error inside `mw.handover`. */
class HandoverAborted extends Error {}

interface OpenHandover {
  decide: { commit(): void; abort(reason: string): void };
  outcome: Promise<string>;
  timer: NodeJS.Timeout;
}

/** The handover primitive the sessions drive (`SemanticMiddleware.handover`). */
export type HandoverFn = (options: HandoverOptions, body: () => Promise<void>) => Promise<string>;

/** Open two-step handovers of one sidecar, each aborted when it outlives `ttlMs`. */
export class HandoverSessions {
  readonly #open = new Map<string, OpenHandover>();

  constructor(
    private readonly handover: HandoverFn,
    private readonly ttlMs: number = LIMITS.localHandoverTtlMs,
  ) {}

  /**
   * Checks the preconditions and opens the handover.
   * @returns the handover id to commit or abort.
   * @throws HandoverPreconditionError (nothing opened), ValueError, RuntimeError.
   */
  begin(options: HandoverOptions): Promise<string> {
    return new Promise((resolveBegin, rejectBegin) => {
      const id = randomUUID();
      let decide!: OpenHandover['decide'];
      const decision = new Promise<void>((commit, abort) => {
        decide = { commit: () => commit(), abort: (reason) => abort(new HandoverAborted(reason)) };
      });
      const outcome = this.handover(options, async () => {
        const timer = setTimeout(() => decide.abort(`not committed within ${this.ttlMs} ms`), this.ttlMs);
        timer.unref();
        this.#open.set(id, { decide, outcome, timer });
        resolveBegin(id);
        await decision;
      });
      outcome.catch(rejectBegin).finally(() => this.#forget(id));
    });
  }

  /**
   * Switches possession to the counterpart; returns the new PossessionState IRI.
   * @throws UnknownHandoverError; TransitionConflictError when possession changed meanwhile.
   */
  commit(id: string): Promise<string> {
    const open = this.#take(id);
    open.decide.commit();
    return open.outcome;
  }

  /** Ends the handover with no switch. @throws UnknownHandoverError */
  async abort(id: string, reason = 'aborted by the device'): Promise<void> {
    const open = this.#take(id);
    open.decide.abort(reason);
    await open.outcome.catch((err: unknown) => {
      if (!(err instanceof HandoverAborted)) throw err;
    });
  }

  /** Ids of the handovers still open. */
  get openIds(): string[] {
    return [...this.#open.keys()];
  }

  /** Aborts every open handover (at shutdown). */
  async abortAll(reason: string): Promise<void> {
    await Promise.all(this.openIds.map((id) => this.abort(id, reason).catch(() => undefined)));
  }

  #take(id: string): OpenHandover {
    const open = typeof id === 'string' ? this.#open.get(id) : undefined;
    if (open === undefined)
      throw new UnknownHandoverError(`no open handover has id ${JSON.stringify(id)}: it was never begun, already ended, or expired`);
    this.#forget(id);
    return open;
  }

  #forget(id: string): void {
    const open = this.#open.get(id);
    if (open !== undefined) clearTimeout(open.timer);
    this.#open.delete(id);
  }
}
