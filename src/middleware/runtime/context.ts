import { RuntimeError, UnavailableError } from '../../errors.js';
import { createKeepAliveFetch, type KeepAliveFetch } from '../../lib/keep-alive-fetch.js';
import { normalizeHttpAddress } from '../../iri/address.js';
import { mintServiceIri } from '../../iri/mint.js';
import type { Logger } from '../../lib/logger.js';
import type { OGM } from '../../ogm/ogm.js';
import type { GraphOption } from '../../registration/classes.js';
import { ConnectorSet } from '../../connectors/connector-set.js';
import { defaultConnectorRegistry } from '../../connectors/registry.js';
import { wiringOf } from '../../connectors/wiring.js';
import { outgoingTokenFor } from '../surface/security-options.js';
import { ActivityFeed, type ActivityKind } from './activity-feed.js';
import { Mode } from './mode.js';
import type { FetchFunction, ResolvedOptions } from '../options.js';
import { DeviceWatch } from './device-watch.js';
import { Registry } from './registry.js';
import { AwaitedOutcomes, OutcomeListeners } from '../operations/outcome-channel.js';
import { WorkQueue } from './work-queue.js';
import { DispatchTargets } from '../operations/dispatch-targets.js';
import type { MiddlewareMetrics } from '../../metrics/middleware-metrics.js';

/** The `mode` a logger binds already, if any (a duck-typed logger without `bindings` has none). */
function ownMode(logger: Logger): unknown {
  return typeof logger.bindings === 'function' ? (logger.bindings() as Record<string, unknown>).mode : undefined;
}

/** Where an instance is in its life: `new` → `starting` → `started` → `stopping` → `stopped`. */
export type Phase = 'new' | 'starting' | 'started' | 'stopping' | 'stopped';

/**
 * The state one middleware instance shares between its modules (lifecycle, loops, trigger,
 * claim, request, handover). Built once in the constructor; mode-specific choices are made there.
 */
export class MiddlewareContext {
  readonly ogm: OGM;
  readonly logger: Logger;
  readonly activity: ActivityFeed | undefined;
  readonly registry = new Registry();
  readonly queue = new WorkQueue();
  /** Callers told the outcome of an Operation run here once it is written (event-trigger channels). */
  readonly outcomes = new OutcomeListeners();
  /** Outcomes announced for Operations this instance requested, for its waiters. */
  readonly awaited = new AwaitedOutcomes();
  /** What discovery found for this instance's requests, reused for `discoveryCacheMs`. */
  readonly targets: DispatchTargets;
  /** The semantic connectors of the resource (empty until start, and in watchdog mode). */
  readonly connectors: ConnectorSet;
  /** The graph option every registration call gets. */
  readonly graph: GraphOption;
  /** Whether the resource's device answers (resource mode; always available otherwise). */
  readonly device: DeviceWatch;
  /** What event triggers and twin probes are sent with: the `fetch` option, else {@link ownFetch}. */
  readonly fetch: FetchFunction;
  /** The instance's own connections, when no `fetch` was given; closed by {@link closeConnections}. */
  private readonly ownFetch: KeepAliveFetch | undefined;
  phase: Phase = 'new';
  /** True while the Service is registered and reachable (set by start, cleared by stop). */
  registered = false;
  /** The instance's `/metrics`, from its first start on. */
  metrics: MiddlewareMetrics | undefined;
  private addressValue: string | undefined;
  private minted: { address: string; serviceIri: string } | undefined;

