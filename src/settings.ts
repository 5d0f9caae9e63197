/**
 * Every setting of the product in one table: per setting its JSON Schema, default, environment
 * variable, command-line flag, description, whether it is a secret and its exclusive group. The
 * sidecar's config loader, its JSON Schema, `--help`, `config/README.md` (checked by a test) and
 * the library's constructor defaults all read this table; the value types are derived from the
 * schemas (`SettingValue<'port'>`), so nothing is written twice.
 *
 * Keys are config paths: `port`, `store.url`. A path of two keys lives in a mapping (`store`,
 * `device`, ...) whose own row describes the mapping.
 */
import { SYNC_DIRECTIONS, SyncDirection } from './connectors/wiring.js';
import { LIMITS } from './limits.js';
import { DEFAULT_DATA_GRAPH } from './vocab/defaults.js';
import { svc } from './vocab/terms.js';

/** pino levels accepted by `log.level`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** Node's timers cannot wait longer than this (2^31-1 ms); larger values fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The commands whose flags a setting has. */
export type SettingCommand = 'start' | 'watchdog';

/** One row of {@link SETTINGS}. */
export interface Setting {
  /** JSON Schema of the value as written in a config file. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** Default that depends on no other setting; derived defaults are described in `defaultText`. */
  readonly default?: unknown;
  /** How the default reads in the docs when it is derived, or none. */
  readonly defaultText?: string;
  /** Environment variable that sets it. */
  readonly env?: string;
  /** Former names of {@link env}, still read with a deprecation warning. */
  readonly deprecatedEnv?: readonly string[];
  /** Command-line flag (commander syntax) and the commands that take it. */
  readonly flag?: string;
  readonly commands?: readonly SettingCommand[];
  /** What it means: `--help`, the schema and `config/README.md` say this. */
  readonly description: string;
  /**
   * A secret: read only from the environment (or resolved from a file setting), never from a
   * config file or a flag; the text says what to use instead. Never logged or shown.
   */
  readonly secret?: string;
  /** Settings of one group exclude each other: a higher layer naming one drops the others set lower. */
  readonly exclusive?: readonly [group: string, side: string];
  /** Used by `start` only: the watchdog refuses it from a file or flag. */
  readonly startOnly?: true;
  /** The setting that replaces this deprecated one. */
  readonly replacedBy?: string;
}

const text = (maxLength: number = LIMITS.maxIriLength) => ({ type: 'string', maxLength }) as const;
const ms = (minimum: 0 | 1 = 1) => ({ type: 'integer', minimum, maximum: MAX_TIMER_MS }) as const;
const seconds = { type: 'number', exclusiveMinimum: 0, maximum: MAX_TIMER_MS / 1000 } as const;
const port = { type: 'integer', minimum: 0, maximum: 65535 } as const;
const bool = { type: 'boolean' } as const;
const mapping = { type: 'object' } as const;
const BOTH: readonly SettingCommand[] = ['start', 'watchdog'];
const START: readonly SettingCommand[] = ['start'];
const CLASS = 'an IRI or a svc:/cfc:/mes:/plant: CURIE';

const workflow = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'capabilityClass', 'workflowClass', 'path'],
  properties: {
    name: { ...text(LIMITS.maxNameLength), description: 'workflow name: A-Z a-z 0-9 . _ ~ -' },
    capabilityClass: { ...text(), description: `capability class: ${CLASS}` },
    workflowClass: { ...text(), description: `workflow class: ${CLASS}` },
    path: { ...text(), description: 'path of the workflow on the device, starting with /' },
    method: { enum: ['POST'], description: 'HTTP method of the device call (POST)' },
    timeoutMs: { ...ms(), description: 'time the device gets for this workflow, in ms (default device.timeoutMs)' },
  },
} as const;

const state = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'capabilityClass', 'statePropertyClass', 'path'],
  properties: {
    name: { ...text(LIMITS.maxNameLength), description: 'state property name: A-Z a-z 0-9 . _ ~ -' },
    capabilityClass: { ...text(), description: `capability class: ${CLASS}` },
    statePropertyClass: { ...text(), description: `state-property class: ${CLASS}` },
    path: { ...text(), description: 'path of the state on the device, starting with /' },
    timeoutMs: { ...ms(), description: 'time the device gets for this read, in ms (default device.timeoutMs)' },
  },
} as const;

