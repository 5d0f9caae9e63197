import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { UnavailableError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { assertIri } from '../iri/validate.js';
import { breakExpiredLeaseUpdate, releaseLeaseUpdate, renewLeaseUpdate, takeLeaseUpdate } from '../queries/provisioning.js';
import { literal, namedNode, type LiteralTerm, type NamedNodeTerm } from '../store/terms.js';
import type { TripleStore } from '../store/triple-store.js';

/** A held lease on one module graph; `release` gives it up (and stops renewing it). */
export interface ProvisioningLease {
  /** False once a renewal found the lease taken over (this holder stalled past its expiry). */
  readonly held: boolean;
  release(): Promise<void>;
}

export interface LeaseOptions {
  /** Life of the lease; default {@link LIMITS.provisioningLeaseMs}. */
  readonly leaseMs?: number;
  /** Longest wait for another holder; default {@link LIMITS.provisioningWaitMs}. */
  readonly waitMs?: number;
  /** Called once when the lease is found held by another process, before waiting for it. */
  readonly onWait?: (graph: string) => void;
}

function expiry(leaseMs: number): Date {
  return new Date(Date.now() + leaseMs);
}

async function tryTake(store: TripleStore, module: NamedNodeTerm, token: LiteralTerm, leaseMs: number): Promise<boolean> {
  const { update, before, after } = takeLeaseUpdate(module, token, expiry(leaseMs));
  return store.conditionalUpdate(update, { before, after });
}

/** Removes the lease on `module` if it has expired (its holder died or hung); idempotent. */
async function breakExpired(store: TripleStore, module: NamedNodeTerm): Promise<void> {
  await store.update(breakExpiredLeaseUpdate(module, new Date()));
}

/** Moves the expiry of our own lease forward; false when the lease is no longer ours. */
async function renew(store: TripleStore, module: NamedNodeTerm, token: LiteralTerm, leaseMs: number): Promise<boolean> {
  const { update, before, after } = renewLeaseUpdate(module, token, expiry(leaseMs));
  return store.conditionalUpdate(update, { before, after });
}

async function giveUp(store: TripleStore, module: NamedNodeTerm, token: LiteralTerm): Promise<void> {
  await store.update(releaseLeaseUpdate(module, token));
}

/**
 * Takes the provisioning lease on a module graph, waiting while another process holds it.
 * Loading a module is several requests (clear, load, hash), so two processes provisioning one
 * store at once (sidecars started together) would interleave them and leave the module's blank
 * nodes twice (two `sh:in` lists on one shape, which the SHACL validator refuses). The lease
 * makes them take turns. It lives in its own graph, expires unless renewed (a holder that dies
 * holds the others up for at most `leaseMs`), and is renewed at a third of its life while held.
 *
 * @throws UnavailableError when another holder keeps the lease for longer than `waitMs`.
 */
export async function acquireProvisioningLease(store: TripleStore, graph: string, options: LeaseOptions = {}): Promise<ProvisioningLease> {
  const { leaseMs = LIMITS.provisioningLeaseMs, waitMs = LIMITS.provisioningWaitMs } = options;
  const module = namedNode(assertIri(graph, 'graph'));
  const token = literal(randomUUID());
  const deadline = Date.now() + waitMs;
  let pause = 50;
  while (!(await tryTake(store, module, token, leaseMs))) {
    if (pause === 50) options.onWait?.(graph);
    if (Date.now() >= deadline) {
      throw new UnavailableError(
        `ontology graph <${graph}> is being loaded by another process, still after a wait of ${Math.round(waitMs / 1000)} s: wait for it to finish, or stop it and provision again`,
      );
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 1_000);
    await breakExpired(store, module);
  }
  let held = true;
  const keep = () => renew(store, module, token, leaseMs).then((still) => (held &&= still), () => undefined);
  const renewal = setInterval(() => void keep(), Math.max(1, Math.floor(leaseMs / 3)));
  renewal.unref();
  return {
    get held() {
      return held;
    },
    async release() {
      clearInterval(renewal);
      await giveUp(store, module, token);
    },
  };
}
