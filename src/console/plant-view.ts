/**
 * What the console shows, shaped from the rows of its reads (see `plant-reads.ts`): one object
 * per Service, Capability, Operation and workpiece, each naming the store it came from. Pure
 * functions of rows and a clock, so the page and the tests see the same view.
 */
import { aliveAt, honoredIntervalMs, staleAfterMs } from '../registration/staleness.js';
import type { SourcedRow } from './plant-reads.js';

/** How a Service looks now: `live`, `stale` (heartbeat too old), `device-down`, or `unreachable` (no address: deregistered or swept). */
export type ServiceState = 'live' | 'stale' | 'device-down' | 'unreachable';

/** One Service. */
export interface ServiceView {
  store: string;
  service: string;
  resource: string;
  classes: string[];
  address?: string;
  lastHeartbeat?: string;
  heartbeatIntervalMs?: number;
  deviceUnavailableSince?: string;
  /** How old its heartbeat may grow before it is stale (the liveness rule), in ms. */
  staleAfterMs: number;
  state: ServiceState;
}

/** One Capability of a resource. */
export interface CapabilityView {
  store: string;
  resource: string;
  capability: string;
  classes: string[];
  workflows: string[];
  stateProperties: string[];
}

/** One Operation, open or finished, with its outcome and provenance. */
export interface OperationView {
  store: string;
  operation: string;
  status: string;
  /** Resources that have the Operation's Capability. */
  resources: string[];
  capability?: string;
  classes: string[];
  result?: string;
  failureState?: string;
  failureKind?: string;
  workflow?: string;
  executionTimestamp?: string;
  requestedBy?: string;
  createdAt?: string;
  claimedAt?: string;
  finishedAt?: string;
  deadline?: string;
  cancelRequested?: string;
  cancelledBy?: string;
}

/** One change of possession. */
export interface PossessionStep {
  state: string;
  possessor?: string;
  at?: string;
  by?: string;
}

/** A possessed workpiece: who holds it now, and its history (newest first, the current state included). */
export interface WorkpieceView {
  store: string;
  workpiece: string;
  possessor?: string;
  history: PossessionStep[];
}

/** The whole picture at one instant. */
export interface PlantView {
  /** ISO time of the read. */
  at: string;
  stores: string[];
  services: ServiceView[];
  capabilities: CapabilityView[];
  openOperations: OperationView[];
  recentOperations: OperationView[];
  workpieces: WorkpieceView[];
}

const v = (row: SourcedRow, name: string): string | undefined => row.bindings[name]?.value;

/** Groups rows by store and `key`, making each entry once and folding every row into it. */
function grouped<T>(
  rows: readonly SourcedRow[],
  key: string,
  make: (row: SourcedRow, id: string) => T,
  fold: (item: T, row: SourcedRow) => void,
): T[] {
  const items = new Map<string, T>();
  for (const row of rows) {
    const id = v(row, key);
    if (id === undefined) continue;
    const at = `${row.store}\n${id}`;
    let item = items.get(at);
    if (item === undefined) items.set(at, (item = make(row, id)));
    fold(item, row);
  }
  return [...items.values()];
}

function add(list: string[], value: string | undefined): void {
  if (value !== undefined && !list.includes(value)) list.push(value);
}

function serviceState(s: ServiceView, heartbeats: string[], intervals: string[], now: Date, thresholdMs: number): ServiceState {
  if (s.address === undefined) return 'unreachable';
  if (!aliveAt(heartbeats, intervals, now, thresholdMs)) return 'stale';
  return s.deviceUnavailableSince === undefined ? 'live' : 'device-down';
}

