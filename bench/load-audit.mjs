// The final audit of a load run, read from the graph and the bridges' logs once every wait has
// ended. Per requested Operation: it exists (typed, one cfc:implementsCapability), holds exactly
// one svc:operationStatus and it is terminal, exactly one svc:executionTimestamp, and the
// provenance the product records (registration/operation-status.ts): `done` with the receiver's
// Workflow as svc:executedByWorkflow and one svc:executionResult; `failed` either by the claim
// (Workflow, error message and svc:failureState) or with a reason (markOperationFailed:
// svc:executionResult only). Its receiver claimed it at most once, and exactly once if it ran.
// Per dispatch that failed: the Operation was reverted, nothing of it is left. Per receiver:
// the bridge ran the workflow exactly as often as the receiver claimed. In the graph: no
// Operation beyond the requested ones. The audit trail: each requested Operation names its
// caller as its requester (sm:requestedBy), and holds one sm:createdAt within the run, one
// sm:claimedAt when its receiver claimed it, and one sm:finishedAt equal to its
// svc:executionTimestamp, in that order.
import { setTimeout as sleep } from 'node:timers/promises';
import { openRemoteStore } from '../dist/store/remote-store.js';
import { concat, graphFragment, sparql } from '../dist/store/sparql.js';
import { namedNode } from '../dist/store/terms.js';
import { cfc, sm, svc, w3 } from '../dist/vocab/index.js';
import { OPEN } from './load-callers.mjs';

const FIELDS = {
  type: w3.type,
  capability: cfc.implementsCapability,
  status: svc.operationStatus,
  timestamp: svc.executionTimestamp,
  workflow: svc.executedByWorkflow,
  result: svc.executionResult,
  failureState: svc.failureState,
  requestedBy: sm.requestedBy,
  createdAt: sm.createdAt,
  claimedAt: sm.claimedAt,
  finishedAt: sm.finishedAt,
};
const BY_PREDICATE = new Map(Object.entries(FIELDS).map(([k, p]) => [p, k]));
const CHUNK = 100;
const CLOCK_SLACK_MS = 60_000;

/** Every stored value of the audited properties of `iris`, as `iri -> { field: [values] }`. */
async function factsOf(client, graph, iris) {
  const facts = new Map(iris.map((iri) => [iri, Object.fromEntries(Object.keys(FIELDS).map((k) => [k, []]))]));
  const predicates = concat(Object.values(FIELDS).map((p) => sparql`${namedNode(p)}`));
  for (let i = 0; i < iris.length; i += CHUNK) {
    const ops = concat(iris.slice(i, i + CHUNK).map((iri) => sparql`${namedNode(iri)}`));
    const where = sparql`VALUES ?op { ${ops} } VALUES ?p { ${predicates} } ?op ?p ?o .`;
    for (const row of await client.select(sparql`SELECT ?op ?p ?o WHERE { ${graphFragment(graph, where)} }`.text)) {
      facts.get(row.op.value)[BY_PREDICATE.get(row.p.value)].push(row.o.value);
    }
  }
  return facts;
}

async function operationCount(client, graph) {
  const where = sparql`?op ${namedNode(svc.operationStatus)} ?st .`;
  const rows = await client.select(sparql`SELECT (COUNT(DISTINCT ?op) AS ?n) WHERE { ${graphFragment(graph, where)} }`.text);
  return Number(rows[0]?.n?.value ?? 0);
}

/** The provenance rule an Operation's stored facts break, or undefined. */
function provenanceProblem(f, receiver) {
  const [status] = f.status;
  if (status === 'done') {
    if (f.workflow.length !== 1 || f.workflow[0] !== receiver.workflow)
      return `done, executedByWorkflow ${JSON.stringify(f.workflow)}; expected [${receiver.workflow}]`;
    if (f.result.length !== 1 || f.failureState.length !== 0)
      return `done with ${f.result.length} executionResult and ${f.failureState.length} failureState (expected 1 and 0)`;
    return undefined;
  }
  const byClaim = f.workflow.length === 1 && f.workflow[0] === receiver.workflow && f.result.length === 1 && f.failureState.length === 1;
  const byReason = f.workflow.length === 0 && f.result.length === 1 && f.failureState.length === 0;
  return byClaim || byReason
    ? undefined
    : `failed with ${f.workflow.length} executedByWorkflow, ${f.result.length} executionResult, ${f.failureState.length} failureState`;
}

