/**
 * Workflows the graph binds to OPC UA Methods, recognized like the parameters: a domain property
 * of the resource (or of a component it links to) that descends from
 * `sm:isInterfaceAccessibleOPCUAWorkflow` points at a workflow node with `sm:workflowClass`,
 * `sm:capabilityClass`, `sm:hasOPCUAEndpoint`, `sm:hasOPCUAObjectNodeId` and
 * `sm:hasOPCUAMethodNodeId` (security and user name as for parameters). Each becomes a workflow
 * handler; one connection per server, opened only when there is a workflow to call on it.
 */
import { assertName } from '../../iri/mint.js';
import type { Logger } from '../../lib/logger.js';
import { LIMITS } from '../../limits.js';
import { sm } from '../../vocab/terms.js';
import { checkConnectorCredentials, credentialsFor, transportKey } from '../credentials.js';
import { metadataFault } from '../mqtt/metadata.js';
import type { BoundMqttWorkflow, MqttWorkflows, OpenMqttWorkflowsOptions } from '../mqtt/workflows.js';
import { findInterfaceNodes, type InterfaceNode, type SelectSource } from '../recognize.js';
import type { OpcuaConnection } from './connection.js';
import { checkedNodeId, opcuaEndpoint, type OpcuaEndpoint } from './metadata.js';
import { traceAware } from '../../tracing/trace-scope.js';

/** A workflow the graph binds to an OPC UA Method, checked. Endpoint and NodeIds are southbound: never served. */
export interface OpcuaWorkflowDeclaration {
  /** `POST /workflows/{name}/execute`: the property's local name (prefixed by a component's). */
  readonly name: string;
  readonly workflowClass: string;
  readonly capabilityClass: string;
  readonly endpoint: OpcuaEndpoint;
  readonly objectNodeId: string;
  readonly methodNodeId: string;
}

const METADATA = [
  sm.workflowClass,
  sm.capabilityClass,
  sm.hasOPCUAEndpoint,
  sm.hasOPCUAObjectNodeId,
  sm.hasOPCUAMethodNodeId,
  sm.hasOPCUASecurityMode,
  sm.hasOPCUASecurityPolicy,
  sm.hasOPCUAUserName,
];
const IRI_METADATA: ReadonlySet<string> = new Set([sm.workflowClass, sm.capabilityClass]);

/**
 * Checks one workflow node.
 * @throws ValueError naming the workflow and the property at fault, never its value.
 */
export function opcuaWorkflowOf(node: InterfaceNode): OpcuaWorkflowDeclaration {
  const fault = metadataFault(`workflow "${node.name}"`);
  const meta = node.metadata;
  const iri = (property: string): string => {
    const value = meta.get(property);
    if (value === undefined) throw fault(property, 'is missing (an IRI of a class in the ontology)');
    return value;
  };
  assertName(node.name);
  return {
    name: node.name,
    workflowClass: iri(sm.workflowClass),
    capabilityClass: iri(sm.capabilityClass),
    endpoint: opcuaEndpoint(meta, fault),
    objectNodeId: checkedNodeId(meta.get(sm.hasOPCUAObjectNodeId), sm.hasOPCUAObjectNodeId, fault),
    methodNodeId: checkedNodeId(meta.get(sm.hasOPCUAMethodNodeId), sm.hasOPCUAMethodNodeId, fault),
  };
}

/**
 * The workflows `resource` binds to OPC UA Methods, sorted by name. Nodes whose metadata is
 * unusable are left out with a warning naming the workflow and the rule (never the value).
 */
export async function recognizeOpcuaWorkflows(source: SelectSource, resource: string, logger: Logger): Promise<OpcuaWorkflowDeclaration[]> {
  const { nodes } = await findInterfaceNodes(source, resource, [sm.isInterfaceAccessibleOPCUAWorkflow], METADATA, IRI_METADATA);
  const declarations: OpcuaWorkflowDeclaration[] = [];
  for (const node of nodes) {
    try {
      declarations.push(opcuaWorkflowOf(node));
    } catch (error) {
      logger.warn({ workflow: node.name, reason: (error as Error).message }, 'workflow left out: its OPC UA metadata is unusable');
    }
  }
  return declarations;
}

/**
 * Options of {@link openOpcuaWorkflows}: those of the MQTT workflows (`credentials` are the
 * servers' user names and passwords, keyed `host:port`), and the certificate store.
 */
export interface OpenOpcuaWorkflowsOptions extends Pick<
  OpenMqttWorkflowsOptions,
  'source' | 'resource' | 'logger' | 'credentials' | 'ensureTransport'
> {
  /** The client's certificate store; default node-opcua's own. */
  readonly pkiDir?: string;
  /** Time a method call gets; default {@link LIMITS.deviceTimeoutMs}. */
  readonly timeoutMs?: number;
}

/** The OPC UA workflows of a resource and the connections that call them: the same shape as the MQTT ones. */
export type OpcuaWorkflows = MqttWorkflows;

/**
 * Recognizes the workflows `resource` binds to OPC UA Methods and connects one session per
 * server. node-opcua is loaded only when there is at least one.
 * @example
 * const opcua = await openOpcuaWorkflows({ source: ogm.db, resource, logger, pkiDir });
 * for (const w of opcua.workflows) mw.workflow(w.options, w.invoke);
 * // after mw.stop(): await opcua.close();
 */
export async function openOpcuaWorkflows(options: OpenOpcuaWorkflowsOptions): Promise<OpcuaWorkflows> {
  const credentials = checkConnectorCredentials(options.credentials);
  const logger = options.logger.child({ connector: sm.isInterfaceAccessibleOPCUAWorkflow });
  const declarations = await recognizeOpcuaWorkflows(options.source, options.resource, logger);
  if (declarations.length === 0) return { workflows: [], connected: () => true, close: () => Promise.resolve() };
  // One after the other: jest's ESM loader fails on parallel imports that share a module.
  const { OpcuaConnection: Connection } = await import('./connection.js');
  const { methodInvoker } = await import('./method-call.js');
  const connections = new Map<string, OpcuaConnection>();
  const close = async (): Promise<void> => void (await Promise.all([...connections.values()].map((c) => c.close().catch(() => undefined))));
  const workflows: BoundMqttWorkflow[] = [];
  try {
    for (const d of declarations) {
      const key = transportKey(d.endpoint.transport);
      let connection = connections.get(key);
      if (connection === undefined) {
        await options.ensureTransport?.(d.endpoint.transport.host, d.endpoint.transport.port);
        const served = declarations.filter((w) => transportKey(w.endpoint.transport) === key).length;
        connection = await Connection.open({
          endpoint: d.endpoint,
          credentials: credentialsFor(credentials, d.endpoint.transport),
          pkiDir: options.pkiDir,
          logger,
          serves: () => ({ workflows: served }),
          onSession: () => Promise.resolve(),
        });
        connections.set(key, connection);
      }
      const invoke = methodInvoker(connection, {
        label: `workflow "${d.name}"`,
        objectNodeId: d.objectNodeId,
        methodNodeId: d.methodNodeId,
        timeoutMs: options.timeoutMs ?? LIMITS.deviceTimeoutMs,
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
  logger.info({ workflows: workflows.length, servers: connections.size }, 'OPC UA workflows recognized');
  return { workflows, connected: () => [...connections.values()].every((c) => c.connected()), close };
}
