import { afterAll, afterEach } from '@jest/globals';
import { Writable } from 'node:stream';
import pino from 'pino';
import { StoreError } from '../../../src/errors.js';
import type { Logger } from '../../../src/lib/logger.js';
import { SemanticMiddleware, type SemanticMiddlewareOptions } from '../../../src/middleware/index.js';
import { buildWorkflowEndpoint, mintCapabilityIri, mintOperationIri, mintServiceIri, mintWorkflowIri } from '../../../src/iri/index.js';
import { createOperation, makeServiceReachable, registerService, registerWorkflow } from '../../../src/registration/index.js';
import { OGM } from '../../../src/ogm/index.js';
import { MeasuredStore, type StoreRequestKind } from '../../../src/store/measured-store.js';
import type { FetchFunction } from '../../../src/middleware/options.js';
import { createKeepAliveFetch, type KeepAliveFetch } from '../../../src/lib/keep-alive-fetch.js';
import type { Bindings, ConditionalUpdateCheck, LoadOptions, TripleStore } from '../../../src/store/triple-store.js';
import { cfc, ONTOLOGY_GRAPHS, plant, SVC, w3, xsd } from '../../../src/vocab/index.js';
import type { StoreKind } from '../../support/fixtures.js';
import { storeSuite, type StoreSuite } from '../../support/per-store.js';

/**
 * Shared set-up of the middleware tests: a store suite (embedded, or Virtuoso when
 * SPARQL_ENDPOINT is set) with test-only Operation data properties, middleware instances on
 * 127.0.0.1 port 0 that are stopped after every test, a log sink and a store that fails on demand.
 */

/** Test-only data properties of Operations, in the svc: namespace so that bare keys resolve. */
export const ANGLE = SVC('testAngle');
export const NOTE = SVC('testNote');
const TEST_ONTOLOGY = [
  `<${ANGLE}> <${w3.type}> <${w3.DatatypeProperty}> ; <${w3.domain}> <${cfc.Operation}> ; <${w3.range}> <${xsd.integer}> .`,
  `<${NOTE}> <${w3.type}> <${w3.DatatypeProperty}> ; <${w3.domain}> <${cfc.Operation}> ; <${w3.range}> <${xsd.string}> .`,
].join('\n');

export const OPEN = { capabilityClass: plant.DoorOpeningCapability, workflowClass: plant.OpenDoorWorkflow, name: 'open' } as const;
export const DOOR_STATE = {
  capabilityClass: plant.DoorStateCapability,
  statePropertyClass: plant.DoorStateProperty,
  name: 'doorState',
} as const;
export const OPEN_REQUEST = { capabilityClass: plant.DoorOpeningCapability, operationClass: plant.OpenDoorOperation } as const;

export const silent: Logger = pino({ level: 'silent' });

/** A pino logger writing NDJSON into memory, and the parsed lines. */
export function logSink(level = 'debug'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = pino({ level }, stream);
  const lines = (): Record<string, unknown>[] =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines };
}

/** A store that throws StoreError for the requests `failing` picks; everything else passes through. */
export class FlakyStore implements TripleStore {
  failing: ((kind: 'select' | 'ask' | 'update', text: string) => boolean) | undefined;
  failures = 0;
  constructor(private readonly inner: TripleStore) {}
  get description(): string {
    return `flaky ${this.inner.description}`;
  }
  get requestCount(): number {
    return this.inner.requestCount;
  }
  get deletesWithUnboundVariables(): boolean | undefined {
    return this.inner.deletesWithUnboundVariables;
  }

  get readsMayTear(): boolean | undefined {
    return this.inner.readsMayTear;
  }
  private check(kind: 'select' | 'ask' | 'update', text: string): void {
    if (this.failing?.(kind, text)) {
      this.failures += 1;
      throw new StoreError('injected store outage', this.description, 503);
    }
  }
  async select(query: string): Promise<Bindings[]> {
    this.check('select', query);
    return this.inner.select(query);
  }
  async ask(query: string): Promise<boolean> {
    this.check('ask', query);
    return this.inner.ask(query);
  }
  async update(update: string): Promise<void> {
    this.check('update', update);
    return this.inner.update(update);
  }
  async conditionalUpdate(update: string, condition: ConditionalUpdateCheck): Promise<boolean> {
    this.check('update', update);
    return this.inner.conditionalUpdate(update, condition);
  }
  load(document: string, options: LoadOptions): Promise<void> {
    return this.inner.load(document, options);
  }
  dump(options?: { graph?: string }): Promise<string> {
    return this.inner.dump(options);
  }
  async close(): Promise<void> {
    // The inner store belongs to the suite.
  }
}

/**
 * Registers, with the registration functions alone, a Service of `resourceIri` at `address` that
 * realizes the door's `open` Workflow, reachable and with a fresh heartbeat: what the graph holds
 * of a receiver there, whatever answers at that address (a raw server, nothing, another process).
 * @returns its Service IRI, `mintServiceIri(resourceIri, address)`.
 */
