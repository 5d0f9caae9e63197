/**
 * The sidecar's resolved configuration: what `loadSidecarConfig` returns once the frozen
 * defaults, the config file, the environment and the flags are merged, validated and resolved
 * (CURIEs expanded to IRIs, relative paths made absolute, derived defaults filled in).
 *
 * Written by hand next to the JSON Schema in `config-schema.ts`; the schema's property lists are
 * typed against these interfaces, so a field added here and not there (or the other way round)
 * fails to compile.
 */

/** pino levels accepted by `log.level`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where the graph lives. */
export interface StoreConfig {
  /**
   * `memory` (ephemeral embedded store), an `http(s)` SPARQL query endpoint (remote store), or
   * the absolute path of a durable embedded store's data directory. Default:
   * `<state dir>/store`, where the state dir is `$STATE_DIRECTORY` (set by systemd) or
   * `./.data/<resource slug>`.
   */
  url: string;
  /** Remote only: SPARQL update endpoint; default the query URL. */
  updateUrl?: string;
  /** Remote only: basic-auth user (`SPARQL_USER`, or userinfo moved out of `url`). */
  user?: string;
  /** Remote only: file whose first line is the basic-auth password. */
  passwordFile?: string;
  /**
   * Remote only, resolved secret: `SPARQL_PASSWORD`, else the first line of `passwordFile`, else
   * userinfo moved out of `url`. Never accepted in a config file or a flag; never logged.
   */
  password?: string;
  /** Remote only: per-request timeout in ms; default `LIMITS.remoteRequestTimeoutMs`. */
  timeoutMs?: number;
}

/** The co-located device process the sidecar proxies workflow and state calls to. */
export type DeviceConfig =
  | {
      /** Base URL of the device's HTTP API, e.g. `http://127.0.0.1:9000`. */
      url: string;
      /** Default time a device call gets, in ms (default `LIMITS.deviceTimeoutMs`). */
      timeoutMs: number;
    }
  | {
      /** Absolute path of the device's Unix socket, e.g. `/run/device/door1.sock`. */
      socket: string;
      /** Default time a device call gets, in ms (default `LIMITS.deviceTimeoutMs`). */
      timeoutMs: number;
    };

/** A workflow the sidecar registers and proxies to `POST <device><path>`. */
export interface WorkflowConfig {
  /** Workflow name (`POST /workflows/<name>/execute`); checked by `assertName`. */
  name: string;
  /** Capability class IRI the workflow realizes. */
  capabilityClass: string;
  /** Workflow class IRI (a subclass of `svc:Workflow`). */
  workflowClass: string;
  /** Path on the device, starting with `/`. */
  path: string;
  /** HTTP method of the device call; only `POST`. */
  method: 'POST';
  /** Time the device gets for this workflow, in ms; default `device.timeoutMs`. */
  timeoutMs: number;
}

/** A state property the sidecar registers and proxies to `GET <device><path>`. */
export interface StateConfig {
  /** State property name (`GET /state/<name>`); checked by `assertName`. */
  name: string;
  /** Capability class IRI the state property provides. */
  capabilityClass: string;
  /** State-property class IRI (a subclass of `svc:StateProperty`). */
  statePropertyClass: string;
  /** Path on the device, starting with `/`. */
  path: string;
  /** Time the device gets for this read, in ms; default `device.timeoutMs`. */
  timeoutMs: number;
}

/** The local API the co-located device calls: a Unix socket, or loopback TCP with a token. */
export type LocalApiConfig =
  | {
      /** Absolute path of the Unix socket to serve on. */
      socket: string;
    }
  | {
      /** Loopback (127.0.0.1) port to serve on; 0 picks a free one. */
      port: number;
      /** File whose first line is the bearer token callers must send. */
      tokenFile: string;
      /** Resolved secret: the token read from `tokenFile`. Never logged. */
      token: string;
    };