const brokerFiles = {
  username: { ...text(256), description: 'user name sent to this broker' },
  passwordFile: { ...text(), description: 'file whose first line is the password sent with username' },
  tls: { type: 'boolean', description: 'connect with TLS (mqtts); implied by caFile and certFile' },
  caFile: { ...text(), description: 'PEM file of the CA(s) the broker certificate must chain to' },
  certFile: { ...text(), description: 'PEM client certificate file (with keyFile)' },
  keyFile: { ...text(), description: 'PEM private key file of certFile' },
} as const;

/** The table. Order is the order of `--help`, the schema and the docs. */
export const SETTINGS = {
  resource: {
    schema: text(),
    env: 'SIDECAR_RESOURCE',
    flag: '--resource <iri>',
    commands: START,
    startOnly: true,
    description: 'IRI or CURIE of the wrapped resource; required by start',
  },
  serviceClass: {
    schema: text(),
    default: svc.Service,
    defaultText: '`svc:Service`',
    env: 'SIDECAR_SERVICE_CLASS',
    flag: '--service-class <iri>',
    commands: START,
    startOnly: true,
    description: 'class of the registered Service (svc:Service or a subclass): an IRI or a CURIE',
  },
  store: { schema: mapping, description: 'the store; `store: <url>` is short for `store.url`' },
  'store.url': {
    schema: text(),
    defaultText: '`<state dir>/store`',
    env: 'SM_STORE',
    deprecatedEnv: ['SIDECAR_STORE'],
    flag: '--store <url>',
    commands: BOTH,
    description: '"memory", an http(s) SPARQL endpoint, or an embedded store directory (a file: URL works too)',
  },
  'store.updateUrl': {
    schema: text(),
    defaultText: 'the store URL',
    env: 'SPARQL_UPDATE_URL',
    description: 'remote only: SPARQL update endpoint',
  },
  'store.user': { schema: text(256), env: 'SPARQL_USER', description: 'remote only: basic-auth user' },
  'store.password': {
    schema: text(),
    env: 'SPARQL_PASSWORD',
    secret: 'passwords are not accepted here: name a file in store.passwordFile (or set SPARQL_PASSWORD_FILE)',
    description: 'remote only: basic-auth password (prefer SPARQL_PASSWORD_FILE)',
  },
  'store.passwordFile': {
    schema: text(),
    env: 'SPARQL_PASSWORD_FILE',
    description: 'remote only: file whose first line is the basic-auth password',
  },
  'store.timeoutMs': {
    schema: ms(),
    default: LIMITS.remoteRequestTimeoutMs,
    env: 'SPARQL_TIMEOUT_MS',
    description: 'remote only: per-request timeout, in ms',
  },
  namedGraph: {
    schema: text(),
    default: DEFAULT_DATA_GRAPH,
    env: 'SIDECAR_GRAPH',
    flag: '--graph <iri>',
    commands: BOTH,
    description: 'named graph of the instance data',
  },
  provisionOntology: {
    schema: bool,
    defaultText: 'true, except for a remote store without `ontologyFiles`',
    env: 'SIDECAR_PROVISION_ONTOLOGY',
    description: 'true/false: load the bundled ontology and ontologyFiles at start (unchanged modules are skipped)',
  },
  ontologyFiles: {
    schema: { type: 'array', items: text() },
    env: 'SIDECAR_ONTOLOGY_FILES',
    description: 'extra .ttl/.nt/.nq/.trig files, each into its own graph (env: separated by ":")',
  },
  host: {
    schema: text(253),
    default: '127.0.0.1',
    env: 'SIDECAR_HOST',
    flag: '--host <host>',
    commands: BOTH,
    description: 'interface the HTTP surface listens on',
  },
  port: {
    schema: port,
    default: 8000,
    env: 'SIDECAR_PORT',
    flag: '--port <port>',
    commands: BOTH,
    description: 'port the HTTP surface listens on; 0 picks a free one',
  },
  address: {
    schema: text(),
    defaultText: '`http://<host>:<port>`',
    env: 'SIDECAR_ADDRESS',
    flag: '--address <url>',
    commands: START,
    startOnly: true,
    description: 'base http(s) address others reach this sidecar at; required when host is 0.0.0.0 or ::',
  },
  heartbeatInterval: {
    schema: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: MAX_TIMER_MS / 1000 },
    default: 30,
    env: 'SIDECAR_HEARTBEAT_INTERVAL',
    flag: '--heartbeat-interval <seconds>',
    commands: START,
    startOnly: true,
    description: 'seconds between heartbeats; null (env and flag: off) disables the heartbeat',
  },
  stalenessThreshold: {
    schema: seconds,
    default: 90,
    env: 'SIDECAR_STALENESS_THRESHOLD',
    flag: '--staleness-threshold <seconds>',
    commands: ['watchdog'],
    description: 'seconds after which a heartbeat is stale; must exceed heartbeatInterval',
  },
  sweepInterval: {
    schema: seconds,
    default: 30,
    env: 'SIDECAR_SWEEP_INTERVAL',
    flag: '--sweep-interval <seconds>',
    commands: ['watchdog'],
    description: 'seconds between watchdog sweeps',
  },
  consolePort: {
    schema: { type: ['number', 'null'], minimum: 0, maximum: 65535, multipleOf: 1 },
    default: null,
    env: 'SIDECAR_CONSOLE_PORT',
    flag: '--console-port <port>',
    commands: ['watchdog'],
    description:
      'port on host of the web console the watchdog serves (0: any free port; its token is http.tokenFile); null (env and flag: off) serves none',
  },
  device: { schema: mapping, startOnly: true, description: 'the co-located device bridge; required with workflows or states' },
  'device.target': {
    schema: text(),
    env: 'SIDECAR_DEVICE',
    flag: '--device <target>',
    commands: START,
    exclusive: ['device', 'target'],
    description: 'where the device bridge listens: unix:/path/to.sock or http(s)://host:port',
  },
  'device.url': {
    schema: text(),
    env: 'SIDECAR_DEVICE_URL',
    flag: '--device-url <url>',
    commands: START,
    exclusive: ['device', 'url'],
    replacedBy: 'device.target',
    description: 'deprecated: base URL of the device bridge (use device.target)',
  },
  'device.socket': {
    schema: text(),
    env: 'SIDECAR_DEVICE_SOCKET',
    flag: '--device-socket <path>',
    commands: START,
    exclusive: ['device', 'socket'],
    replacedBy: 'device.target',
    description: 'deprecated: Unix socket of the device bridge (use device.target unix:<path>)',
  },
  'device.timeoutMs': {
    schema: ms(),
    default: LIMITS.deviceTimeoutMs,
    env: 'SIDECAR_DEVICE_TIMEOUT_MS',
    description: 'default time a device call gets, in ms',
  },
  'device.healthPath': {
    schema: text(),
    env: 'SIDECAR_DEVICE_HEALTH_PATH',
    description:
      'path on the device its health probe reads, starting with /; it must answer with success. Default: any answer to HEAD / counts',
  },
  'device.healthIntervalMs': {
    schema: ms(),
    default: LIMITS.deviceHealthIntervalMs,
    env: 'SIDECAR_DEVICE_HEALTH_INTERVAL_MS',
    description:
      'time between probes of the device, in ms; while it does not answer, /readyz says not ready and its Capabilities are not offered to discovery',
  },
  workflows: {
    schema: { type: 'array', items: workflow },
    startOnly: true,
    description: 'workflows proxied to the device: name, capabilityClass, workflowClass, path, optional timeoutMs, method POST',
  },
  states: {
    schema: { type: 'array', items: state },
    startOnly: true,
    description: 'state properties proxied to the device: name, capabilityClass, statePropertyClass, path, optional timeoutMs',
  },
  operationConcurrency: {
    schema: { type: 'integer', minimum: 1, maximum: LIMITS.maxCallbackConcurrency },
    default: 1,
    env: 'SIDECAR_OPERATION_CONCURRENCY',
    flag: '--operation-concurrency <n>',
    commands: START,
    startOnly: true,
    description:
      'dispatched Operations the device may run at once (each still exactly once, started in the order claimed); 1 runs them one after another',
  },
  discoveryCacheMs: {
    schema: ms(0),
    default: LIMITS.discoveryCacheMs,
    env: 'SIDECAR_DISCOVERY_CACHE_MS',
    startOnly: true,
    description:
      'how long, in ms, a request reuses the receiver discovery found for its Capability class (one gone or withdrawn meanwhile is replaced at once); 0 reads the graph on every request',
  },
  localApi: {
    schema: { type: ['object', 'boolean'] },
    startOnly: true,
    defaultText: 'socket `local.sock` in `$RUNTIME_DIRECTORY`, else the state dir',
    description: 'API for the device: { socket }, or { port, tokenFile } on 127.0.0.1, or false',
  },
  'localApi.socket': {
    schema: text(),
    env: 'SIDECAR_LOCAL_API_SOCKET',
    flag: '--local-api-socket <path>',
    commands: START,
    exclusive: ['localApi', 'socket'],
    description: 'Unix socket the local API is served on (owner-only)',
  },
  'localApi.port': {
    schema: port,
    env: 'SIDECAR_LOCAL_API_PORT',
    exclusive: ['localApi', 'tcp'],
    description: 'loopback port the local API is served on (needs tokenFile)',
  },
  'localApi.tokenFile': {
    schema: text(),
    env: 'SIDECAR_LOCAL_API_TOKEN_FILE',
    exclusive: ['localApi', 'tcp'],
    description: `file whose first line is the local API's bearer token (at least ${LIMITS.minTokenLength} characters), or of named tokens, one "<name> <token>" a line`,
  },
  'localApi.token': {
    schema: text(),
    secret: 'tokens are not accepted here: name a file in localApi.tokenFile',
    description: 'resolved: the token read from localApi.tokenFile',
  },
  http: { schema: mapping, description: 'protection of the HTTP surface: bearer token and TLS' },
  'http.token': {
    schema: text(),
    env: 'SIDECAR_HTTP_TOKEN',
    exclusive: ['httpToken', 'value'],
    secret: 'tokens are not accepted here: name a file in http.tokenFile (or set SIDECAR_HTTP_TOKEN_FILE)',
    description: 'bearer token callers of the HTTP surface must send (prefer SIDECAR_HTTP_TOKEN_FILE)',
  },
  'http.tokenFile': {
    schema: text(),
    env: 'SIDECAR_HTTP_TOKEN_FILE',
    flag: '--http-token-file <file>',
    commands: BOTH,
    exclusive: ['httpToken', 'file'],
    description:
      'file whose first line is the bearer token every caller of the HTTP surface must send, on every route but /, /favicon.ico, /healthz, /readyz; or of named tokens, one "<name> <token> [<workflow>,...]" a line',
  },
  'http.tlsCertFile': {
    schema: text(),
    env: 'SIDECAR_HTTP_TLS_CERT_FILE',
    flag: '--http-tls-cert-file <file>',
    commands: BOTH,
    description: 'PEM certificate (chain) file: serve HTTPS (with http.tlsKeyFile)',
  },
  'http.tlsKeyFile': {
    schema: text(),
    env: 'SIDECAR_HTTP_TLS_KEY_FILE',
    flag: '--http-tls-key-file <file>',
    commands: BOTH,
    description: 'PEM private key file of the certificate',
  },
  'http.tls': {
    schema: mapping,
    secret: 'certificates and keys are not accepted here: name the PEM files in http.tlsCertFile and http.tlsKeyFile',
    description: 'resolved: the PEM certificate and key',
  },
  outgoingTokens: {
    schema: mapping,
    startOnly: true,
    description: 'bearer tokens sent with the event triggers this sidecar rings and its reads of peer middlewares (REST connectors)',
  },
  'outgoingTokens.default': {
    schema: text(),
    env: 'SIDECAR_OUTGOING_TOKEN',
    exclusive: ['outgoingToken', 'value'],
    secret: 'tokens are not accepted here: name a file in outgoingTokens.defaultFile (or set SIDECAR_OUTGOING_TOKEN_FILE)',
    description: 'token sent with outgoing event triggers and peer reads (prefer SIDECAR_OUTGOING_TOKEN_FILE)',
  },
  'outgoingTokens.defaultFile': {
    schema: text(),
    env: 'SIDECAR_OUTGOING_TOKEN_FILE',
    flag: '--outgoing-token-file <file>',
    commands: START,
    exclusive: ['outgoingToken', 'file'],
    description: 'file whose first line is the token sent with every event trigger and peer read (the plant-wide token)',
  },
  'outgoingTokens.byAddressFiles': {
    schema: { type: 'object', propertyNames: { maxLength: LIMITS.maxIriLength }, additionalProperties: text() },
    description: "receiver base address (normalized) to the file of that receiver's token; wins over defaultFile",
  },
  'outgoingTokens.byAddress': {
    schema: { type: 'object', additionalProperties: text() },
    secret: 'tokens are not accepted here: map each address to a token file in outgoingTokens.byAddressFiles',
    description: 'resolved: the token of each receiver address',
  },
  activityFeed: {
    schema: bool,
    default: false,
    env: 'SIDECAR_ACTIVITY_FEED',
    flag: '--activity-feed',
    commands: BOTH,
    description: 'true/false: keep an in-memory activity feed (GET /activity, /activity/stream)',
  },
  activityCapacity: {
    schema: { type: 'integer', minimum: 1 },
    default: 200,
    env: 'SIDECAR_ACTIVITY_CAPACITY',
    description: 'entries the activity feed keeps',
  },
  autoregisterConnectors: {
    schema: bool,
    default: true,
    env: 'SIDECAR_AUTOREGISTER_CONNECTORS',
    flag: '--no-autoregister-connectors',
    commands: START,
    startOnly: true,
    description: "true/false: connect the resource's MQTT parameters recognized from the graph (false: list them, connect nothing)",
  },
  connectorSyncDirection: {
    schema: { enum: SYNC_DIRECTIONS },
    default: SyncDirection.BIDIRECTIONAL,
    env: 'SIDECAR_CONNECTOR_SYNC_DIRECTION',
    flag: '--connector-sync-direction <direction>',
    commands: START,
    startOnly: true,
    description: 'bidirectional (read values, write setpoints), to_persistence (read only) or from_persistence (write only)',
  },
  connectorMaxAge: {
    schema: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: MAX_TIMER_MS / 1000 },
    default: null,
    env: 'SIDECAR_CONNECTOR_MAX_AGE',
    flag: '--connector-max-age <seconds>',
    commands: START,
    startOnly: true,
    description: 'seconds after which a live parameter value is answered as stale; null (env and flag: off) never',
  },
  opcuaPkiDir: {
    schema: text(),
    defaultText: '`<state dir>/opcua-pki`',
    env: 'SIDECAR_OPCUA_PKI_DIR',
    flag: '--opcua-pki-dir <dir>',
    commands: START,
    startOnly: true,
    description:
      "certificate store of the OPC UA connectors: own/ (this sidecar's self-signed certificate), trusted/certs/ (servers it trusts), rejected/; created on first start",
  },
  broker: {
    schema: mapping,
    startOnly: true,
    description:
      'user name, password and TLS of the MQTT brokers (user name and password of the OPC UA servers) the connectors reach; never logged or served',
  },
  'broker.username': {
    schema: text(256),
    env: 'SIDECAR_BROKER_USERNAME',
    description: 'user name sent to every broker without an entry in broker.byAddress',
  },
  'broker.password': {
    schema: text(),
    env: 'SIDECAR_BROKER_PASSWORD',
    exclusive: ['brokerPassword', 'value'],
    secret: 'passwords are not accepted here: name a file in broker.passwordFile (or set SIDECAR_BROKER_PASSWORD_FILE)',
    description: 'password sent with broker.username (prefer SIDECAR_BROKER_PASSWORD_FILE)',
  },
  'broker.passwordFile': {
    schema: text(),
    env: 'SIDECAR_BROKER_PASSWORD_FILE',
    flag: '--broker-password-file <file>',
    commands: START,
    exclusive: ['brokerPassword', 'file'],
    description: 'file whose first line is the password sent with broker.username',
  },
  'broker.tls': {
    schema: bool,
    env: 'SIDECAR_BROKER_TLS',
    description: 'true/false: connect to the brokers with TLS (mqtts), the certificate verified; implied by caFile and certFile',
  },
  'broker.caFile': {
    schema: text(),
    env: 'SIDECAR_BROKER_CA_FILE',
    description: 'PEM file of the CA(s) broker certificates must chain to (default: the system CAs)',
  },
  'broker.certFile': {
    schema: text(),
    env: 'SIDECAR_BROKER_CERT_FILE',
    description: 'PEM client certificate file, for brokers that ask for one (with broker.keyFile)',
  },
  'broker.keyFile': { schema: text(), env: 'SIDECAR_BROKER_KEY_FILE', description: 'PEM private key file of broker.certFile' },
  'broker.byAddress': {
    schema: {
      type: 'object',
      propertyNames: { maxLength: 300 },
      additionalProperties: { type: 'object', additionalProperties: false, required: [], properties: brokerFiles },
    },
    description: '"host:port" of a broker to its own { username, passwordFile, tls, caFile, certFile, keyFile }, used instead of the above',
  },
  'broker.credentials': {
    schema: mapping,
    secret: 'passwords and keys are not accepted here: name their files in broker.passwordFile and broker.keyFile (or broker.byAddress)',
    description: 'resolved: the passwords and PEM contents of the broker settings',
  },
  tracing: { schema: mapping, startOnly: true, description: 'export of trace spans to OpenTelemetry' },
  'tracing.otlpEndpoint': {
    schema: { type: 'string', maxLength: 2000, pattern: '^https?://' },
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    description:
      'base URL of an OTLP/HTTP receiver (e.g. http://127.0.0.1:4318): spans of northbound calls, event triggers, Operations and device calls are posted to <url>/v1/traces as JSON; unset: nothing is exported and OpenTelemetry is not loaded',
  },
  log: { schema: mapping, description: 'logging' },
  'log.level': {
    schema: { enum: LOG_LEVELS },
    default: 'info',
    env: 'LOG_LEVEL',
    flag: '--log-level <level>',
    commands: BOTH,
    description: 'trace, debug, info, warn, error, fatal or silent',
  },
  'log.accessLevel': {
    schema: { enum: LOG_LEVELS },
    default: 'debug',
    env: 'LOG_ACCESS_LEVEL',
    flag: '--access-log-level <level>',
    commands: BOTH,
    description:
      'level of the access log lines of the HTTP surface and the local API (one per request; Authorization redacted); silent: none',
  },
  'log.pretty': {
    schema: bool,
    defaultText: 'when stderr is a TTY',
    env: 'LOG_PRETTY',
    description: 'true/false: human-readable log lines (needs pino-pretty)',
  },
  shutdownGraceMs: {
    schema: ms(0),
    default: LIMITS.shutdownGraceMs,
    env: 'SIDECAR_SHUTDOWN_GRACE_MS',
    description: 'time stop() gives in-flight work, in ms',
  },
} as const satisfies Record<string, Setting>;

