/**
 * The JSON Schema of the sidecar's settings as they are written in a config file (camelCase
 * keys), compiled once with ajv: all errors at once, no type coercion, no defaults injected
 * (defaults are resolved in `config-resolve.ts`, where derived ones such as the data directory
 * need the resource), and unknown keys refused at every level.
 *
 * The schema checks shapes and ranges only; what needs more than a shape (IRIs and CURIEs,
 * names, URLs, paths, cross-field rules) is checked in `config-check.ts`.
 */
import { Ajv, type ErrorObject, type SchemaObject } from 'ajv';
import { LIMITS } from '../limits.js';
import {
  LOG_LEVELS,
  type LogConfig,
  type SidecarConfig,
  type StateConfig,
  type StoreConfig,
  type WorkflowConfig,
  type DeviceConfig,
  type HttpConfig,
  type LocalApiConfig,
  type OutgoingTokensConfig,
} from './config-types.js';

export type {
  SidecarConfig,
  StoreConfig,
  DeviceConfig,
  WorkflowConfig,
  StateConfig,
  LocalApiConfig,
  HttpConfig,
  OutgoingTokensConfig,
  LogConfig,
  LogLevel,
} from './config-types.js';
export { LOG_LEVELS } from './config-types.js';

// Keys of every member of a union, so both `{ url }` and `{ socket }` forms are covered.
type KeysOf<T> = T extends unknown ? keyof T : never;
// One schema per key of T, minus the resolved secrets a file may not hold: a key missing here
// or spelled differently from the interface is a compile error.
type Properties<T, Secret extends string = never> = { [K in Exclude<KeysOf<T>, Secret>]-?: SchemaObject };

