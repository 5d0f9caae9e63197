/**
 * The environment variables the sidecar reads, one list used by the loader, `--help` and the
 * README. The `SPARQL_*` names are the ones `parseStoreUrl` (src/store/open-store.ts) reads, with
 * the same meaning, so one environment serves `ontology load --store` and `start`.
 */
import { parseText, type Layer } from './config-layers.js';

/** One environment variable: the setting it sets (if any) and what it means. */
export interface ConfigEnvVar {
  /** Variable name. */
  readonly name: string;
  /** Config path it sets (`store.url`), or undefined for variables that are not settings. */
  readonly field?: string;
  /** What it means, for `--help` and the README. */
  readonly description: string;
}

const v = (name: string, field: string | undefined, description: string): ConfigEnvVar =>
  Object.freeze(field === undefined ? { name, description } : { name, field, description });

/**
 * Every environment variable the sidecar reads. Precedence: flags > environment > config file >
 * defaults. Empty values count as unset.
 */
export const CONFIG_ENV_VARS: readonly ConfigEnvVar[] = Object.freeze([
  v('SIDECAR_CONFIG', undefined, 'config file (.yaml, .yml or .json) when --config is not given'),
  v('SIDECAR_RESOURCE', 'resource', 'IRI or CURIE of the wrapped resource'),
  v('SIDECAR_SERVICE_CLASS', 'serviceClass', 'service class IRI or CURIE (default svc:Service)'),
  v('SIDECAR_STORE', 'store.url', '"memory", a SPARQL endpoint URL, or an embedded store directory'),
  v('SPARQL_UPDATE_URL', 'store.updateUrl', 'SPARQL update endpoint of a remote store (default: the store URL)'),
  v('SPARQL_USER', 'store.user', 'basic-auth user of a remote store'),
  v('SPARQL_PASSWORD', 'store.password', 'basic-auth password of a remote store (prefer SPARQL_PASSWORD_FILE)'),
  v('SPARQL_PASSWORD_FILE', 'store.passwordFile', 'file whose first line is the basic-auth password'),
  v('SPARQL_TIMEOUT_MS', 'store.timeoutMs', 'per-request timeout of a remote store, in ms'),
  v('SIDECAR_GRAPH', 'namedGraph', 'named graph of the instance data'),
  v('SIDECAR_PROVISION_ONTOLOGY', 'provisionOntology', 'true/false: load the ontology at start'),
  v('SIDECAR_ONTOLOGY_FILES', 'ontologyFiles', 'extra ontology files, separated by ":"'),
  v('SIDECAR_HOST', 'host', 'interface the HTTP surface listens on (default 127.0.0.1)'),
  v('SIDECAR_PORT', 'port', 'port the HTTP surface listens on (default 8000)'),
  v('SIDECAR_ADDRESS', 'address', 'base http(s) address others reach this sidecar at'),
  v('SIDECAR_HEARTBEAT_INTERVAL', 'heartbeatInterval', 'seconds between heartbeats (default 30); "off" disables'),
  v('SIDECAR_STALENESS_THRESHOLD', 'stalenessThreshold', 'seconds after which a heartbeat is stale (default 90)'),
  v('SIDECAR_SWEEP_INTERVAL', 'sweepInterval', 'seconds between watchdog sweeps (default 30)'),
  v('SIDECAR_DEVICE_URL', 'device.url', 'base URL of the device HTTP API'),
  v('SIDECAR_DEVICE_SOCKET', 'device.socket', 'Unix socket of the device HTTP API'),
  v('SIDECAR_DEVICE_TIMEOUT_MS', 'device.timeoutMs', 'default time a device call gets, in ms'),
  v('SIDECAR_LOCAL_API_SOCKET', 'localApi.socket', 'Unix socket the local API is served on'),
  v('SIDECAR_LOCAL_API_PORT', 'localApi.port', 'loopback port the local API is served on (with a token)'),
  v('SIDECAR_LOCAL_API_TOKEN_FILE', 'localApi.tokenFile', 'file whose first line is the local API token'),
  v('SIDECAR_HTTP_TOKEN', 'http.token', 'bearer token callers of the HTTP surface must send (prefer SIDECAR_HTTP_TOKEN_FILE)'),
  v('SIDECAR_HTTP_TOKEN_FILE', 'http.tokenFile', 'file whose first line is the HTTP surface token'),
  v('SIDECAR_HTTP_TLS_CERT_FILE', 'http.tlsCertFile', 'PEM certificate file: serve HTTPS'),
  v('SIDECAR_HTTP_TLS_KEY_FILE', 'http.tlsKeyFile', 'PEM private key file of the certificate'),
  v('SIDECAR_OUTGOING_TOKEN', 'outgoingTokens.default', 'token sent with outgoing event triggers (prefer SIDECAR_OUTGOING_TOKEN_FILE)'),
  v('SIDECAR_OUTGOING_TOKEN_FILE', 'outgoingTokens.defaultFile', 'file whose first line is the token sent with outgoing event triggers'),
  v('SIDECAR_ACTIVITY_FEED', 'activityFeed', 'true/false: keep an in-memory activity feed'),
  v('SIDECAR_ACTIVITY_CAPACITY', 'activityCapacity', 'entries the activity feed keeps (default 200)'),
  v('SIDECAR_SHUTDOWN_GRACE_MS', 'shutdownGraceMs', 'time stop() gives in-flight work, in ms'),
  v('LOG_LEVEL', 'log.level', 'trace, debug, info, warn, error, fatal or silent (default info)'),
  v('LOG_PRETTY', 'log.pretty', 'true/false: human-readable log lines (needs pino-pretty)'),
  v('STATE_DIRECTORY', undefined, 'state directory (set by systemd): default home of the embedded store'),
  v('RUNTIME_DIRECTORY', undefined, 'runtime directory (set by systemd): default home of the local API socket'),
]);

/** The settings the environment gives, each with its variable as source. */
export function envLayer(env: NodeJS.ProcessEnv): Layer {
  const layer: Layer = [];
  for (const { name, field } of CONFIG_ENV_VARS) {
    const text = env[name];
    if (field === undefined || text === undefined || text === '') continue;
    const path = field.split('.');
    layer.push({ path, value: parseText(path, text), source: { kind: 'env', name } });
  }
  return layer;
}

/** The first directory of a systemd directory variable (it may list several, separated by ":"). */
export function systemdDirectory(env: NodeJS.ProcessEnv, name: 'STATE_DIRECTORY' | 'RUNTIME_DIRECTORY'): string | undefined {
  const first = env[name]?.split(':')[0];
  return first ? first : undefined;
}

/**
 * {@link CONFIG_ENV_VARS} as aligned `NAME  description` lines, for `--help`.
 * @example program.addHelpText('after', `\nEnvironment:\n${formatEnvVars()}\n`)
 */
export function formatEnvVars(indent = '  '): string {
  const width = Math.max(...CONFIG_ENV_VARS.map((v) => v.name.length));
  return CONFIG_ENV_VARS.map((v) => `${indent}${v.name.padEnd(width)}  ${v.description}`).join('\n');
}