  constructor(readonly options: ResolvedOptions) {
    this.ogm = options.ogm;
    this.graph = { namedGraph: options.namedGraph ?? null };
    this.logger = options.logger.child({
      component: 'middleware',
      // A program that runs the middleware in a role of its own (`semantic-sidecar request` is a
      // caller, not a watchdog) binds `mode` on its logger; binding it again would repeat the key.
      ...(ownMode(options.logger) === undefined && { mode: options.mode }),
      ...(options.resourceIri ? { resource: options.resourceIri } : {}),
    });
    this.activity = options.activityFeed ? new ActivityFeed(options.activityCapacity) : undefined;
    this.connectors = new ConnectorSet({
      registry: options.connectorRegistry ?? defaultConnectorRegistry(),
      wiring: wiringOf(options.autoregisterConnectors, options.connectorSyncDirection),
      ...(options.ensureTransport && { ensureTransport: options.ensureTransport }),
      logger: this.logger,
      maxAgeMs: options.connectorMaxAge === null ? null : options.connectorMaxAge * 1000,
      peers: {
        graph: this.graphIri,
        freshWithinMs: options.stalenessThreshold * 1000,
        tokenFor: (address) => outgoingTokenFor(options.outgoingTokens, address),
      },
      ...(options.connectorCredentials && { credentials: options.connectorCredentials }),
    });
    this.device = new DeviceWatch(this);
    this.targets = new DispatchTargets(options.discoveryCacheMs);
    this.ownFetch = options.fetch ? undefined : createKeepAliveFetch();
    this.fetch = options.fetch ?? this.ownFetch!;
    this.addressValue =
      options.address ?? (options.port === 0 ? undefined : defaultAddress(options.host, options.port, options.tls !== undefined));
  }

  /** The graph every read and write names: `namedGraph`, else the OGM's graph. */
  get graphIri(): string {
    return this.options.namedGraph ?? this.ogm.graph;
  }

  /** The base address, once known (at construction, or after listening on port 0). */
  get address(): string | undefined {
    return this.addressValue;
  }

  /** Sets the address from the port actually bound, unless one was configured. */
  bound(port: number): void {
    this.addressValue = this.options.address ?? defaultAddress(this.options.host, port, this.options.tls !== undefined);
  }

  /** The Service IRI, once the address is known (resource mode only). */
  get serviceIri(): string | undefined {
    const { resourceIri } = this.options;
    if (!resourceIri || !this.addressValue) return undefined;
    // Minted once per address: it is read several times for every Operation and trigger.
    if (this.minted?.address !== this.addressValue) {
      this.minted = { address: this.addressValue, serviceIri: mintServiceIri(resourceIri, this.addressValue) };
    }
    return this.minted.serviceIri;
  }

  /** The Service IRI and address; throws when they are not known yet. */
  service(what: string): { serviceIri: string; address: string } {
    const serviceIri = this.serviceIri;
    if (!serviceIri || !this.addressValue) throw new UnavailableError(`${what}: the instance has no Service yet (start() it first)`);
    return { serviceIri, address: this.addressValue };
  }

  /** The resource IRI; throws RuntimeError outside resource mode. */
  resource(what: string): string {
    if (this.options.mode !== Mode.RESOURCE || !this.options.resourceIri) {
      throw new RuntimeError(`${what} is only available in resource mode (this instance is in ${this.options.mode} mode)`);
    }
    return this.options.resourceIri;
  }

  /** Throws UnavailableError unless the instance is started. */
  requireStarted(what: string): void {
    if (this.phase !== 'started')
      throw new UnavailableError(`${what}: the middleware is ${this.phase === 'new' ? 'not started' : this.phase}`);
  }

  /** Throws UnavailableError once the instance is stopping or stopped. */
  requireNotStopped(what: string): void {
    if (this.phase === 'stopping' || this.phase === 'stopped') throw new UnavailableError(`${what}: the middleware is ${this.phase}`);
  }

  /** Waits for the instance's own outgoing requests in flight, then closes its connections (at stop). */
  closeConnections(): Promise<void> {
    return this.ownFetch?.close() ?? Promise.resolve();
  }

  /** Records an activity entry when the feed is enabled. Details are plain facts, never secrets. */
  record(kind: ActivityKind, details: Record<string, unknown> = {}): void {
    this.activity?.record(kind, details);
    this.metrics?.observe(kind, details);
  }
}

/**
 * `http://{host}:{port}` (`https://` when `secure`) normalized, with an IPv6 host in brackets.
 * @throws ValueError for a host that makes no URL.
 */
export function defaultAddress(host: string, port: number, secure = false): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return normalizeHttpAddress(`${secure ? 'https' : 'http'}://${h}:${port}`, 'address built from host and port');
}
