import { LIMITS } from '../../limits.js';
import type { Logger } from '../../lib/logger.js';
import type { OGM } from '../../ogm/ogm.js';
import { resourceDescriptionQuery } from '../../queries/discovery.js';
import { w3 } from '../../vocab/terms.js';
import { errorText, plainValue, type DataValue } from './operation-data.js';
import { sleep } from '../runtime/loops.js';
import type { StateEntry } from '../runtime/registry.js';

/**
 * The JSON snapshot of the resource written as `svc:failureState` when a claim fails, as the
 * Python reference writes it: an object whose `"id"` is the resource IRI, here with the
 * resource's types and properties from the graph and the live values of this instance's state
 * getters, so whoever inspects the failure sees the resource as it was.
 */

/** Shape of the snapshot (keys in this order). */
export interface FailureSnapshot {
  id: string;
  types: string[];
  properties: Record<string, DataValue[]>;
  /** State getter name -> live value, or `{ error }` when the getter threw or timed out. */
  state: Record<string, unknown>;
  /** Present when parts were left out to keep the snapshot within a literal's size limit. */
  truncated?: true;
}

/**
 * The resource's types and properties, read from every graph (a resource's description often
 * lives in a plant ontology's graph while its registrations live in the data graph); at most
 * `LIMITS.failureSnapshotMaxValues` values. One query.
 */
async function describeResource(ogm: OGM, resourceIri: string): Promise<Pick<FailureSnapshot, 'types' | 'properties'>> {
  const rows = await ogm.db.select(resourceDescriptionQuery(resourceIri, LIMITS.failureSnapshotMaxValues));
  const types: string[] = [];
  const properties: Record<string, DataValue[]> = {};
  for (const { p, o } of rows) {
    if (!p || !o) continue;
    if (p.value === w3.type) {
      if (o.value !== w3.NamedIndividual) types.push(o.value);
    } else (properties[p.value] ??= []).push(plainValue(o));
  }
  return { types: types.sort(), properties };
}

/** Calls one getter, bounded by `LIMITS.failureSnapshotTimeoutMs`; errors become `{ error }`. */
async function liveValue(entry: StateEntry): Promise<unknown> {
  const abort = new AbortController();
  const timeout = sleep(LIMITS.failureSnapshotTimeoutMs, abort.signal).then(() => ({
    error: `timed out after ${LIMITS.failureSnapshotTimeoutMs} ms`,
  }));
  try {
    const value = await Promise.race([Promise.resolve().then(() => entry.getter()), timeout]);
    JSON.stringify(value); // throws for a BigInt or a cycle: noted instead of breaking the snapshot
    return value;
  } catch (error) {
    return { error: errorText(error) };
  } finally {
    abort.abort();
  }
}

/**
 * Builds the snapshot JSON. Never throws: a failing graph read or getter is noted in the
 * snapshot instead, because the snapshot is written on the failure path and must not hide the
 * original error.
 */
export async function failureSnapshot(ogm: OGM, resourceIri: string, states: Iterable<StateEntry>, logger: Logger): Promise<string> {
  const snapshot: FailureSnapshot = { id: resourceIri, types: [], properties: {}, state: {} };
  const entries = [...states];
  const [described, values] = await Promise.all([
    describeResource(ogm, resourceIri).catch((error: unknown) => {
      logger.warn({ err: error }, 'failure snapshot: reading the resource failed');
      return { types: [], properties: { error: [errorText(error)] } };
    }),
    Promise.all(entries.map(liveValue)),
  ]);
  Object.assign(snapshot, described);
  entries.forEach((e, i) => (snapshot.state[e.name] = values[i]));
  return boundedJson(snapshot);
}

/** JSON of the snapshot, dropping properties and shortening state values when it would not fit a literal. */
function boundedJson(snapshot: FailureSnapshot): string {
  const text = JSON.stringify(snapshot);
  if (text.length <= LIMITS.maxLiteralLength) return text;
  const state = Object.fromEntries(Object.entries(snapshot.state).map(([k, v]) => [k, (JSON.stringify(v) ?? 'null').slice(0, 1000)]));
  const smaller = JSON.stringify({ id: snapshot.id, types: snapshot.types.slice(0, 50), properties: {}, state, truncated: true });
  return smaller.length <= LIMITS.maxLiteralLength
    ? smaller
    : JSON.stringify({ id: snapshot.id, types: [], properties: {}, state: {}, truncated: true });
}