/** A config path of the table. */
export type SettingPath = keyof typeof SETTINGS;

type Schema = Readonly<Record<string, unknown>>;
type Props<P, Req> = { -readonly [K in keyof P as K extends Req ? K : never]: FromSchema<P[K]> } & {
  -readonly [K in keyof P as K extends Req ? never : K]?: FromSchema<P[K]>;
};

/** The TypeScript type of a value a JSON Schema of this table accepts (a small `FromSchema`). */
export type FromSchema<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: readonly ['number', 'null'] }
    ? number | null
    : S extends { type: 'string' }
      ? string
      : S extends { type: 'integer' | 'number' }
        ? number
        : S extends { type: 'boolean' }
          ? boolean
          : S extends { type: 'array'; items: infer I }
            ? FromSchema<I>[]
            : S extends { type: 'object'; properties: infer P; required: readonly (infer R)[] }
              ? Props<P, R>
              : S extends { type: 'object'; additionalProperties: infer A }
                ? Record<string, FromSchema<A>>
                : S extends Schema
                  ? unknown
                  : never;

/** The type of the value at `P`, derived from its schema. */
export type SettingValue<P extends SettingPath> = FromSchema<(typeof SETTINGS)[P]['schema']>;

/** Environment variables read that are not settings. */
export const OTHER_ENV_VARS = Object.freeze([
  { name: 'SIDECAR_CONFIG', description: 'config file (.yaml, .yml or .json) when --config is not given' },
  { name: 'STATE_DIRECTORY', description: 'state directory (set by systemd): default home of the embedded store' },
  { name: 'RUNTIME_DIRECTORY', description: 'runtime directory (set by systemd): default home of the local API socket' },
]);

/** The rows of the table, in order, as `[path, setting]`. */
export const SETTING_ROWS: readonly (readonly [SettingPath, Setting])[] = Object.freeze(
  Object.entries(SETTINGS) as [SettingPath, Setting][],
);

/** The default of `path` from the table; throws for a setting without a static default. */
export function defaultOf<P extends SettingPath>(path: P): SettingValue<P> {
  const setting: Setting = SETTINGS[path];
  if (!('default' in setting)) throw new Error(`setting ${path} has no static default`);
  return setting.default as SettingValue<P>;
}
