import { OperationResolutionError, ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { OGM } from '../ogm/ogm.js';
import type { Tbox } from '../ogm/tbox.js';
import { judgedCandidatesQuery, operationWorkflowsQuery, pinnedDispatchQuery, unpinnedDispatchQuery } from '../queries/dispatch.js';
import type { Bindings } from '../store/triple-store.js';
import { namedNode, type NamedNodeTerm } from '../store/terms.js';
import { checkOptions, graphOf, type GraphOption } from './classes.js';
import { aliveAt } from './staleness.js';

/** Where to send an Operation: the spec's `(capability_instance_iri, service_iri, service_address)`. */
export interface DispatchTarget {
  /** The Capability instance the Operation will implement. */
  capabilityIri: string;
  /** The reachable Service that realizes it. */
  serviceIri: string;
  /** The Service's `svc:address` (base URL of its HTTP surface). */
  serviceAddress: string;
}

/** Options of {@link resolveDispatchTarget}. */
export interface ResolveDispatchTargetOptions extends GraphOption {
  /** When given, only a Service bound to this resource by `svc:isServiceOf` is chosen. */
  targetResource?: string | null;
  /**
   * The staleness threshold discovery judges Services by, in seconds: a Service whose heartbeat is
   * older than `max(this, 3 x its sm:heartbeatInterval)` is stale and never offered. Default
   * {@link DEFAULT_FRESH_WITHIN_SECONDS} (the middleware's default staleness threshold).
   */
  freshWithinSeconds?: number;
  /** The current time for the freshness window; now when omitted. */
  now?: Date | null;
}

/** Default freshness window of unpinned discovery, in seconds: the default staleness threshold. */
export const DEFAULT_FRESH_WITHIN_SECONDS = 90;

// Subclass closures per cached TBox: the TBox object is replaced when the ontology is re-read,
// which drops its entries with it.
const closures = new WeakMap<Tbox, Map<string, NamedNodeTerm[]>>();

/** The class and every declared subclass of it, from the OGM's cached TBox. */
async function subclassClosure(ogm: OGM, cls: string): Promise<{ terms: NamedNodeTerm[]; declared: boolean }> {
  let tbox = await ogm.tbox();
  if (!tbox.hasClass(cls) && ogm.refreshAfterMiss()) tbox = await ogm.tbox();
  // An undeclared class has no subclasses, and is not cached: callers must not grow the cache.
  if (!tbox.hasClass(cls)) return { terms: [namedNode(cls)], declared: false };
  let byClass = closures.get(tbox);
  if (!byClass) closures.set(tbox, (byClass = new Map<string, NamedNodeTerm[]>()));
  let terms = byClass.get(cls);
  if (!terms) {
    const subs = [...tbox.classes].filter((c) => c !== cls && tbox.isSubClassOf(c, cls));
    terms = [cls, ...subs.sort()].map((c) => namedNode(c));
    byClass.set(cls, terms);
  }
  return { terms, declared: true };
}

/** The time discovery judges at, the threshold, and the oldest heartbeat fresh by the threshold alone. */
function freshness(options: ResolveDispatchTargetOptions): { now: Date; thresholdMs: number; cutoff: Date } {
  const within = options.freshWithinSeconds ?? DEFAULT_FRESH_WITHIN_SECONDS;
  if (typeof within !== 'number' || !Number.isFinite(within) || within < 0) {
    throw new ValueError(`freshWithinSeconds must be a finite number >= 0, got ${preview(within)}`);
  }
  const now = options.now ?? new Date();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new ValueError(`now must be a valid Date, got ${preview(now)}`);
  return { now, thresholdMs: within * 1000, cutoff: new Date(now.getTime() - within * 1000) };
}

/** A candidate Service as the reader judges it, from the rows of one query. */
interface Candidate {
  service: string;
  address: string;
  /** Its Capabilities of the class, in row order (freshest heartbeat first when the query ordered). */
  capabilities: string[];
  heartbeats: string[];
  intervals: string[];
  deviceDown: boolean;
}

/** What judging the candidates found: the Service to dispatch to, or how many were skipped and why. */
interface Judgement {
  target?: DispatchTarget;
  stale: number;
  deviceDown: number;
}

/**
 * Judges every candidate Service of `rows` (`?cap ?svc ?addr ?hb ?interval ?down`): one whose
 * device is marked unavailable or that is stale by the per-Service rule is skipped and counted;
 * of the others the freshest heartbeat wins (compared as instants), then the Service and
 * Capability IRI.
 */
function judge(rows: readonly Bindings[], now: Date, thresholdMs: number): Judgement {
  const byService = new Map<string, Candidate>();
  for (const row of rows) {
    const [cap, service, address] = [row.cap?.value, row.svc?.value, row.addr?.value];
    if (!cap || !service || !address) continue;
    let c = byService.get(service);
    if (!c) byService.set(service, (c = { service, address, capabilities: [], heartbeats: [], intervals: [], deviceDown: false }));
    if (!c.capabilities.includes(cap)) c.capabilities.push(cap);
    if (row.hb && !c.heartbeats.includes(row.hb.value)) c.heartbeats.push(row.hb.value);
    if (row.interval && !c.intervals.includes(row.interval.value)) c.intervals.push(row.interval.value);
    if (row.down) c.deviceDown = true;
  }
  const judgement: Judgement = { stale: 0, deviceDown: 0 };
  let best: { c: Candidate; at: number } | undefined;
  for (const c of byService.values()) {
    if (c.deviceDown) judgement.deviceDown += 1;
    else if (!aliveAt(c.heartbeats, c.intervals, now, thresholdMs)) judgement.stale += 1;
    else {
      const at = Math.max(...c.heartbeats.map((hb) => Date.parse(hb)).map((t) => (Number.isNaN(t) ? Infinity : t)));
      if (!best || at > best.at || (at === best.at && c.service < best.c.service)) best = { c, at };
    }
  }
  if (best) {
    const capabilityIri = [...best.c.capabilities].sort()[0]!;
    judgement.target = { capabilityIri, serviceIri: best.c.service, serviceAddress: best.c.address };
  }
  return judgement;
}

/** Why nothing was offered, for the error: the realizers skipped as stale and for their device. */
function skipped(j: Judgement): string {
  const parts: string[] = [];
  if (j.stale > 0)
    parts.push(`skipped ${j.stale} realizer(s) as stale (last heartbeat older than max(threshold, 3 x own sm:heartbeatInterval))`);
  if (j.deviceDown > 0) parts.push(`skipped ${j.deviceDown} realizer(s) whose device is unavailable (sm:deviceUnavailableSince)`);
  return parts.length === 0 ? '' : `; ${parts.join('; ')}`;
}

/**
 * Finds where to dispatch an Operation for a Capability class: a Capability instance of
 * `capabilityClass` (or of a subclass; the closure comes from the cached TBox) realized by a
 * Workflow whose Service is reachable (carries `svc:address`), along Capability ->
 * `svc:realizedByWorkflow` -> Workflow -> `svc:isWorkflowOf` -> Service. Pinned to a resource,
 * the Service is the resource's (`svc:isServiceOf`) and so is the Capability
 * (`cfc:hasCapability`, written with every registered Workflow). One query.
 *
 * A Service is never offered when it is stale by the per-Service rule (its last heartbeat older
 * than `max(freshWithinSeconds, 3 x its own sm:heartbeatInterval)`, see `staleness.ts`) or its
 * device is marked unavailable (`sm:deviceUnavailableSince`). Of the others the freshest
 * `svc:lastHeartbeat` wins (ties broken by IRI), so a live instance is preferred over one about
 * to be swept. Pinned to a resource, every candidate is judged (one query). Unpinned, the first
 * `FRESH_CANDIDATES` (`queries/dispatch.ts`) fresh by the threshold are ranked (one query, bounded
 * cost on the embedded store: 0.2-0.4 ms instead of ~100 ms at 10,000 Services of one class, see
 * `unpinnedDispatchQuery` for the worst case; Virtuoso hash-joins the whole chain whatever the
 * shape, ~150 ms per branch there at that size); only when there is none are up to
 * `JUDGED_CANDIDATE_ROWS` candidates read and judged one by one (a second query), so a Service
 * alive only by its own longer interval is still found, and the skipped ones are counted.
 * Pinned, the class closure is matched with `FILTER(?cls IN (...))`, not `VALUES`: on Oxigraph a
 * `VALUES` block is joined first and turned the pinned query into a class scan (60 ms instead of
 * 0.1 ms). Unpinned, the class is where the walk starts anyway.
 * @param options.targetResource pin the choice to the Services of this resource.
 * @param options.freshWithinSeconds the staleness threshold Services are judged by (default 90).
 * @param options.now the time the window ends at (default now).
 * @throws OperationResolutionError naming the class (and the resource) when nothing reachable
 *   realizes it, with how many realizers it skipped as stale and for an unavailable device.
 * @throws ValueError for a malformed IRI, a negative window or an invalid `now`.
 * @example const { capabilityIri, serviceAddress } = await resolveDispatchTarget(ogm, PLANT('DoorOpeningCapability'), { targetResource: PLANT('door1') })
 */
export async function resolveDispatchTarget(
  ogm: OGM,
  capabilityClass: string,
  options: ResolveDispatchTargetOptions = {},
): Promise<DispatchTarget> {
  const cls = assertIri(capabilityClass, 'capabilityClass');
  checkOptions(options, 'resolveDispatchTarget');
  const target = options.targetResource == null ? undefined : namedNode(assertIri(options.targetResource, 'targetResource'));
  const graph = graphOf(ogm, options);
  const { now, thresholdMs, cutoff } = freshness(options);
  const { terms, declared } = await subclassClosure(ogm, cls);
  if (!target) {
    const row = (await ogm.db.select(unpinnedDispatchQuery(graph, terms, cutoff)))[0];
    if (row?.cap && row.svc && row.addr) return { capabilityIri: row.cap.value, serviceIri: row.svc.value, serviceAddress: row.addr.value };
  }
  const judgement = judge(
    await ogm.db.select(target ? pinnedDispatchQuery(graph, target, terms) : judgedCandidatesQuery(graph, terms)),
    now,
    thresholdMs,
  );
  if (judgement.target) return judgement.target;
  const pinned = target ? ` for resource <${target.value}>` : '';
  const hint = declared ? '' : ` (the class is not declared in the ontology)`;
  throw new OperationResolutionError(
    `no reachable Service realizes a Capability of class <${cls}>${hint}${pinned} in graph <${graph}>${skipped(judgement)}: ` +
      'it needs a Capability svc:realizedByWorkflow a Workflow whose Service (svc:isWorkflowOf) carries svc:address, a fresh heartbeat and no sm:deviceUnavailableSince',
  );
}

/**
 * The Workflow realizing the Operation's Capability (`<op> cfc:implementsCapability ?cap .
 * ?cap svc:realizedByWorkflow ?wf`), found without requiring a live endpoint, so provenance can
 * be recorded even when the Service was deregistered mid-run. When several Workflows realize
 * the Capability (several instances of one resource), one whose Service is reachable is
 * preferred, then the freshest heartbeat, then the IRI order. One query.
 * @throws OperationResolutionError when the Operation does not exist or no Workflow realizes its
 *   Capability.
 * @throws ValueError for a malformed IRI.
 * @example const workflowIri = await resolveOperationWorkflow(ogm, operationIri)
 */
export async function resolveOperationWorkflow(ogm: OGM, operationIri: string, options: GraphOption = {}): Promise<string> {
  const op = namedNode(assertIri(operationIri, 'operationIri'));
  const graph = graphOf(ogm, options);
  const rows = await ogm.db.select(operationWorkflowsQuery(graph, op));
  const best = rows.sort(preferReachable)[0]?.wf?.value;
  if (best) return best;
  throw new OperationResolutionError(
    `no Workflow realizes the Capability of Operation <${op.value}> in graph <${graph}> (it needs cfc:implementsCapability a Capability that is svc:realizedByWorkflow a Workflow)`,
  );
}

// Few rows (one per Workflow of the Capability), so ranking them here keeps the query simple
// and portable: reachable first, then the latest heartbeat (compared as instants, since stores
// may normalise the lexical form), then the Workflow IRI.
function preferReachable(a: Bindings, b: Bindings): number {
  const reach = Number(b.addr !== undefined) - Number(a.addr !== undefined);
  if (reach !== 0) return reach;
  const ha = a.hb ? Date.parse(a.hb.value) : -Infinity;
  const hb = b.hb ? Date.parse(b.hb.value) : -Infinity;
  if (ha !== hb) return hb - ha > 0 ? 1 : -1;
  return (a.wf?.value ?? '').localeCompare(b.wf?.value ?? '');
}
