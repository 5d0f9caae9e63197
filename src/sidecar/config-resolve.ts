/**
 * Turns merged, schema-checked settings into a {@link SidecarConfig}: CURIEs expanded, paths
 * made absolute, derived defaults filled in, cross-field rules checked. Every problem is
 * recorded in the context; the caller throws them all at once.
 */
import { join } from 'node:path';
import { normalizeAddress } from '../iri/address.js';
import { defaultOf, SETTING_ROWS } from '../settings.js';
import { pathKey } from './config-layers.js';
import { resolveBroker } from './config-resolve-broker.js';
import { resolveDevice, resolveLocalApi, resolveStates, resolveWorkflows } from './config-resolve-device.js';
import { resolveHttp, resolveOutgoingTokens } from './config-resolve-http.js';
import { resolveOntology, resolveStore, stateDirectory } from './config-resolve-store.js';
import type { LogConfig, SidecarConfig, TracingConfig } from './config-types.js';
import {
  absolutePath,
  addressOf,
  expandIri,
  hostProblem,
  httpUrlProblem,
  isWildcardHost,
  report,
  at,
  type ResolveContext,
} from './config-values.js';

type NumberSetting =
  'port' | 'stalenessThreshold' | 'sweepInterval' | 'shutdownGraceMs' | 'activityCapacity' | 'operationConcurrency' | 'discoveryCacheMs';
const num = (ctx: ResolveContext, key: NumberSetting): number => {
  const value = at(ctx, [key]);
  return typeof value === 'number' ? value : defaultOf(key);
};

function iriAt(ctx: ResolveContext, key: string): string | undefined {
  const value = at(ctx, [key]);
  if (typeof value !== 'string') return undefined;
  const expanded = expandIri(value);
  if ('problem' in expanded) report(ctx, [key], expanded.problem, value);
  return 'iri' in expanded ? expanded.iri : undefined;
}

function resolveResource(ctx: ResolveContext): string | undefined {
  if (ctx.purpose === 'start' && at(ctx, ['resource']) === undefined) {
    report(ctx, ['resource'], 'is required by start: set resource in the config file, SIDECAR_RESOURCE or --resource');
  }
  return iriAt(ctx, 'resource');
}

/** Host, port and address; with TLS (`secure`) the derived address is `https://`. */
function resolveNetwork(ctx: ResolveContext, secure: boolean): { host: string; port: number; address?: string } {
  const hostValue = at(ctx, ['host']);
  const host = typeof hostValue === 'string' ? hostValue : defaultOf('host');
  const hostBad = typeof hostValue === 'string' ? hostProblem(host) : undefined;
  if (hostBad) report(ctx, ['host'], hostBad, host);
  const port = num(ctx, 'port');
  const given = at(ctx, ['address']);
  if (typeof given === 'string') {
    const problem = httpUrlProblem(given, 'http://door1.plant.local:8000');
    if (problem) report(ctx, ['address'], problem, given);
    else if (secure && /^http:/iu.test(given))
      report(
        ctx,
        ['address'],
        'starts with http:// but the surface serves HTTPS (http.tlsCertFile): callers would fail; use https://',
        given,
      );
    return problem ? { host, port } : { host, port, address: normalizeAddress(given) };
  }
  if (isWildcardHost(host) && ctx.purpose === 'start') {
    report(ctx, ['host'], 'listens on every interface, which is no address others can call: set address too', host);
  }
  // With port 0 the address is known only once the server listens; the watchdog registers none.
  const derivable = port !== 0 && !hostBad && !isWildcardHost(host) && ctx.purpose === 'start';
  return derivable ? { host, port, address: normalizeAddress(addressOf(host, port, secure)) } : { host, port };
}

function resolveTiming(
  ctx: ResolveContext,
): Pick<SidecarConfig, 'heartbeatInterval' | 'stalenessThreshold' | 'sweepInterval' | 'shutdownGraceMs'> {
  const beat = at(ctx, ['heartbeatInterval']);
  const heartbeatInterval = typeof beat === 'number' || beat === null ? beat : defaultOf('heartbeatInterval');
  const stalenessThreshold = num(ctx, 'stalenessThreshold');
  if (ctx.purpose === 'start' && heartbeatInterval !== null && stalenessThreshold <= heartbeatInterval) {
    const set = ctx.merged.has(pathKey(['stalenessThreshold']));
    if (set)
      report(
        ctx,
        ['stalenessThreshold'],
        `must be greater than heartbeatInterval (${heartbeatInterval}), or the Service looks dead between heartbeats`,
        stalenessThreshold,
      );
    else
      report(
        ctx,
        ['heartbeatInterval'],
        `must be less than stalenessThreshold (${stalenessThreshold}), or the Service looks dead between heartbeats`,
        heartbeatInterval,
      );
  }
  return {
    heartbeatInterval,
    stalenessThreshold,
    sweepInterval: num(ctx, 'sweepInterval'),
    shutdownGraceMs: num(ctx, 'shutdownGraceMs'),
  };
}

