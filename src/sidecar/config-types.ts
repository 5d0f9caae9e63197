/**
 * The sidecar's resolved configuration: what `loadSidecarConfig` returns once the frozen
 * defaults, the config file, the environment and the flags are merged, validated and resolved
 * (CURIEs expanded to IRIs, relative paths made absolute, derived defaults filled in).
 *
 * The value types come from the settings table (`src/settings.ts`), derived from each setting's
 * JSON Schema (`V<'port'>`); what resolution adds (resolved secrets, absolute paths, derived
 * defaults) is stated here.
 */
import type { ConnectorCredentials } from '../connectors/credentials.js';
import type { TokenSet } from '../http/named-tokens.js';
import type { SettingPath, SettingValue } from '../settings.js';

type V<P extends SettingPath> = SettingValue<P>;

/** One of `LOG_LEVELS`. */
export type LogLevel = V<'log.level'>;

/** Where the graph lives. */
export interface StoreConfig {
  /**
   * `memory` (ephemeral embedded store), an `http(s)` SPARQL query endpoint (remote store), or
   * the absolute path of a durable embedded store's data directory. Default:
   * `<state dir>/store`, where the state dir is `$STATE_DIRECTORY` (set by systemd) or
   * `./.data/<resource slug>`.
   */
  url: V<'store.url'>;
  /** Remote only: SPARQL update endpoint; default the query URL. */
  updateUrl?: V<'store.updateUrl'>;
  /** Remote only: basic-auth user (`SPARQL_USER`, or userinfo moved out of `url`). */
  user?: V<'store.user'>;
  /** Remote only: file whose first line is the basic-auth password. */
  passwordFile?: V<'store.passwordFile'>;
  /**
   * Remote only, resolved secret: `SPARQL_PASSWORD`, else the first line of `passwordFile`, else
   * userinfo moved out of `url`. Never accepted in a config file or a flag; never logged.
   */
  password?: V<'store.password'>;
  /** Remote only: per-request timeout in ms; default `LIMITS.remoteRequestTimeoutMs`. */
  timeoutMs?: V<'store.timeoutMs'>;
}

/** The co-located device process the sidecar proxies workflow and state calls to. */
export interface DeviceConfig {
  /**
   * Where the device listens, checked by `parseDeviceTarget`: `unix:<absolute socket path>` or an
   * `http(s)://host:port` base URL.
   */
  target: V<'device.target'>;
  /** Default time a device call gets, in ms (default `LIMITS.deviceTimeoutMs`). */
  timeoutMs: V<'device.timeoutMs'>;
  /** Time between probes of the device's health, in ms (default `LIMITS.deviceHealthIntervalMs`). */
  healthIntervalMs: V<'device.healthIntervalMs'>;
  /** Path the health probe reads, which must answer with success; default: any answer to `HEAD /` counts. */
  healthPath?: V<'device.healthPath'>;
}

/** A workflow the sidecar registers and proxies to `POST <device><path>`: CURIEs expanded, defaults filled. */
export type WorkflowConfig = Required<V<'workflows'>[number]>;

/** A state property the sidecar registers and proxies to `GET <device><path>`: CURIEs expanded, defaults filled. */
export type StateConfig = Required<V<'states'>[number]>;

/** The local API the co-located device calls: a Unix socket, or loopback TCP with a token. */
export type LocalApiConfig =
  | {
      /** Absolute path of the Unix socket to serve on. */
      socket: V<'localApi.socket'>;
    }
  | {
      /** Loopback (127.0.0.1) port to serve on; 0 picks a free one. */
      port: V<'localApi.port'>;
      /** File of the bearer token callers must send, or of named tokens (see src/http/named-tokens.ts). */
      tokenFile: V<'localApi.tokenFile'>;
      /** Resolved secret: the token, or the named tokens, read from `tokenFile`. Never logged. */
      token: TokenSet;
    };

/**
 * Protection of the northbound HTTP surface: a bearer token callers must send, and HTTPS.
 * Absent from the resolved config when nothing is set (no token, plain HTTP).
 */
export interface HttpConfig {
  /** File of the bearer token callers must send, or of named tokens (see src/http/named-tokens.ts). */
  tokenFile?: V<'http.tokenFile'>;
  /**
   * Resolved secret: `SIDECAR_HTTP_TOKEN`, else the first line of `tokenFile`; required on every
   * route but `/`, `/favicon.ico`, `/healthz`, `/readyz`. Never accepted in a config file or a
   * flag; never logged.
   */
  token?: V<'http.token'> | TokenSet;
  /** PEM certificate (chain) file: the surface serves HTTPS. Needs `tlsKeyFile`. */
  tlsCertFile?: V<'http.tlsCertFile'>;
  /** PEM private key file of `tlsCertFile`. */
  tlsKeyFile?: V<'http.tlsKeyFile'>;
  /** Resolved: the PEM contents of `tlsCertFile` and `tlsKeyFile`. The key is a secret; never logged. */
  tls?: { cert: string; key: string };
}

/**
 * Bearer tokens the sidecar sends with the event triggers it rings (`request`, the local API's
 * `POST /operations`): a plant-wide token and per-receiver tokens keyed by normalized address;
 * a receiver's own token wins. Absent from the resolved config when nothing is set.
 */
export interface OutgoingTokensConfig {
  /** File whose first line is the token sent to every receiver without a token of its own. */
  defaultFile?: V<'outgoingTokens.defaultFile'>;
  /** Resolved secret: `SIDECAR_OUTGOING_TOKEN`, else the first line of `defaultFile`. Never logged. */
  default?: V<'outgoingTokens.default'>;
  /** Token files keyed by receiver base address (normalized; paths absolute). */
  byAddressFiles?: V<'outgoingTokens.byAddressFiles'>;
  /** Resolved secrets: the first line of each of `byAddressFiles`, keyed alike. Never logged. */
  byAddress?: Record<string, string>;
}

