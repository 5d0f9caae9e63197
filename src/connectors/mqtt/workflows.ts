/**
 * Workflows the graph binds to MQTT, recognized like the parameters: a domain property of the
 * resource (or of a component it links to) that descends from `sm:isInterfaceAccessibleMQTTWorkflow`
 * points at a workflow node with `sm:workflowClass`, `sm:capabilityClass`,
 * `sm:hasMQTTCommandTopic`, `sm:hasMQTTResponseTopic`, the broker (`inf:hasMQTTBrokerIP`,
 * `inf:hasMQTTBrokerPort`) and optionally `sm:hasMQTTTimeoutMs`. Each becomes a workflow
 * handler invoked through an {@link MqttWorkflowDevice}, one per broker.
 */
import type { WorkflowInvoker } from '../../device/client.js';
import { assertName } from '../../iri/mint.js';
import type { Logger } from '../../lib/logger.js';
import { LIMITS } from '../../limits.js';
import { inf, sm } from '../../vocab/terms.js';
import type { TransportAddress } from '../binding.js';
import { checkConnectorCredentials, credentialsFor, transportKey, type ConnectorCredentials } from '../credentials.js';
import { findInterfaceNodes, type InterfaceNode, type SelectSource } from '../recognize.js';
import { brokerTransport, checkedTopic, metadataFault } from './metadata.js';
import { MqttWorkflowDevice } from './workflow-device.js';
import { traceAware } from '../../tracing/trace-scope.js';

/** A workflow the graph binds to MQTT, checked. Topics and broker are southbound: never served. */
export interface MqttWorkflowDeclaration {
  /** `POST /workflows/{name}/execute`: the property's local name (prefixed by a component's). */
  readonly name: string;
  readonly workflowClass: string;
  readonly capabilityClass: string;
  readonly transport: TransportAddress;
  readonly commandTopic: string;
  readonly responseTopic: string;
  readonly timeoutMs: number;
}

const METADATA = [
  sm.workflowClass,
  sm.capabilityClass,
  sm.hasMQTTCommandTopic,
  sm.hasMQTTResponseTopic,
  sm.hasMQTTTimeoutMs,
  inf.hasMQTTBrokerIP,
  inf.hasMQTTBrokerPort,
];
const IRI_METADATA: ReadonlySet<string> = new Set([sm.workflowClass, sm.capabilityClass]);

/**
 * Checks one workflow node.
 * @throws ValueError naming the workflow and the property at fault, never its value.
 */
