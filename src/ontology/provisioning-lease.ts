import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { UnavailableError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { assertIri } from '../iri/validate.js';
import { graphFragment, sparql, type SparqlFragment } from '../store/sparql.js';
import { dateTimeLiteral, literal, namedNode, type LiteralTerm, type NamedNodeTerm } from '../store/terms.js';
import type { TripleStore } from '../store/triple-store.js';
import { sm } from '../vocab/terms.js';

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

const HOLDER = namedNode(sm.provisioningHolder);
const EXPIRES = namedNode(sm.provisioningExpires);

/** `GRAPH sm:provisioning { body }` */
function inLeases(body: SparqlFragment): SparqlFragment {
  return graphFragment(sm.provisioningGraph, body);
}

/** `<module> sm:provisioningHolder "token"` in the lease graph: the lease is `token`'s. */
function heldBy(module: NamedNodeTerm, token: LiteralTerm): SparqlFragment {
  return inLeases(sparql`${module} ${HOLDER} ${token} .`);
}

function expiry(leaseMs: number): LiteralTerm {
  return dateTimeLiteral(new Date(Date.now() + leaseMs));
}

/**
 * Takes the lease if nobody holds it, in one conditional update. The WHERE counts holders in a
 * subquery, which always yields one row: Virtuoso ignores a lone `FILTER NOT EXISTS`, and finds
 * no solution at all for `OPTIONAL {..} FILTER(!BOUND(..))` when an IRI in it is new to the
 * store. In this form Virtuoso lets exactly one of many concurrent takers win (measured: 16
 * clients at once, 100 rounds).
 */
async function tryTake(store: TripleStore, module: NamedNodeTerm, token: LiteralTerm, leaseMs: number): Promise<boolean> {
  const free = sparql`{ SELECT (COUNT(?held) AS ?holders) WHERE { ${inLeases(sparql`${module} ${HOLDER} ?held .`)} } } FILTER(?holders = 0)`;
  const held = inLeases(sparql`${module} ${HOLDER} ${token} ; ${EXPIRES} ${expiry(leaseMs)} .`);
  return store.conditionalUpdate(`INSERT { ${held} } WHERE { ${free} }`, {
    before: `ASK { ${free} }`,
    after: `ASK { ${heldBy(module, token)} }`,
  });
}

/** Removes the lease on `module` if it has expired (its holder died or hung); idempotent. */
async function breakExpired(store: TripleStore, module: NamedNodeTerm): Promise<void> {
  const lease = inLeases(sparql`${module} ${HOLDER} ?holder ; ${EXPIRES} ?expires .`);
  await store.update(sparql`DELETE { ${lease} } WHERE { ${lease} FILTER(?expires < ${dateTimeLiteral()}) }`.text);
}

/** Moves the expiry of our own lease forward; false when the lease is no longer ours. */
async function renew(store: TripleStore, module: NamedNodeTerm, token: LiteralTerm, leaseMs: number): Promise<boolean> {
  const mine = inLeases(sparql`${module} ${HOLDER} ${token} ; ${EXPIRES} ?expires .`);
  const renewed = inLeases(sparql`${module} ${EXPIRES} ${expiry(leaseMs)} .`);
  return store.conditionalUpdate(`DELETE { ${inLeases(sparql`${module} ${EXPIRES} ?expires .`)} } INSERT { ${renewed} } WHERE { ${mine} }`, {
    before: `ASK { ${mine} }`,
    after: `ASK { ${heldBy(module, token)} }`,
  });
}

async function giveUp(store: TripleStore, module: NamedNodeTerm, token: LiteralTerm): Promise<void> {
  const mine = inLeases(sparql`${module} ${HOLDER} ${token} ; ${EXPIRES} ?expires .`);
  await store.update(`DELETE { ${mine} } WHERE { ${mine} }`);
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
