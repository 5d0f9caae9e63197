import type { Logger } from '../lib/logger.js';
import type { SettingValue } from '../settings.js';
import type { OGM } from '../ogm/ogm.js';
import type { ConnectorCredentials, ResolvedConnectorCredentials } from '../connectors/credentials.js';
import type { ConnectorRegistry } from '../connectors/registry.js';
import type { SyncDirection } from '../connectors/wiring.js';
import type { Mode } from './runtime/mode.js';
import type { NamedToken } from '../http/named-tokens.js';

/**
 * The fetch scope of a claimed Operation: which property chains `ogm.fetch` follows when the
 * Operation is re-fetched for the body of `claimNext` (the spec's `class_scope`). Each chain is
 * a list of property IRIs walked from the Operation; the nodes reached are in
 * `claimed.operation.linked`, keyed by the chain's IRIs joined with ` / `.
 * @example { follow: [[cfc.implementsCapability]] }
 */
export interface ClassScope {
  follow?: readonly (readonly string[])[];
}

/**
 * The spec's `ensure_transport`: called with the listening host and port before the HTTP server
 * listens, and once per distinct connector transport (an MQTT broker's host and port) before
 * the first connector aimed there connects. The library never starts, probes or stops a broker.
 */
export type EnsureTransport = (host: string, port: number) => void | Promise<void>;

/**
 * The subset of WHATWG `fetch` the middleware uses (trigger delivery, and the liveness probe of
 * twin instances at start-up, a GET without a body); inject one to route or observe requests.
 * A response with `headers` and a `body` lets a trigger's outcome channel be read (see
 * outcome-channel.ts); without them the requester reads outcomes from the store. The body may
 * be fetch's web stream or any async iterable of byte chunks (a Node stream, as the default's is).
 */
export type FetchFunction = (
  url: string,
  /**
   * `idempotent`: the request may be sent again, once, when the kept-alive connection it went out
   * on was closed under it before any answer came (the default fetch honours it; others may ignore it).
   */
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal; idempotent?: boolean },
) => Promise<{
  ok: boolean;
  status: number;
  text(): Promise<string>;
  headers?: { get(name: string): string | null };
  body?: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}>;

/**
 * Bearer tokens this instance sends when it rings other Services' event triggers: one token
 * shared by the whole plant (`default`), and tokens of single receivers keyed by their base
 * address (normalized, so `https://Door1:8443/` and `https://door1:8443` are one key). A
 * receiver's own entry wins over `default`; a receiver with neither gets no Authorization header.
 * @example { default: plantToken, byAddress: { 'https://robot1.plant.local:8443': robotToken } }
 */
export interface OutgoingTokens {
  default?: string;
  byAddress?: Readonly<Record<string, string>>;
}

/** {@link OutgoingTokens} after validation: addresses normalized. */
export interface ResolvedOutgoingTokens {
  readonly default: string | undefined;
  readonly byAddress: ReadonlyMap<string, string>;
}

/** Certificate chain and private key of the HTTPS surface, as PEM text (not file names). */
export interface TlsOptions {
  cert: string;
  key: string;
}

/**
 * Options of `SemanticMiddleware`: the spec's constructor table in camelCase, one object, plus
 * `logger`, `fetch`, `shutdownGraceMs` and the security options `httpToken`, `outgoingTokens`
 * and `tls`. The options the sidecar's configuration shares take their types and defaults from
 * the settings table (`src/settings.ts`).
 */