export function mqttWorkflowOf(node: InterfaceNode, defaultTimeoutMs: number): MqttWorkflowDeclaration {
  const fault = metadataFault(`workflow "${node.name}"`);
  const meta = node.metadata;
  const iri = (property: string): string => {
    const value = meta.get(property);
    if (value === undefined) throw fault(property, 'is missing (an IRI of a class in the ontology)');
    return value;
  };
  const topic = (property: string): string => {
    const text = checkedTopic(meta.get(property), () => fault(property, 'is not a valid MQTT topic name'));
    if (text === undefined) throw fault(property, 'is missing');
    return text;
  };
  const timeoutText = meta.get(sm.hasMQTTTimeoutMs)?.trim();
  const timeoutMs = timeoutText === undefined ? defaultTimeoutMs : Number(timeoutText);
  if (!/^\d{1,10}$/u.test(timeoutText ?? '1') || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
    throw fault(sm.hasMQTTTimeoutMs, 'is not a number of milliseconds from 1 to 2147483647');
  assertName(node.name);
  return {
    name: node.name,
    workflowClass: iri(sm.workflowClass),
    capabilityClass: iri(sm.capabilityClass),
    transport: brokerTransport(meta, fault),
    commandTopic: topic(sm.hasMQTTCommandTopic),
    responseTopic: topic(sm.hasMQTTResponseTopic),
    timeoutMs,
  };
}

/**
 * The workflows `resource` binds to MQTT, sorted by name. Nodes whose metadata is unusable are
 * left out with a warning naming the workflow and the rule (never the value).
 */
export async function recognizeMqttWorkflows(
  source: SelectSource,
  resource: string,
  logger: Logger,
  defaultTimeoutMs: number = LIMITS.deviceTimeoutMs,
): Promise<MqttWorkflowDeclaration[]> {
  const { nodes } = await findInterfaceNodes(source, resource, [sm.isInterfaceAccessibleMQTTWorkflow], METADATA, IRI_METADATA);
  const declarations: MqttWorkflowDeclaration[] = [];
  for (const node of nodes) {
    try {
      declarations.push(mqttWorkflowOf(node, defaultTimeoutMs));
    } catch (error) {
      logger.warn({ workflow: node.name, reason: (error as Error).message }, 'workflow left out: its MQTT metadata is unusable');
    }
  }
  return declarations;
}

/** A workflow bound to MQTT, ready for `mw.workflow(options, invoke)`. */
export interface BoundMqttWorkflow {
  readonly options: { readonly name: string; readonly workflowClass: string; readonly capabilityClass: string };
  readonly invoke: WorkflowInvoker;
}

/** Options of {@link openMqttWorkflows}. */
export interface OpenMqttWorkflowsOptions {
  /** The store (or `ogm.db`) the ontology is read from. */
  readonly source: SelectSource;
  readonly resource: string;
  readonly logger: Logger;
  /** User names, passwords and TLS of the brokers, as the middleware's `connectorCredentials`. Default none. */
  readonly credentials?: ConnectorCredentials | null;
  /** Time a device gets to answer when the node names none; default {@link LIMITS.deviceTimeoutMs}. */
  readonly defaultTimeoutMs?: number;
  /** Largest accepted response; default {@link LIMITS.deviceReplyMaxBytes}. */
  readonly maxReplyBytes?: number;
  /** Called once per distinct broker before it is connected (the spec's `ensure_transport`). */
  readonly ensureTransport?: (host: string, port: number) => void | Promise<void>;
}

/** The MQTT workflows of a resource and the devices that invoke them. */
export interface MqttWorkflows {
  readonly workflows: readonly BoundMqttWorkflow[];
  /** Whether every broker of the workflows is connected now (true when there are none). */
  connected(): boolean;
  /** Closes every broker connection; calls in flight reject. Repeatable. */
  close(): Promise<void>;
}

/**
 * Recognizes the workflows `resource` binds to MQTT and connects one device per broker.
 * @example
 * const mqtt = await openMqttWorkflows({ source: ogm.db, resource, logger });
 * for (const w of mqtt.workflows) mw.workflow(w.options, w.invoke);
 * // after mw.stop(): await mqtt.close();
 */
export async function openMqttWorkflows(options: OpenMqttWorkflowsOptions): Promise<MqttWorkflows> {
  const credentials = checkConnectorCredentials(options.credentials);
  const logger = options.logger.child({ connector: sm.isInterfaceAccessibleMQTTWorkflow });
  const declarations = await recognizeMqttWorkflows(options.source, options.resource, logger, options.defaultTimeoutMs);
  const devices = new Map<string, MqttWorkflowDevice>();
  const close = async (): Promise<void> => void (await Promise.all([...devices.values()].map((d) => d.close().catch(() => undefined))));
  const workflows: BoundMqttWorkflow[] = [];
  try {
    for (const d of declarations) {
      const key = transportKey(d.transport);
      let device = devices.get(key);
      if (device === undefined) {
        await options.ensureTransport?.(d.transport.host, d.transport.port);
        device = await MqttWorkflowDevice.open({
          transport: d.transport,
          credentials: credentialsFor(credentials, d.transport),
          logger,
          maxReplyBytes: options.maxReplyBytes ?? LIMITS.deviceReplyMaxBytes,
        });
        devices.set(key, device);
      }
      const invoke = device.invoker({
        label: `workflow "${d.name}"`,
        path: d.commandTopic,
        replyTo: d.responseTopic,
        timeoutMs: d.timeoutMs,
      });
      workflows.push({
        options: { name: d.name, workflowClass: d.workflowClass, capabilityClass: d.capabilityClass },
        invoke: traceAware(invoke),
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  logger.info({ workflows: workflows.length, brokers: devices.size }, 'MQTT workflows recognized');
  return { workflows, connected: () => [...devices.values()].every((d) => d.connected()), close };
}