/**
 * Protection of the northbound HTTP surface: a bearer token callers must send, and HTTPS.
 * Absent from the resolved config when nothing is set (no token, plain HTTP).
 */
export interface HttpConfig {
  /** File whose first line is the bearer token callers must send. */
  tokenFile?: string;
  /**
   * Resolved secret: `SIDECAR_HTTP_TOKEN`, else the first line of `tokenFile`; required on every
   * route but `/`, `/favicon.ico`, `/healthz`, `/readyz`. Never accepted in a config file or a
   * flag; never logged.
   */
  token?: string;
  /** PEM certificate (chain) file: the surface serves HTTPS. Needs `tlsKeyFile`. */
  tlsCertFile?: string;
  /** PEM private key file of `tlsCertFile`. */
  tlsKeyFile?: string;
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
  defaultFile?: string;
  /** Resolved secret: `SIDECAR_OUTGOING_TOKEN`, else the first line of `defaultFile`. Never logged. */
  default?: string;
  /** Token files keyed by receiver base address (normalized; paths absolute). */
  byAddressFiles?: Record<string, string>;
  /** Resolved secrets: the first line of each of `byAddressFiles`, keyed alike. Never logged. */
  byAddress?: Record<string, string>;
}

/** Logging. */
export interface LogConfig {
  /** Minimum level; default `info`. */
  level: LogLevel;
  /** Human-readable output (needs `pino-pretty`); undefined means "when stdout is a TTY". */
  pretty?: boolean;
}

/** The resolved sidecar configuration. See `config/` for commented examples. */
export interface SidecarConfig {
  /** IRI of the wrapped resource. Required by `start`; absent for the watchdog. */
  resource?: string;
  /** Service class IRI; default `svc:Service`. */
  serviceClass: string;
  /** The store. */
  store: StoreConfig;
  /** Graph the instance data is written to; default `DEFAULT_DATA_GRAPH`. */
  namedGraph: string;
  /**
   * Load the bundled ontology and `ontologyFiles` at start (unchanged modules are skipped by
   * content hash). Default: true for an embedded or memory store, or when `ontologyFiles` are
   * listed; false for a remote store, loaded once with `semantic-sidecar ontology load`.
   */
  provisionOntology: boolean;
  /** Extra ontology files (absolute paths) loaded after the bundled modules; default none. */
  ontologyFiles: string[];
  /** Interface the HTTP surface listens on; default `127.0.0.1`. */
  host: string;
  /** Port the HTTP surface listens on; default 8000; 0 picks a free one. */
  port: number;
  /**
   * Normalized base address others reach this sidecar at. Undefined means
   * `http://<host>:<bound port>`, known once the server listens.
   */
  address?: string;
  /** Seconds between heartbeats; default 30; null disables the heartbeat. */
  heartbeatInterval: number | null;
  /** Seconds after which a heartbeat is stale; default 90. */
  stalenessThreshold: number;
  /** Seconds between watchdog sweeps; default 30. */
  sweepInterval: number;
  /** The device; required when workflows or states are declared. */
  device?: DeviceConfig;
  /** Workflows registered and proxied to the device; default none. */
  workflows: WorkflowConfig[];
  /** State properties registered and proxied to the device; default none. */
  states: StateConfig[];
  /** The local API for the device, or false when it is off (always off for the watchdog). */
  localApi: LocalApiConfig | false;
  /** Token and TLS of the HTTP surface; absent: no token, plain HTTP. */
  http?: HttpConfig;
  /** Tokens sent with outgoing event triggers; absent: none (start only). */
  outgoingTokens?: OutgoingTokensConfig;
  /** Keep an in-memory activity feed (`GET /activity`); default false. */
  activityFeed: boolean;
  /** Entries the activity feed keeps; default 200. */
  activityCapacity: number;
  /** Logging. */
  log: LogConfig;
  /** Time `stop()` gives in-flight work, in ms; default `LIMITS.shutdownGraceMs`. */
  shutdownGraceMs: number;
}