export interface SemanticMiddlewareOptions {
  /**
   * `Mode.RESOURCE` (default), `Mode.WATCHDOG`, or the same as a bare string; `Mode.SERVER` throws.
   * Any string type-checks (`string & {}` keeps the constants' completion) and is validated at construction.
   */
  mode?: Mode | (string & {});
  /** The resource this instance wraps. Required in resource mode. */
  resourceIri?: string | null;
  /** `svc:Service` or a subclass, declared in the ontology. Required in resource mode. */
  serviceClass?: string | null;
  /** The OGM every read and write goes through. Required in every mode. */
  ogm?: OGM | null;
  /** Host the HTTP surface listens on; default `'127.0.0.1'`. */
  host?: SettingValue<'host'>;
  /** Port the HTTP surface listens on; default `8000`; `0` picks a free port (the address is then known after `start()`). */
  port?: SettingValue<'port'>;
  /** Base address registered as `svc:address`; default `http://{host}:{port}`; normalized. */
  address?: string | null;
  /** Graph for every read and write; default the OGM's graph. */
  namedGraph?: string | null;
  /** Seconds between heartbeats; default 30; `null` disables the heartbeat loop. */
  heartbeatInterval?: SettingValue<'heartbeatInterval'>;
  /** Seconds after which a heartbeat is stale (sweep, and the freshness window of discovery); default 90. */
  stalenessThreshold?: SettingValue<'stalenessThreshold'>;
  /** Seconds between watchdog sweeps; default 30. */
  sweepInterval?: SettingValue<'sweepInterval'>;
  /** Default fetch scope of claimed Operations; see {@link ClassScope}. */
  classScope?: ClassScope | null;
  /**
   * Recognize the resource's interface-accessible parameters at start and connect them; default
   * `true`. `false` (inspecting): the parameters are listed, nothing connects, nothing is written.
   */
  autoregisterConnectors?: boolean;
  /**
   * Which way connectors sync; default `SyncDirection.BIDIRECTIONAL` (driving: reads, and writes
   * `readwrite` parameters). `TO_PERSISTENCE` (observing) never writes; `FROM_PERSISTENCE` only writes.
   */
  connectorSyncDirection?: SyncDirection | (string & {});
  /** Bindings by interface property; default `defaultConnectorRegistry()` (MQTT). */
  connectorRegistry?: ConnectorRegistry | null;
  /** Seconds after which a live parameter value is answered with `stale: true`; default `null`: never. */
  connectorMaxAge?: SettingValue<'connectorMaxAge'>;
  /**
   * User names, passwords and TLS (PEM text) of the brokers the connectors reach: one default
   * and entries keyed `host:port`; see `ConnectorCredentials`. Never logged or served. Default
   * `null`: anonymous, plain TCP.
   */
  connectorCredentials?: ConnectorCredentials | null;
  /** Called before listening; see {@link EnsureTransport}. */
  ensureTransport?: EnsureTransport | null;
  /** Record an activity feed served at `/activity`; default `false`. */
  activityFeed?: SettingValue<'activityFeed'>;
  /** Entries the activity feed holds; default 200. */
  activityCapacity?: SettingValue<'activityCapacity'>;
  /** pino logger; default `createLogger()`. */
  logger?: Logger;
  /** Level of the HTTP surface's access log lines (one per request); default `debug`; `silent`: none. */
  accessLogLevel?: SettingValue<'log.accessLevel'>;
  /**
   * fetch used to deliver event triggers and probe twin instances; default keep-alive
   * connections of the instance's own on undici's pool (`src/lib/keep-alive-fetch.ts`),
   * closed by `stop()`. Node's global `fetch` fits too.
   */
  fetch?: FetchFunction;
  /** Time `stop()` gives in-flight work; default `LIMITS.shutdownGraceMs`. */
  shutdownGraceMs?: SettingValue<'shutdownGraceMs'>;
  /**
   * How long `request` reuses the receiver discovery found for a Capability class (and
   * `targetResource`), in ms; default `LIMITS.discoveryCacheMs`; `0` reads the graph on every
   * request. A remembered receiver that declines the Operation (refuses the connection, or
   * answers 503) is forgotten and discovery asked again within the same request; any other
   * trigger failure forgets it for the next request.
   */
  discoveryCacheMs?: SettingValue<'discoveryCacheMs'>;
  /**
   * Bearer token every route of the HTTP surface requires except `GET /`, `/favicon.ico`,
   * `/healthz` and `/readyz` (`Authorization: Bearer <token>`; else 401): at least
   * `LIMITS.minTokenLength` visible ASCII characters. Or named tokens (`{ name, token,
   * workflows? }`): each caller is then named `token:<name>` in logs, the activity feed and the
   * graph, and a token with `workflows` may run only those (403 for any other call but a read).
   * Default `null`: no authentication, as the Python reference (a warning is logged when the
   * host is not loopback).
   */
  httpToken?: string | readonly NamedToken[] | null;
  /** Tokens sent with outgoing event triggers; see {@link OutgoingTokens}. Default none. */
  outgoingTokens?: OutgoingTokens | null;
  /**
   * Serve HTTPS with this certificate and key; the default address is then `https://{host}:{port}`.
   * Default `null`: plain HTTP.
   */
  tls?: TlsOptions | null;
  /**
   * Probes the resource's device (resource mode): at start, before the Service becomes reachable,
   * and every `deviceHealthIntervalMs` after. While it says unavailable, `/readyz` answers 503,
   * the Service carries `sm:deviceUnavailableSince` (discovery skips it) and the event trigger
   * refuses new Operations; all three come back with the device. The semantic connectors'
   * connection state counts too. Default `null`: only the connectors are watched.
   */
  deviceHealth?: DeviceHealthProbe | null;
  /** Milliseconds between device health probes; default `LIMITS.deviceHealthIntervalMs`. */
  deviceHealthIntervalMs?: SettingValue<'device.healthIntervalMs'>;
}