export async function registerOpenReceiver(ogm: OGM, resourceIri: string, address: string): Promise<string> {
  const serviceIri = mintServiceIri(resourceIri, address);
  await registerService(ogm, { resourceIri, serviceIri, serviceClass: plant.ControllerService, address, reachable: false });
  await registerWorkflow(ogm, {
    resourceIri,
    serviceIri,
    workflowIri: mintWorkflowIri(serviceIri, OPEN.name),
    workflowClass: OPEN.workflowClass,
    capabilityIri: mintCapabilityIri(resourceIri, OPEN.name),
    capabilityClass: OPEN.capabilityClass,
    endpoint: buildWorkflowEndpoint(address, OPEN.name),
  });
  await makeServiceReachable(ogm, serviceIri, address);
  return serviceIri;
}

/** Polls `condition` every 20 ms until it holds; throws with `what` after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A promise and its resolve function, for bodies that wait for the test. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

/** POSTs JSON and returns status and parsed body (an object's fields; `{}` for an empty body). */
export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The suite plus helpers to make middleware instances that share its store. */
export interface MiddlewareSuite extends StoreSuite {
  graph: string;
  /** A fresh OGM on the suite's store (or on `store`), as each real process has its own. */
  newOgm: (store?: TripleStore) => OGM;
  /** A middleware on 127.0.0.1 port 0 with a silent logger, stopped after the test. */
  create: (options: SemanticMiddlewareOptions) => SemanticMiddleware;
  /** A door controller: ControllerService with the `open` workflow. */
  controller: (options?: Partial<SemanticMiddlewareOptions>) => SemanticMiddleware;
  /** The middleware's default transport, for a test's own `fetch` to wrap; closed after the file. */
  keepAliveFetch: KeepAliveFetch;
  /** A queued OpenDoorOperation addressed to `resource`'s (default door1) `open` Capability, created directly in the graph. */
  queuedOp: (options?: { resource?: string; data?: Record<string, string | number> }) => Promise<string>;
}

/**
 * Opens the store suite on `graph` with the test data properties and returns the helpers.
 * Each file must use its own graph: files run in parallel against one Virtuoso.
 */
export function middlewareSuite(kind: StoreKind, graph: string): MiddlewareSuite {
  const base = storeSuite(kind, graph, { ontology: { graph: `${graph}:ontology`, turtle: TEST_ONTOLOGY } });
  const instances: SemanticMiddleware[] = [];
  afterEach(async () => {
    await Promise.all(instances.splice(0).map((m) => m.stop().catch(() => undefined)));
  });
  const suite = base as MiddlewareSuite;
  suite.graph = graph;
  suite.keepAliveFetch = createKeepAliveFetch();
  afterAll(() => suite.keepAliveFetch.close());
  suite.newOgm = (store) => new OGM({ store: store ?? base.store!, graph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
  suite.create = (options) => {
    const mw = new SemanticMiddleware({ port: 0, logger: silent, heartbeatInterval: 0.2, ...options, ogm: options.ogm ?? suite.newOgm() });
    instances.push(mw);
    return mw;
  };
  suite.controller = (options = {}) => {
    const mw = suite.create({ resourceIri: plant.door1, serviceClass: plant.ControllerService, ...options });
    mw.workflow(OPEN, () => 'opened');
    return mw;
  };
  suite.queuedOp = async ({ resource = plant.door1, data = {} } = {}) => {
    const operationIri = mintOperationIri(plant.OpenDoorOperation);
    await createOperation(suite.newOgm(), {
      operationIri,
      operationClass: plant.OpenDoorOperation,
      capabilityIri: mintCapabilityIri(resource, 'open'),
      data,
    });
    return operationIri;
  };
  return suite;
}

/** What one event trigger asked for and how the receiver answered it. */
export interface RecordedTrigger {
  accept: string | undefined;
  contentType: string | null;
}

/**
 * A door1 receiver whose callback answers `opened` (or runs `work`) and a robot1 caller, both
 * started on `suite`'s store; the caller's event triggers and its store reads (selects) are
 * recorded. `plainReceiver` asks every trigger for plain JSON, as a receiver that answers nothing
 * else (the Python reference) would answer it.
 */
export async function recordedPair(
  suite: MiddlewareSuite,
  { plainReceiver = false, work = (): unknown => 'opened' } = {},
): Promise<{ robot: SemanticMiddleware; triggers: RecordedTrigger[]; reads: StoreRequestKind[] }> {
  const door = suite.controller({ heartbeatInterval: null });
  door.registerCallback(work);
  await door.start();
  const triggers: RecordedTrigger[] = [];
  const recording: FetchFunction = async (url, init) => {
    const headers = init?.headers as Record<string, string> | undefined;
    const sent = plainReceiver ? { ...init, headers: { ...headers, accept: 'application/json' } } : init;
    const response = await suite.keepAliveFetch(url, sent);
    triggers.push({ accept: headers?.accept, contentType: response.headers.get('content-type') });
    return response;
  };
  const reads: StoreRequestKind[] = [];
  const store = new MeasuredStore(suite.store!);
  store.observe((kind) => void (kind === 'select' && reads.push(kind)));
  const robot = suite.create({
    resourceIri: plant.robot1,
    serviceClass: plant.ControllerService,
    heartbeatInterval: null,
    fetch: recording,
    ogm: suite.newOgm(store),
  });
  await robot.start();
  return { robot, triggers, reads };
}