/** The audit trail's rules an Operation's stored facts break (see the module's note). */
function auditTrailProblems(f, { requester, claims, startedAt }) {
  const broken = [];
  if (f.requestedBy.length !== 1 || f.requestedBy[0] !== requester)
    broken.push(`requestedBy ${JSON.stringify(f.requestedBy)}; expected [${JSON.stringify(requester)}]`);
  const ran = claims > 0 || f.workflow.length > 0;
  const expected = { createdAt: 1, claimedAt: ran ? 1 : f.claimedAt.length, finishedAt: 1 };
  for (const [field, n] of Object.entries(expected))
    if (f[field].length !== n) broken.push(`${f[field].length} ${field} values; expected ${n}`);
  if (broken.length > 0) return broken;
  const [created, claimed, finished] = [f.createdAt[0], f.claimedAt[0] ?? f.createdAt[0], f.finishedAt[0]].map((t) =>
    new Date(t).getTime(),
  );
  if (!(created >= startedAt - CLOCK_SLACK_MS)) broken.push(`createdAt ${f.createdAt[0]} before the run`);
  if (!(created <= claimed && claimed <= finished))
    broken.push(`createdAt ${f.createdAt[0]}, claimedAt ${f.claimedAt[0]}, finishedAt ${f.finishedAt[0]} out of order`);
  if (f.timestamp.length === 1 && new Date(f.timestamp[0]).getTime() !== finished)
    broken.push(`finishedAt ${f.finishedAt[0]} differs from executionTimestamp ${f.timestamp[0]}`);
  return broken;
}

/** The checks of one requested Operation; returns the broken ones. */
function checkRequested(f, { receiver, claims, startedAt, outcome, requester }) {
  const broken = [];
  if (f.status.length === 0 || !f.type.includes(OPEN.operationClass) || f.capability.length !== 1)
    return ['missing: no status, type or Capability in the graph'];
  if (f.status.length !== 1) broken.push(`${f.status.length} operationStatus values: ${f.status.join(', ')}`);
  else if (f.status[0] !== 'done' && f.status[0] !== 'failed') broken.push(`not terminal: '${f.status[0]}'`);
  else {
    const problem = provenanceProblem(f, receiver);
    if (problem) broken.push(problem);
  }
  const at = new Date(f.timestamp[0]).getTime();
  if (f.timestamp.length !== 1) broken.push(`${f.timestamp.length} executionTimestamp values`);
  else if (!(at >= startedAt - CLOCK_SLACK_MS && at <= Date.now() + CLOCK_SLACK_MS))
    broken.push(`executionTimestamp ${f.timestamp[0]} outside the run`);
  if (claims > 1) broken.push(`claimed ${claims} times`);
  if (claims === 0 && f.workflow.length > 0) broken.push('has Workflow provenance but its receiver never claimed it');
  if (outcome && f.status.length === 1 && outcome.kind !== f.status[0])
    broken.push(`receiver reported '${outcome.kind}', graph holds '${f.status[0]}'`);
  broken.push(...auditTrailProblems(f, { requester, claims, startedAt }));
  return broken;
}

/** Waits until each bridge logged as many executions as its receiver claimed (logs lag the answers), at most `ms`. */
async function bridgesSettled(receivers, claimedAt, ms = 5000) {
  const until = Date.now() + ms;
  while (Date.now() < until && receivers.some((r) => r.bridge.executions < claimedAt(r))) await sleep(100);
}