/**
 * Whether the device answers, as {@link SemanticMiddlewareOptions.deviceHealth} reports it; the
 * reason goes to the log and `/readyz`, never to the graph.
 */
export type DeviceHealthReport =
  | { readonly available: true }
  | {
      readonly available: false;
      readonly reason: string;
      /** The probe got no answer in time (rather than a refusal): on a loaded machine, a slow device may still be there. */
      readonly timedOut?: boolean;
    };

/** Probes the device once; should resolve (not reject) for an unavailable device. */
export type DeviceHealthProbe = () => Promise<DeviceHealthReport>;

/** The options after validation, with every default applied. */
export interface ResolvedOptions {
  readonly mode: typeof Mode.RESOURCE | typeof Mode.WATCHDOG;
  /** Set in resource mode. */
  readonly resourceIri: string | undefined;
  /** Set in resource mode. */
  readonly serviceClass: string | undefined;
  readonly ogm: OGM;
  readonly host: string;
  readonly port: number;
  /** Normalized; undefined when derived from host and port at listen time. */
  readonly address: string | undefined;
  readonly namedGraph: string | undefined;
  readonly heartbeatInterval: number | null;
  readonly stalenessThreshold: number;
  readonly sweepInterval: number;
  readonly classScope: ClassScope | undefined;
  readonly autoregisterConnectors: boolean;
  readonly connectorSyncDirection: SyncDirection;
  readonly connectorRegistry: ConnectorRegistry | undefined;
  readonly connectorMaxAge: number | null;
  readonly connectorCredentials: ResolvedConnectorCredentials | undefined;
  readonly ensureTransport: EnsureTransport | undefined;
  readonly activityFeed: boolean;
  readonly activityCapacity: number;
  readonly logger: Logger;
  readonly accessLogLevel: SettingValue<'log.accessLevel'>;
  /** The option as given; without it the instance sends with its own (`MiddlewareContext.fetch`). */
  readonly fetch: FetchFunction | undefined;
  readonly shutdownGraceMs: number;
  readonly discoveryCacheMs: number;
  readonly httpToken: string | readonly NamedToken[] | undefined;
  readonly outgoingTokens: ResolvedOutgoingTokens | undefined;
  readonly tls: TlsOptions | undefined;
  readonly deviceHealth: DeviceHealthProbe | undefined;
  readonly deviceHealthIntervalMs: number;
}
