/**
 * Audits a cell's instance graph after faults: reads the whole graph (a dump, as N-Quads) and
 * checks that nothing was registered twice or half-written: one value per single-valued
 * property, one Service per resource and address, one Capability per Workflow or
 * StateProperty, every Part bound to the Service its IRI was minted from, every Operation with
 * one status and one Capability, and a failure kind exactly when it failed. Works on any store, since it only reads a dump.
 */
import { Parser } from 'n3';
import type { TripleStore } from '../../../src/store/triple-store.js';
import { cfc, sm, svc, w3 } from '../../../src/vocab/index.js';

// Properties an individual carries at most once: a second value means something was written twice.
const SINGLE_VALUED = [
  svc.address,
  svc.lastHeartbeat,
  svc.isServiceOf,
  svc.isWorkflowOf,
  svc.isStatePropertyOf,
  svc.endpoint,
  svc.operationStatus,
  cfc.implementsCapability,
  svc.executedByWorkflow,
  svc.executionTimestamp,
  svc.executionResult,
  svc.failureState,
  sm.deadline,
  sm.failureKind,
  sm.cancelRequested,
  sm.cancelledBy,
  sm.requestedBy,
  sm.createdAt,
  sm.claimedAt,
  sm.finishedAt,
  sm.possessionChangedAt,
  sm.possessionChangedBy,
] as const;

/** Subject -> predicate -> values (IRIs or literal lexical forms). */
export type GraphIndex = Map<string, Map<string, string[]>>;

/** The values of `predicate` on `subject`. */
export function values(index: GraphIndex, subject: string, predicate: string): string[] {
  return index.get(subject)?.get(predicate) ?? [];
}

/** Subjects that carry `predicate` (with any value). */
export function subjectsWith(index: GraphIndex, predicate: string): string[] {
  return [...index].filter(([, props]) => props.has(predicate)).map(([s]) => s);
}

/** Reads `graph` of `store` into a {@link GraphIndex}. */
export async function readGraph(store: TripleStore, graph: string): Promise<GraphIndex> {
  const index: GraphIndex = new Map();
  for (const quad of new Parser({ format: 'application/n-quads' }).parse(await store.dump({ graph }))) {
    const subject = quad.subject.value;
    const props = index.get(subject) ?? new Map<string, string[]>();
    index.set(subject, props);
    const list = props.get(quad.predicate.value) ?? [];
    props.set(quad.predicate.value, list);
    list.push(quad.object.value);
  }
  return index;
}

function singleValued(index: GraphIndex): string[] {
  const out: string[] = [];
  for (const [subject, props] of index) {
    for (const p of SINGLE_VALUED) {
      const vs = props.get(p) ?? [];
      if (vs.length > 1) out.push(`<${subject}> has ${vs.length} values of <${p}>: ${JSON.stringify(vs)}`);
    }
  }
  return out;
}

function oneServicePerResourceAndAddress(index: GraphIndex): string[] {
  const seen = new Map<string, string[]>();
  for (const service of subjectsWith(index, svc.isServiceOf)) {
    for (const address of values(index, service, svc.address)) {
      const key = `${values(index, service, svc.isServiceOf).join()} @ ${address}`;
      seen.set(key, [...(seen.get(key) ?? []), service]);
    }
  }
  return [...seen]
    .filter(([, services]) => services.length > 1)
    .map(([key, services]) => `${services.length} reachable Services for ${key}: ${services.join(', ')}`);
}

/** Each Workflow / StateProperty: minted from its Service, realized by exactly one Capability, which its resource has. */
function partsAndCapabilities(index: GraphIndex): string[] {
  const out: string[] = [];
  const kinds = [
    { link: svc.isWorkflowOf, infix: '_workflow_', capabilityLink: svc.realizedByWorkflow },
    { link: svc.isStatePropertyOf, infix: '_state_', capabilityLink: svc.providedByStateProperty },
  ];
  for (const { link, infix, capabilityLink } of kinds) {
    for (const part of subjectsWith(index, link)) {
      for (const service of values(index, part, link)) {
        if (!part.startsWith(`${service}${infix}`)) out.push(`<${part}> is bound to <${service}> but was not minted from it`);
        const capabilities = subjectsWith(index, capabilityLink).filter((c) => values(index, c, capabilityLink).includes(part));
        if (capabilities.length !== 1) out.push(`<${part}> is realized by ${capabilities.length} Capabilities: ${capabilities.join(', ')}`);
        const resources = values(index, service, svc.isServiceOf);
        for (const capability of capabilities) {
          const owners = subjectsWith(index, cfc.hasCapability).filter((r) => values(index, r, cfc.hasCapability).includes(capability));
          if (owners.length !== 1 || !resources.includes(owners[0]!))
            out.push(
              `Capability <${capability}> of <${part}> is had by ${JSON.stringify(owners)}, expected its resource ${JSON.stringify(resources)}`,
            );
        }
      }
    }
  }
  return out;
}

function operations(index: GraphIndex): string[] {
  const out: string[] = [];
  for (const op of subjectsWith(index, svc.operationStatus)) {
    if (values(index, op, cfc.implementsCapability).length !== 1) out.push(`Operation <${op}> has no Capability`);
    if (values(index, op, w3.type).length === 0) out.push(`Operation <${op}> has no type`);
    const failed = values(index, op, svc.operationStatus).includes('failed');
    if (failed !== (values(index, op, sm.failureKind).length === 1))
      out.push(`Operation <${op}> is failed without a failure kind, or has one without being failed`);
  }
  // An Operation half-removed: data or provenance without a status (a revert that raced a claim).
  for (const [subject, props] of index) {
    if (props.has(svc.operationStatus)) continue;
    if (props.has(cfc.implementsCapability) || props.has(svc.executedByWorkflow) || props.has(svc.executionTimestamp))
      out.push(`<${subject}> has Operation triples but no status: ${JSON.stringify([...props.keys()])}`);
  }
  return out;
}

/**
 * Every inconsistency found in `graph`, one sentence each; `[]` when the graph is consistent.
 * @example expect(await auditGraph(store.client, store.graph)).toEqual([]);
 */
export async function auditGraph(store: TripleStore, graph: string): Promise<string[]> {
  const index = await readGraph(store, graph);
  return [...singleValued(index), ...oneServicePerResourceAndAddress(index), ...partsAndCapabilities(index), ...operations(index)];
}