/** One broker's (or the default) user name, TLS switch and files, as configured (paths absolute). */
export type BrokerFilesConfig = V<'broker.byAddress'>[string];

/**
 * User name, password and TLS of the MQTT brokers: the defaults, and entries keyed `host:port`.
 * Absent from the resolved config when nothing is set (anonymous, plain TCP).
 */
export interface BrokerConfig extends BrokerFilesConfig {
  /** Entries of single brokers, keyed `host:port` (normalized). */
  byAddress?: Record<string, BrokerFilesConfig>;
  /**
   * Resolved secrets: `SIDECAR_BROKER_PASSWORD` or the first line of each password file, and the
   * PEM contents of the files, as the middleware's `connectorCredentials`. Never logged.
   */
  credentials: ConnectorCredentials;
}

/** Logging. */
export interface LogConfig {
  /** Minimum level; default `info`. */
  level: LogLevel;
  /** Level of the access log lines (HTTP surface and local API); default `debug`. */
  accessLevel: LogLevel;
  /** Human-readable output (needs `pino-pretty`); undefined means "when stdout is a TTY". */
  pretty?: V<'log.pretty'>;
}

/** Trace export. */
export interface TracingConfig {
  /** Base URL of an OTLP/HTTP receiver; absent: nothing is exported. */
  otlpEndpoint?: V<'tracing.otlpEndpoint'>;
}

/** The resolved sidecar configuration. See `config/` for commented examples. */
export interface SidecarConfig {
  /** IRI of the wrapped resource. Required by `start`; absent for the watchdog. */
  resource?: V<'resource'>;
  /** Service class IRI; default `svc:Service`. */
  serviceClass: V<'serviceClass'>;
  /** The store. */
  store: StoreConfig;
  /** Graph the instance data is written to; default `DEFAULT_DATA_GRAPH`. */
  namedGraph: V<'namedGraph'>;
  /**
   * Load the bundled ontology and `ontologyFiles` at start (unchanged modules are skipped by
   * content hash). Default: true for an embedded or memory store, or when `ontologyFiles` are
   * listed; false for a remote store, loaded once with `semantic-sidecar ontology load`.
   */
  provisionOntology: V<'provisionOntology'>;
  /** Extra ontology files (absolute paths) loaded after the bundled modules; default none. */
  ontologyFiles: V<'ontologyFiles'>;
  /** Interface the HTTP surface listens on; default `127.0.0.1`. */
  host: V<'host'>;
  /** Port the HTTP surface listens on; default 8000; 0 picks a free one. */
  port: V<'port'>;
  /**
   * Normalized base address others reach this sidecar at. Undefined means
   * `http://<host>:<bound port>`, known once the server listens.
   */
  address?: V<'address'>;
  /** Seconds between heartbeats; default 30; null disables the heartbeat. */
  heartbeatInterval: V<'heartbeatInterval'>;
  /** Seconds after which a heartbeat is stale; default 90. */
  stalenessThreshold: V<'stalenessThreshold'>;
  /** Seconds between watchdog sweeps; default 30. */
  sweepInterval: V<'sweepInterval'>;
  /** Port of the watchdog's web console; default null: none. */
  consolePort: V<'consolePort'>;
  /** The device; required when workflows or states are declared. */
  device?: DeviceConfig;
  /** Workflows registered and proxied to the device; default none. */
  workflows: WorkflowConfig[];
  /** State properties registered and proxied to the device; default none. */
  states: StateConfig[];
  /** Dispatched Operations the device may run at once; default 1. */
  operationConcurrency: V<'operationConcurrency'>;
  /** How long a request reuses what discovery found, in ms; default `LIMITS.discoveryCacheMs`; 0: never. */
  discoveryCacheMs: V<'discoveryCacheMs'>;
  /** The local API for the device, or false when it is off (always off for the watchdog). */
  localApi: LocalApiConfig | false;
  /** Token and TLS of the HTTP surface; absent: no token, plain HTTP. */
  http?: HttpConfig;
  /** Tokens sent with outgoing event triggers; absent: none (start only). */
  outgoingTokens?: OutgoingTokensConfig;
  /** Keep an in-memory activity feed (`GET /activity`); default false. */
  activityFeed: V<'activityFeed'>;
  /** Entries the activity feed keeps; default 200. */
  activityCapacity: V<'activityCapacity'>;
  /** Connect the resource's MQTT parameters recognized from the graph; default true. */
  autoregisterConnectors: V<'autoregisterConnectors'>;
  /** Which way the connectors sync; default `bidirectional`. */
  connectorSyncDirection: V<'connectorSyncDirection'>;
  /** Seconds after which a live parameter value is answered as stale; default null: never. */
  connectorMaxAge: V<'connectorMaxAge'>;
  /** Certificate store of the OPC UA connectors (absolute); default `<state dir>/opcua-pki`. */
  opcuaPkiDir: string;
  /** Credentials and TLS of the MQTT brokers; absent: anonymous, plain TCP. */
  broker?: BrokerConfig;
  /** Logging. */
  log: LogConfig;
  tracing: TracingConfig;
  /** Time `stop()` gives in-flight work, in ms; default `LIMITS.shutdownGraceMs`. */
  shutdownGraceMs: V<'shutdownGraceMs'>;
}