/** Node's timers cannot wait longer than this (2^31-1 ms); larger values fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const text = (description: string, maxLength: number = LIMITS.maxIriLength): SchemaObject => ({ type: 'string', maxLength, description });
const ms = (description: string, minimum = 1): SchemaObject => ({ type: 'integer', minimum, maximum: MAX_TIMER_MS, description });
const seconds = (description: string): SchemaObject => ({
  type: 'number',
  exclusiveMinimum: 0,
  maximum: MAX_TIMER_MS / 1000,
  description,
});
const port = (description: string): SchemaObject => ({ type: 'integer', minimum: 0, maximum: 65535, description });
const object = (properties: Record<string, SchemaObject>, description: string, required: string[] = []): SchemaObject => ({
  type: 'object',
  properties,
  additionalProperties: false,
  ...(required.length > 0 && { required }),
  description,
});

const storeProperties: Properties<StoreConfig, 'password'> = {
  url: text('"memory", an http(s) SPARQL query endpoint, or an embedded store data directory'),
  updateUrl: text('SPARQL update endpoint of a remote store (default: url)'),
  user: text('basic-auth user of a remote store', 256),
  passwordFile: text('file whose first line is the basic-auth password of a remote store'),
  timeoutMs: ms('per-request timeout of a remote store in ms'),
};

const deviceProperties: Properties<DeviceConfig> = {
  url: text('base URL of the device HTTP API, e.g. http://127.0.0.1:9000'),
  socket: text('Unix socket path of the device HTTP API'),
  timeoutMs: ms('default time a device call gets, in ms'),
};

const workflowProperties: Properties<WorkflowConfig> = {
  name: text('workflow name: A-Z a-z 0-9 . _ ~ -', LIMITS.maxNameLength),
  capabilityClass: text('capability class: an IRI or a svc:/cfc:/mes:/plant: CURIE'),
  workflowClass: text('workflow class: an IRI or a svc:/cfc:/mes:/plant: CURIE'),
  path: text('path of the workflow on the device, starting with /'),
  method: { enum: ['POST'], description: 'HTTP method of the device call (POST)' },
  timeoutMs: ms('time the device gets for this workflow, in ms (default device.timeoutMs)'),
};

const stateProperties: Properties<StateConfig> = {
  name: text('state property name: A-Z a-z 0-9 . _ ~ -', LIMITS.maxNameLength),
  capabilityClass: text('capability class: an IRI or a svc:/cfc:/mes:/plant: CURIE'),
  statePropertyClass: text('state-property class: an IRI or a svc:/cfc:/mes:/plant: CURIE'),
  path: text('path of the state on the device, starting with /'),
  timeoutMs: ms('time the device gets for this read, in ms (default device.timeoutMs)'),
};

const localApiProperties: Properties<LocalApiConfig, 'token'> = {
  socket: text('Unix socket path the local API is served on'),
  port: port('loopback port the local API is served on (needs tokenFile)'),
  tokenFile: text('file whose first line is the bearer token of the loopback local API'),
};

const httpProperties: Properties<HttpConfig, 'token' | 'tls'> = {
  tokenFile: text('file whose first line is the bearer token callers of the HTTP surface must send'),
  tlsCertFile: text('PEM certificate file: serve HTTPS (needs tlsKeyFile)'),
  tlsKeyFile: text('PEM private key file of tlsCertFile'),
};

const outgoingTokensProperties: Properties<OutgoingTokensConfig, 'default' | 'byAddress'> = {
  defaultFile: text('file whose first line is the token sent with every event trigger this sidecar rings'),
  byAddressFiles: {
    type: 'object',
    propertyNames: { maxLength: LIMITS.maxIriLength },
    additionalProperties: text('file whose first line is the token for the receiver at this address'),
    description: 'token files keyed by receiver base address; an entry wins over defaultFile',
  },
};

const logProperties: Properties<LogConfig> = {
  level: { enum: [...LOG_LEVELS], description: 'minimum log level' },
  pretty: { type: 'boolean', description: 'human-readable log lines (needs pino-pretty)' },
};

const configProperties: Properties<SidecarConfig> = {
  resource: text('IRI (or CURIE) of the wrapped resource; required by start'),
  serviceClass: text('service class: an IRI or a CURIE (default svc:Service)'),
  store: object(storeProperties, 'the store: embedded data directory (default), memory, or a remote SPARQL endpoint'),
  namedGraph: text('named graph of the instance data'),
  provisionOntology: { type: 'boolean', description: 'load the ontology at start (default: true unless the store is remote)' },
  ontologyFiles: { type: 'array', items: text('path of an ontology file (.ttl, .nt, .nq, .trig)'), description: 'extra ontology files' },
  host: text('interface the HTTP surface listens on (default 127.0.0.1)', 253),
  port: port('port the HTTP surface listens on (default 8000)'),
  address: text('base http(s) address others reach this sidecar at (default http://<host>:<port>)'),
  heartbeatInterval: {
    type: ['number', 'null'],
    exclusiveMinimum: 0,
    maximum: MAX_TIMER_MS / 1000,
    description: 'seconds between heartbeats (default 30); null disables the heartbeat',
  },
  stalenessThreshold: seconds('seconds after which a heartbeat is stale (default 90)'),
  sweepInterval: seconds('seconds between watchdog sweeps (default 30)'),
  device: object(deviceProperties, 'the co-located device: url or socket'),
  workflows: {
    type: 'array',
    items: object(workflowProperties, 'a workflow', ['name', 'capabilityClass', 'workflowClass', 'path']),
    description: 'workflows proxied to the device',
  },
  states: {
    type: 'array',
    items: object(stateProperties, 'a state property', ['name', 'capabilityClass', 'statePropertyClass', 'path']),
    description: 'state properties proxied to the device',
  },
  // false turns the local API off; `true` is refused by config-check.ts with a clearer message
  // than a schema branch error.
  localApi: { ...object(localApiProperties, 'the local API: { socket } or { port, tokenFile }, or false'), type: ['object', 'boolean'] },
  http: object(httpProperties, 'protection of the HTTP surface: bearer token and TLS'),
  outgoingTokens: object(outgoingTokensProperties, 'bearer tokens sent with outgoing event triggers'),
  activityFeed: { type: 'boolean', description: 'keep an in-memory activity feed (default false)' },
  activityCapacity: { type: 'integer', minimum: 1, description: 'entries the activity feed keeps (default 200)' },
  log: object(logProperties, 'logging'),
  shutdownGraceMs: ms('time stop() gives in-flight work, in ms', 0),
};

/** The JSON Schema of a config file (and of the merged file, environment and flag settings). */
export const SIDECAR_CONFIG_SCHEMA: SchemaObject = Object.freeze({
  $id: 'https://w3id.org/semantic-middleware/schema/sidecar-config.json',
  title: 'semantic-sidecar configuration',
  ...object(configProperties, 'settings of one semantic-sidecar process'),
});

/** Keys allowed at the top level and inside each object-valued setting (for suggestions and flags). */
export const CONFIG_KEYS = Object.freeze({
  top: Object.keys(configProperties),
  store: Object.keys(storeProperties),
  device: Object.keys(deviceProperties),
  localApi: Object.keys(localApiProperties),
  http: Object.keys(httpProperties),
  outgoingTokens: Object.keys(outgoingTokensProperties),
  log: Object.keys(logProperties),
  workflows: Object.keys(workflowProperties),
  states: Object.keys(stateProperties),
} as const);

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false, useDefaults: false });
const validate = ajv.compile(SIDECAR_CONFIG_SCHEMA);

/**
 * Checks `settings` against {@link SIDECAR_CONFIG_SCHEMA}; returns ajv's errors (empty when
 * the shape is valid). Turned into messages naming field and source by `config-issues.ts`.
 */
export function schemaErrors(settings: unknown): ErrorObject[] {
  return validate(settings) ? [] : [...(validate.errors ?? [])];
}