function bridgeViolations(receivers, claimedAt, ranAt) {
  const out = [];
  for (const r of receivers) {
    const claimed = claimedAt(r);
    if (r.bridge.executions !== claimed)
      out.push({
        check: 'bridge executions',
        subject: r.name,
        detail: `bridge ran the workflow ${r.bridge.executions} times, the receiver claimed ${claimed} Operations`,
      });
    if (r.bridge.executions < ranAt(r))
      out.push({
        check: 'bridge executions',
        subject: r.name,
        detail: `${ranAt(r)} Operations done with provenance, only ${r.bridge.executions} device executions`,
      });
    for (const [iri, n] of r.bridge.byOperation)
      if (n > 1) out.push({ check: 'ran twice', subject: iri, detail: `the bridge ran it ${n} times` });
  }
  return out;
}

/** Checks every requested Operation and every failed dispatch against its facts. */
function checkOperations(facts, { tally, byName, claimsOf, startedAt }) {
  const violations = [];
  const counts = {
    requested: tally.requested.length,
    done: 0,
    failed: 0,
    dispatchFailed: tally.failedDispatches.length,
    revertedAfterClaim: 0,
  };
  const ran = new Map();
  for (const q of tally.requested) {
    const f = facts.get(q.iri);
    const broken = checkRequested(f, {
      receiver: byName.get(q.receiver),
      claims: claimsOf(q.iri),
      startedAt,
      outcome: tally.outcomes.get(q.iri),
      requester: q.requester,
    });
    for (const detail of broken) violations.push({ check: 'operation', subject: q.iri, detail });
    if (f.status.length === 1 && (f.status[0] === 'done' || f.status[0] === 'failed')) counts[f.status[0]] += 1;
    if (f.workflow.length > 0) ran.set(q.receiver, (ran.get(q.receiver) ?? 0) + 1);
  }
  for (const q of tally.failedDispatches) {
    const left = Object.values(facts.get(q.iri)).flat().length;
    if (left > 0)
      violations.push({
        check: 'revert',
        subject: q.iri,
        detail: `dispatch failed (${q.kind}) but ${left} values of the Operation are left in the graph`,
      });
    if (claimsOf(q.iri) > 0) counts.revertedAfterClaim += 1;
  }
  return { violations, counts, ran };
}

/**
 * Audits a finished run on `store` (`{ url, graph }`). Returns `{ ok, violations, counts,
 * notes }`; `violations` lists `{ check, subject, detail }`.
 */
export async function audit(store, { tally, receivers, watch, startedAt }) {
  const client = openRemoteStore({ queryUrl: store.url });
  try {
    const byName = new Map(receivers.map((r) => [r.name, r]));
    const claimsOf = (iri) => watch.claims.get(iri) ?? 0;
    const all = [...tally.requested, ...tally.failedDispatches];
    const claimedAt = (r) => all.filter((q) => q.receiver === r.name).reduce((n, q) => n + claimsOf(q.iri), 0);
    await bridgesSettled(receivers, claimedAt);
    const facts = await factsOf(
      client,
      store.graph,
      all.map((q) => q.iri),
    );
    const { violations, counts, ran } = checkOperations(facts, { tally, byName, claimsOf, startedAt });
    violations.push(...bridgeViolations(receivers, claimedAt, (r) => ran.get(r.name) ?? 0));
    const stored = await operationCount(client, store.graph);
    if (stored !== tally.requested.length)
      violations.push({
        check: 'graph',
        subject: store.graph,
        detail: `${stored} Operations in the graph, ${tally.requested.length} requested`,
      });
    const notes = [];
    if (watch.counters.missed > 0) notes.push(`${watch.counters.missed} activity entries missed: claim counts are lower bounds`);
    if (counts.revertedAfterClaim > 0)
      notes.push(`${counts.revertedAfterClaim} Operations were claimed by their receiver and then reverted by a failed dispatch`);
    return { ok: violations.length === 0, violations, counts: { ...counts, inGraph: stored }, notes };
  } finally {
    await client.close();
  }
}
