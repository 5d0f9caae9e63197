/**
 * The sidecar daemon: wires one resource's configuration into a running resource-mode
 * middleware. Store, then ontology, then the device client, then the middleware (workflows
 * and states proxied to the device, dispatched Operations run through it), then the local API.
 * Stops in reverse order.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../lib/logger.js';
import { LIMITS } from '../limits.js';
import {
  deviceHealthProbe,
  openDevice,
  operationRunner,
  stateProxy,
  workflowProxy,
  type ClaimedForDevice,
  type DeviceClient,
} from '../device/index.js';
import { openMqttWorkflows, type BoundMqttWorkflow, type MqttWorkflows } from '../connectors/mqtt/workflows.js';
import { openOpcuaWorkflows } from '../connectors/opcua/workflows.js';
import { defaultConnectorRegistry } from '../connectors/registry.js';
import { wiringOf } from '../connectors/wiring.js';
import { ValueError } from '../errors.js';
import { OGM } from '../ogm/index.js';
import { SemanticMiddleware } from '../middleware/semantic-middleware.js';
import type { DeviceHealthProbe, SemanticMiddlewareOptions } from '../middleware/options.js';
import { ONTOLOGY_GRAPHS } from '../vocab/graphs.js';
import type { TripleStore } from '../store/triple-store.js';
import { clearStaleSocket, startLocalApi, type LocalApi, type LocalApiListen } from './local-api.js';
import { securityOptionsOf } from './config.js';
import type { SidecarConfig } from './config-types.js';
import { openConfiguredStore } from './store-startup.js';
import { startOtlpExport } from '../tracing/span-export.js';
import { traceAware } from '../tracing/trace-scope.js';

/** A running sidecar. */
export interface Sidecar {
  readonly middleware: SemanticMiddleware;
  readonly store: TripleStore;
  readonly localApi?: LocalApi;
  /** Stops triggers, drains or fails in-flight work, deregisters, closes everything; idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startSidecar}. */
export interface StartSidecarOptions {
  /** The root logger; the daemon's own lines add `resource`, the middleware's add theirs. */
  logger: Logger;
  /** Aborts the start-up (its store retries included), e.g. on SIGTERM. */
  signal?: AbortSignal;
}

function deviceClient(config: SidecarConfig, logger: Logger): DeviceClient | undefined {
  const device = config.device;
  if (device === undefined) return undefined;
  return openDevice(device.target, { logger });
}

/**
 * The device's health as the middleware probes it, at start and every `device.healthIntervalMs`:
 * any answer to the binding's probe, or a successful one of `device.healthPath`, and a connected
 * broker for every workflow bound to MQTT (those workflows are the device too). The sidecar keeps
 * running while the device is away (a bridge may start after it): it warns at once, is not ready
 * and is not offered to discovery until the device answers.
 */
function deviceHealthOptions(
  config: SidecarConfig,
  device: DeviceClient | undefined,
  mqtt: TransportWorkflows | undefined,
): Pick<SemanticMiddlewareOptions, 'deviceHealth' | 'deviceHealthIntervalMs'> {
  const bridge =
    device === undefined || config.device === undefined
      ? undefined
      : deviceHealthProbe(device, {
          timeoutMs: LIMITS.deviceProbeAtStartMs,
          ...(config.device.healthPath !== undefined && { path: config.device.healthPath }),
        });
  const brokers = mqtt !== undefined && mqtt.workflows.length > 0 ? mqtt : undefined;
  if (bridge === undefined && brokers === undefined) return {};
  const deviceHealth: DeviceHealthProbe = async () => {
    // The reason names no broker or server: it reaches /readyz, which is northbound.
    if (brokers !== undefined && !brokers.connected()) return { available: false, reason: brokers.downReason };
    return bridge === undefined ? { available: true } : bridge();
  };
  return { deviceHealth, ...(config.device !== undefined && { deviceHealthIntervalMs: config.device.healthIntervalMs }) };
}

/**
 * The workflows the graph binds to MQTT and to OPC UA methods, connected when the wiring drives
 * the device (an observing or inspecting sidecar invokes nothing); undefined otherwise.
 */
async function transportWorkflowsOf(config: SidecarConfig, ogm: OGM, logger: Logger): Promise<TransportWorkflows | undefined> {
  if (!wiringOf(config.autoregisterConnectors, config.connectorSyncDirection).writes) return undefined;
  const common = { source: ogm.db, resource: config.resource!, logger, credentials: config.broker?.credentials ?? null };
  const mqtt = await openMqttWorkflows({ ...common, defaultTimeoutMs: config.device?.timeoutMs });
  const opcua = await openOpcuaWorkflows({ ...common, pkiDir: config.opcuaPkiDir, timeoutMs: config.device?.timeoutMs }).catch(
    async (error: unknown) => {
      await mqtt.close();
      throw error;
    },
  );
  return {
    workflows: [...mqtt.workflows, ...opcua.workflows],
    connected: () => mqtt.connected() && opcua.connected(),
    downReason: mqtt.connected()
      ? 'the server of a workflow bound to an OPC UA method is not connected'
      : 'the broker of a workflow bound to MQTT is not connected',
    close: async () => void (await Promise.all([mqtt.close(), opcua.close()])),
  };
}

/** The workflows bound to MQTT and to OPC UA methods, and why they are unavailable while a transport is down. */
interface TransportWorkflows extends MqttWorkflows {
  readonly downReason: string;
}

/** Runs a claimed Operation through the MQTT workflow of its name, else through the device's runner. */
function operationRunnerOf(
  config: SidecarConfig,
  device: DeviceClient | undefined,
  mqtt: readonly BoundMqttWorkflow[],
): ((claimed: ClaimedForDevice) => Promise<unknown>) | undefined {
  const local = device !== undefined && config.workflows.length > 0 ? operationRunner(device, config.workflows) : undefined;
  if (mqtt.length === 0) return local;
  const byName = new Map(mqtt.map((w) => [w.options.name, w.invoke]));
  return traceAware((claimed: ClaimedForDevice) => {
    const invoke = claimed.workflowName === undefined ? undefined : byName.get(claimed.workflowName);
    // The Operation's IRI is set last so a data field called "operation" cannot replace it.
    if (invoke) return invoke(Object.assign({}, claimed.data, { operation: claimed.operationIri }));
    if (local) return local(claimed);
    return Promise.reject(new ValueError(`operation ${claimed.operationIri} names a workflow this resource does not declare`));
  });
}

function buildMiddleware(
  config: SidecarConfig,
  ogm: OGM,
  device: DeviceClient | undefined,
  mqttWorkflows: TransportWorkflows | undefined,
  logger: Logger,
): SemanticMiddleware {
  const mqtt = mqttWorkflows?.workflows ?? [];
  const mw = new SemanticMiddleware({
    mode: 'resource',
    resourceIri: config.resource,
    serviceClass: config.serviceClass,
    ogm,
    host: config.host,
    port: config.port,
    address: config.address ?? null,
    namedGraph: config.namedGraph,
    heartbeatInterval: config.heartbeatInterval,
    stalenessThreshold: config.stalenessThreshold,
    activityFeed: config.activityFeed,
    activityCapacity: config.activityCapacity,
    autoregisterConnectors: config.autoregisterConnectors,
    connectorSyncDirection: config.connectorSyncDirection,
    connectorMaxAge: config.connectorMaxAge,
    connectorCredentials: config.broker?.credentials ?? null,
    connectorRegistry: defaultConnectorRegistry({ opcua: { pkiDir: config.opcuaPkiDir } }),
    shutdownGraceMs: config.shutdownGraceMs,
    discoveryCacheMs: config.discoveryCacheMs,
    ...deviceHealthOptions(config, device, mqttWorkflows),
    ...securityOptionsOf(config),
    logger,
    accessLogLevel: config.log.accessLevel,
  });
  for (const w of mqtt) mw.workflow(w.options, w.invoke);
  if (device !== undefined) {
    for (const w of config.workflows)
      mw.workflow({ capabilityClass: w.capabilityClass, workflowClass: w.workflowClass, name: w.name }, workflowProxy(device, w));
    for (const s of config.states)
      mw.state({ capabilityClass: s.capabilityClass, statePropertyClass: s.statePropertyClass, name: s.name }, stateProxy(device, s));
  }
  const runner = operationRunnerOf(config, device, mqtt);
  if (runner !== undefined) mw.registerCallback(runner, undefined, { concurrency: config.operationConcurrency });
  return mw;
}

async function startParts(config: SidecarConfig, mw: SemanticMiddleware, logger: Logger): Promise<LocalApi | undefined> {
  const api = config.localApi;
  // Checked before anything is registered: a second sidecar given a live socket's path must fail
  // before its start-up reclaims the first one's running Operations as orphaned.
  if (api !== false && 'socket' in api) {
    await mkdir(dirname(api.socket), { recursive: true, mode: 0o700 });
    await clearStaleSocket(api.socket);
  }
  await mw.start();
  logger.info({ service: mw.serviceIri, address: mw.address }, 'sidecar registered');
  if (api === false) return undefined;
  const listen: LocalApiListen = 'socket' in api ? { socket: api.socket } : { port: api.port, token: api.token };
  return startLocalApi({
    middleware: mw,
    listen,
    logger: logger.child({ component: 'local-api' }),
    accessLogLevel: config.log.accessLevel,
  });
}

/**
 * Starts the sidecar of `config.resource`. A remote store that does not answer yet is retried
 * with backoff (a store outage at start-up is not a crash loop); any other failure stops what
 * was started and rejects, leaving no reachable Service behind.
 * @example
 * const sidecar = await startSidecar(await loadSidecarConfig({ file: 'config/door1.yaml' }), { logger });
 * process.once('SIGTERM', () => void sidecar.stop());
 */
export async function startSidecar(config: SidecarConfig, options: StartSidecarOptions): Promise<Sidecar> {
  // The middleware binds `resource` to its own lines; the daemon's lines get it here, so that no
  // line carries the key twice (log stores such as Elasticsearch refuse duplicate keys).
  const logger = options.logger.child({ resource: config.resource });
  const stopExport = await startSpanExport(config);
  const store = await openConfiguredStore(config, logger, options.signal).catch(async (err: unknown) => {
    await stopExport?.();
    throw err;
  });
  let device: DeviceClient | undefined;
  let mqtt: TransportWorkflows | undefined;
  let mw: SemanticMiddleware | undefined;
  try {
    const ogm = new OGM({ store, graph: config.namedGraph, shapesGraph: ONTOLOGY_GRAPHS.shapes });
    device = deviceClient(config, logger);
    mqtt = await transportWorkflowsOf(config, ogm, logger);
    const middleware = (mw = buildMiddleware(config, ogm, device, mqtt, options.logger));
    const localApi = await startParts(config, middleware, logger);
    return sidecarHandle({ middleware, store, device, mqtt, localApi, stopExport });
  } catch (err) {
    await mw?.stop().catch((e: unknown) => logger.warn({ err: e }, 'stopping after a failed start failed'));
    await mqtt?.close();
    await device?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    await stopExport?.();
    throw err;
  }
}

interface SidecarParts {
  middleware: SemanticMiddleware;
  store: TripleStore;
  device: DeviceClient | undefined;
  mqtt: MqttWorkflows | undefined;
  localApi: LocalApi | undefined;
  /** Sends the pending spans and stops exporting; absent when no export is configured. */
  stopExport: (() => Promise<void>) | undefined;
}

// OpenTelemetry is loaded only here, and only when an OTLP endpoint is configured.
function startSpanExport(config: SidecarConfig): Promise<(() => Promise<void>) | undefined> {
  const endpoint = config.tracing.otlpEndpoint;
  if (endpoint === undefined) return Promise.resolve(undefined);
  return startOtlpExport(endpoint, { 'service.instance.id': config.resource ?? 'watchdog' });
}

function sidecarHandle(parts: SidecarParts): Sidecar {
  const { middleware, store, device, mqtt, localApi, stopExport } = parts;
  let stopping: Promise<void> | undefined;
  const stopAll = async (): Promise<void> => {
    await localApi?.close();
    await middleware.stop();
    await mqtt?.close();
    await device?.close();
    await store.close();
    await stopExport?.();
  };
  return {
    middleware,
    store,
    ...(localApi !== undefined && { localApi }),
    stop: () => (stopping ??= stopAll()),
  };
}
