import { RuntimeError, ValueError } from '../errors.js';
import { normalizeHttpAddress } from '../iri/address.js';
import { assertIri, preview } from '../iri/validate.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { defaultOf, LOG_LEVELS, MAX_TIMER_MS, type SettingValue } from '../settings.js';
import { OGM } from '../ogm/ogm.js';
import { checkHttpToken, checkOutgoingTokens, checkTls } from './surface/security-options.js';
import { checkConnectorCredentials } from '../connectors/credentials.js';
import { ConnectorRegistry } from '../connectors/registry.js';
import { SYNC_DIRECTIONS, SyncDirection } from '../connectors/wiring.js';
import { Mode, MODES } from './runtime/mode.js';
import type {
  ClassScope,
  DeviceHealthProbe,
  EnsureTransport,
  FetchFunction,
  ResolvedOptions,
  SemanticMiddlewareOptions,
} from './options.js';

/**
 * Validation of the constructor options: every value is checked once, here, with an error that
 * names the option, the value received and what was expected; the rest of the middleware then
 * trusts the resolved options.
 */

// The spec's defaults, from the settings table the sidecar's configuration reads too.
const DEFAULTS = Object.freeze({
  host: defaultOf('host'),
  port: defaultOf('port'),
  heartbeatInterval: defaultOf('heartbeatInterval'),
  stalenessThreshold: defaultOf('stalenessThreshold'),
  sweepInterval: defaultOf('sweepInterval'),
  activityFeed: defaultOf('activityFeed'),
  activityCapacity: defaultOf('activityCapacity'),
  shutdownGraceMs: defaultOf('shutdownGraceMs'),
  discoveryCacheMs: defaultOf('discoveryCacheMs'),
  deviceHealthIntervalMs: defaultOf('device.healthIntervalMs'),
  accessLogLevel: defaultOf('log.accessLevel'),
});

function checkLevel(value: unknown): SettingValue<'log.accessLevel'> {
  const v = value ?? DEFAULTS.accessLogLevel;
  if (!(LOG_LEVELS as readonly unknown[]).includes(v))
    throw new ValueError(`accessLogLevel must be one of ${LOG_LEVELS.join(', ')}, got ${preview(v)}`);
  return v as SettingValue<'log.accessLevel'>;
}

function checkMode(mode: unknown): typeof Mode.RESOURCE | typeof Mode.WATCHDOG {
  const value = mode ?? Mode.RESOURCE;
  if (!(MODES as readonly unknown[]).includes(value)) {
    throw new ValueError(`mode ${preview(value)} is not a mode: expected one of ${MODES.map((m) => `'${m}'`).join(', ')}`);
  }
  if (value === Mode.SERVER)
    throw new RuntimeError(`mode 'server' is reserved by the spec and not implemented: use 'resource' or 'watchdog'`);
  return value as typeof Mode.RESOURCE | typeof Mode.WATCHDOG;
}

function checkRequired(options: SemanticMiddlewareOptions, mode: string): void {
  const required = mode === Mode.RESOURCE ? (['resourceIri', 'serviceClass', 'ogm'] as const) : (['ogm'] as const);
  const missing = required.filter((k) => options[k] == null);
  if (missing.length > 0) {
    throw new ValueError(`${mode} mode needs the option${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (missing)`);
  }
  if (!(options.ogm instanceof OGM)) throw new ValueError(`ogm must be an OGM instance, got ${preview(options.ogm)}`);
}

function seconds(value: unknown, what: string, fallback: number): number {
  const v = value === undefined ? fallback : value;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw new ValueError(`${what} must be a number of seconds > 0, got ${preview(v)}`);
  return v;
}

function bool(value: unknown, what: string, fallback: boolean): boolean {
  const v = value === undefined ? fallback : value;
  if (typeof v !== 'boolean') throw new ValueError(`${what} must be true or false, got ${preview(v)}`);
  return v;
}

function optionalFunction<T>(value: unknown, what: string): T | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'function') throw new ValueError(`${what} must be a function, got ${typeof value}`);
  return value as T;
}

function checkPort(value: unknown): number {
  const port = value ?? DEFAULTS.port;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ValueError(`port must be an integer from 0 to 65535 (0: any free port), got ${preview(port)}`);
  }
  return port;
}

function checkHost(value: unknown): string {
  const host = value ?? DEFAULTS.host;
  if (typeof host !== 'string' || host.trim() === '' || /[\s/]/u.test(host))
    throw new ValueError(`host must be a host name or IP address, got ${preview(host)}`);
  return host;
}

function checkScope(value: unknown): ClassScope | undefined {
  if (value == null) return undefined;
  const follow = (value as ClassScope).follow;
  if (typeof value !== 'object' || (follow !== undefined && !Array.isArray(follow))) {
    throw new ValueError(`classScope must be an object { follow: [[propertyIri, ...], ...] }, got ${preview(value)}`);
  }
  for (const chain of follow ?? []) {
    if (!Array.isArray(chain) || chain.length === 0)
      throw new ValueError(`classScope.follow holds ${preview(chain)}, expected a non-empty array of property IRIs`);
    chain.forEach((p: unknown) => assertIri(p, 'classScope.follow property'));
  }
  return value;
}