function resolveTracing(ctx: ResolveContext): TracingConfig {
  const otlpEndpoint = at(ctx, ['tracing', 'otlpEndpoint']);
  return typeof otlpEndpoint === 'string' && otlpEndpoint !== '' ? { otlpEndpoint } : {};
}

function resolveLog(ctx: ResolveContext): LogConfig {
  const level = at(ctx, ['log', 'level']);
  const pretty = at(ctx, ['log', 'pretty']);
  const accessLevel = at(ctx, ['log', 'accessLevel']);
  return {
    level: (typeof level === 'string' ? level : defaultOf('log.level')) as LogConfig['level'],
    accessLevel: (typeof accessLevel === 'string' ? accessLevel : defaultOf('log.accessLevel')) as LogConfig['accessLevel'],
    ...(typeof pretty === 'boolean' && { pretty }),
  };
}

// Settings only a resource sidecar uses (`startOnly` in the table): the watchdog refuses them when
// a file or flag sets them (an environment shared with the sidecars may hold them, so they are
// ignored there). `http` is not among them: the watchdog's own surface takes the same token and TLS.
const RESOURCE_ONLY: readonly string[] = SETTING_ROWS.filter(([path, s]) => s.startOnly && !path.includes('.')).map(([path]) => path);

function checkPurpose(ctx: ResolveContext, hasDevice: boolean, declared: number): void {
  if (ctx.purpose === 'watchdog') {
    for (const entry of ctx.merged.values()) {
      const kind = entry.source.kind;
      if (RESOURCE_ONLY.includes(entry.path[0]!) && (kind === 'file' || kind === 'flag')) {
        report(ctx, entry.path, 'is not used by the watchdog (it registers no resource): remove it or use a separate config file');
      }
    }
  } else if (!hasDevice && declared > 0) {
    const source = ctx.merged.get(pathKey(['workflows']))?.source ?? ctx.merged.get(pathKey(['states']))?.source;
    report(ctx, ['device'], 'is required when workflows or states are declared: set device.target', undefined, source);
  }
}

/** The resolved configuration, or undefined when problems were recorded in `ctx.issues`. */
export async function resolveConfig(ctx: ResolveContext): Promise<SidecarConfig | undefined> {
  const resource = resolveResource(ctx);
  const serviceClass = at(ctx, ['serviceClass']) === undefined ? defaultOf('serviceClass') : iriAt(ctx, 'serviceClass');
  const namedGraph = at(ctx, ['namedGraph']) === undefined ? defaultOf('namedGraph') : iriAt(ctx, 'namedGraph');
  const stateDir = stateDirectory(ctx, resource);
  const store = resolveStore(ctx, stateDir);
  const ontology = await resolveOntology(ctx, store);
  const watchdog = ctx.purpose === 'watchdog';
  const http = await resolveHttp(ctx);
  const network = resolveNetwork(ctx, http?.tlsCertFile !== undefined);
  const timing = resolveTiming(ctx);
  const device = watchdog ? undefined : resolveDevice(ctx);
  const workflows = watchdog ? [] : resolveWorkflows(ctx);
  const states = watchdog ? [] : resolveStates(ctx);
  const localApi = resolveLocalApi(ctx, stateDir);
  const outgoingTokens = watchdog ? undefined : resolveOutgoingTokens(ctx);
  const broker = watchdog ? undefined : await resolveBroker(ctx);
  checkPurpose(ctx, device !== undefined, workflows.length + states.length);
  if (ctx.issues.length > 0 || !store || !serviceClass || !namedGraph) return undefined;
  return {
    ...(resource !== undefined && !watchdog && { resource }),
    serviceClass,
    store,
    namedGraph,
    ...ontology,
    ...network,
    ...timing,
    ...(device && { device }),
    workflows,
    states,
    operationConcurrency: num(ctx, 'operationConcurrency'),
    discoveryCacheMs: num(ctx, 'discoveryCacheMs'),
    localApi,
    ...(http && { http }),
    ...(outgoingTokens && { outgoingTokens }),
    ...(broker && { broker }),
    activityFeed: at(ctx, ['activityFeed']) === true,
    activityCapacity: num(ctx, 'activityCapacity'),
    consolePort: (at(ctx, ['consolePort']) ?? null) as number | null,
    autoregisterConnectors: at(ctx, ['autoregisterConnectors']) !== false,
    connectorSyncDirection: (at(ctx, ['connectorSyncDirection']) ??
      defaultOf('connectorSyncDirection')) as SidecarConfig['connectorSyncDirection'],
    connectorMaxAge: (at(ctx, ['connectorMaxAge']) ?? null) as number | null,
    opcuaPkiDir: absolutePath(ctx, ['opcuaPkiDir'], (at(ctx, ['opcuaPkiDir']) as string | undefined) ?? join(stateDir, 'opcua-pki')),
    log: resolveLog(ctx),
    tracing: resolveTracing(ctx),
  };
}