/** Services from rows of `plantServicesQuery`, judged by the liveness rule at `now` with `thresholdMs`. */
export function servicesFrom(rows: readonly SourcedRow[], now: Date, thresholdMs: number): ServiceView[] {
  const seen = new Map<ServiceView, { hb: string[]; interval: string[] }>();
  const services = grouped<ServiceView>(
    rows,
    'svc',
    (row, service) => ({
      store: row.store,
      service,
      resource: v(row, 'res') ?? '',
      classes: [],
      staleAfterMs: thresholdMs,
      state: 'unreachable',
    }),
    (s, row) => {
      const raw = seen.get(s) ?? { hb: [], interval: [] };
      seen.set(s, raw);
      add(s.classes, v(row, 'cls'));
      add(raw.hb, v(row, 'hb'));
      add(raw.interval, v(row, 'interval'));
      s.address ??= v(row, 'addr');
      s.deviceUnavailableSince ??= v(row, 'down');
    },
  );
  for (const s of services) {
    const raw = seen.get(s)!;
    const latest = raw.hb.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
    if (latest !== undefined) s.lastHeartbeat = latest;
    const interval = honoredIntervalMs(raw.interval);
    if (interval !== undefined) s.heartbeatIntervalMs = interval;
    s.staleAfterMs = staleAfterMs(thresholdMs, interval);
    s.state = serviceState(s, raw.hb, raw.interval, now, thresholdMs);
  }
  return services;
}

/** Capabilities from rows of `plantCapabilitiesQuery`. */
export function capabilitiesFrom(rows: readonly SourcedRow[]): CapabilityView[] {
  return grouped<CapabilityView>(
    rows,
    'cap',
    (row, capability) => ({ store: row.store, resource: v(row, 'res') ?? '', capability, classes: [], workflows: [], stateProperties: [] }),
    (c, row) => {
      const kind = v(row, 'kind');
      if (kind === 'class') add(c.classes, v(row, 'cls'));
      else add(kind === 'workflow' ? c.workflows : c.stateProperties, v(row, 'part'));
    },
  );
}

const OPERATION_FIELDS = {
  result: 'result',
  failureState: 'fs',
  failureKind: 'kind',
  workflow: 'wf',
  executionTimestamp: 'ts',
  requestedBy: 'by',
  createdAt: 'created',
  claimedAt: 'claimed',
  finishedAt: 'finished',
  deadline: 'deadline',
  cancelRequested: 'cr',
  cancelledBy: 'cb',
} as const satisfies Partial<Record<keyof OperationView, string>>;

/** Operations from rows of `openOperationsQuery` or `recentOperationsQuery`, newest first. */
export function operationsFrom(rows: readonly SourcedRow[]): OperationView[] {
  const operations = grouped<OperationView>(
    rows,
    'op',
    (row, operation) => ({ store: row.store, operation, status: v(row, 'st') ?? '', resources: [], classes: [] }),
    (o, row) => {
      add(o.resources, v(row, 'res'));
      add(o.classes, v(row, 'cls'));
      o.capability ??= v(row, 'cap');
      for (const [field, name] of Object.entries(OPERATION_FIELDS) as [keyof typeof OPERATION_FIELDS, string][]) {
        o[field] ??= v(row, name);
      }
    },
  );
  const when = (o: OperationView): number => Date.parse(o.finishedAt ?? o.executionTimestamp ?? o.claimedAt ?? o.createdAt ?? '') || 0;
  return operations.sort((a, b) => when(b) - when(a) || a.operation.localeCompare(b.operation));
}

/** Workpieces from rows of `possessionQuery`. */
export function workpiecesFrom(rows: readonly SourcedRow[]): WorkpieceView[] {
  return grouped<WorkpieceView>(
    rows,
    'wp',
    (row, workpiece) => ({ store: row.store, workpiece, history: [] }),
    (w, row) => {
      const state = v(row, 'ps');
      if (state === undefined) return;
      let step = w.history.find((s) => s.state === state);
      if (step === undefined) w.history.push((step = { state }));
      step.possessor ??= v(row, 'who');
      step.at ??= v(row, 'at');
      step.by ??= v(row, 'by');
      if (state === v(row, 'cur') && step.possessor !== undefined) w.possessor = step.possessor;
    },
  );
}