function checkCapacity(value: unknown): number {
  const v = value ?? DEFAULTS.activityCapacity;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
    throw new ValueError(`activityCapacity must be an integer >= 1, got ${preview(v)}`);
  return v;
}

function checkDirection(value: unknown): SyncDirection {
  const v = value ?? SyncDirection.BIDIRECTIONAL;
  if (!(SYNC_DIRECTIONS as readonly unknown[]).includes(v)) {
    throw new ValueError(`connectorSyncDirection ${preview(v)} is not one of ${SYNC_DIRECTIONS.map((d) => `'${d}'`).join(', ')}`);
  }
  return v as SyncDirection;
}

function checkRegistry(value: unknown): ConnectorRegistry | undefined {
  if (value == null) return undefined;
  if (!(value instanceof ConnectorRegistry))
    throw new ValueError(
      `connectorRegistry must be a ConnectorRegistry or null, got ${typeof value === 'object' ? 'another object' : typeof value}`,
    );
  return value;
}

function checkLogger(value: unknown): Logger {
  if (value === undefined) return createLogger();
  const l = value as Partial<Logger>;
  if (typeof l !== 'object' || l === null || typeof l.child !== 'function' || typeof l.warn !== 'function') {
    throw new ValueError(`logger must be a pino logger, got ${preview(value)}`);
  }
  return value as Logger;
}

function milliseconds(value: unknown, name: 'shutdownGraceMs' | 'discoveryCacheMs'): number {
  const v = value ?? DEFAULTS[name];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new ValueError(`${name} must be a number of milliseconds >= 0, got ${preview(v)}`);
  return v;
}

function checkProbeInterval(value: unknown): number {
  const v = value ?? DEFAULTS.deviceHealthIntervalMs;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > MAX_TIMER_MS)
    throw new ValueError(`deviceHealthIntervalMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${preview(v)}`);
  return v;
}

/**
 * Validates the constructor options and applies the defaults of the spec's table.
 * @throws ValueError naming an unknown mode (and the three valid ones), every missing required
 *   option of the mode, or the first invalid value.
 * @throws RuntimeError for `Mode.SERVER`, which the spec reserves and does not implement.
 */
export function resolveOptions(options: SemanticMiddlewareOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new ValueError(`options must be an object, got ${preview(options)}`);
  const mode = checkMode(options.mode);
  checkRequired(options, mode);
  const resource = mode === Mode.RESOURCE;
  return Object.freeze({
    mode,
    resourceIri: resource ? assertIri(options.resourceIri, 'resourceIri') : undefined,
    serviceClass: resource ? assertIri(options.serviceClass, 'serviceClass') : undefined,
    ogm: options.ogm as OGM,
    host: checkHost(options.host),
    port: checkPort(options.port),
    address: options.address == null ? undefined : normalizeHttpAddress(options.address),
    namedGraph: options.namedGraph == null ? undefined : assertIri(options.namedGraph, 'namedGraph'),
    heartbeatInterval:
      options.heartbeatInterval === null ? null : seconds(options.heartbeatInterval, 'heartbeatInterval', DEFAULTS.heartbeatInterval!),
    stalenessThreshold: seconds(options.stalenessThreshold, 'stalenessThreshold', DEFAULTS.stalenessThreshold),
    sweepInterval: seconds(options.sweepInterval, 'sweepInterval', DEFAULTS.sweepInterval),
    classScope: checkScope(options.classScope),
    autoregisterConnectors: bool(options.autoregisterConnectors, 'autoregisterConnectors', true),
    connectorSyncDirection: checkDirection(options.connectorSyncDirection),
    connectorRegistry: checkRegistry(options.connectorRegistry),
    connectorMaxAge: options.connectorMaxAge == null ? null : seconds(options.connectorMaxAge, 'connectorMaxAge', 1),
    connectorCredentials: checkConnectorCredentials(options.connectorCredentials),
    ensureTransport: optionalFunction<EnsureTransport>(options.ensureTransport, 'ensureTransport'),
    activityFeed: bool(options.activityFeed, 'activityFeed', DEFAULTS.activityFeed),
    activityCapacity: checkCapacity(options.activityCapacity),
    logger: checkLogger(options.logger),
    accessLogLevel: checkLevel(options.accessLogLevel),
    fetch: optionalFunction<FetchFunction>(options.fetch, 'fetch'),
    shutdownGraceMs: milliseconds(options.shutdownGraceMs, 'shutdownGraceMs'),
    discoveryCacheMs: milliseconds(options.discoveryCacheMs, 'discoveryCacheMs'),
    httpToken: checkHttpToken(options.httpToken),
    outgoingTokens: checkOutgoingTokens(options.outgoingTokens),
    tls: checkTls(options.tls),
    deviceHealth: optionalFunction<DeviceHealthProbe>(options.deviceHealth, 'deviceHealth'),
    deviceHealthIntervalMs: checkProbeInterval(options.deviceHealthIntervalMs),
  });
}
