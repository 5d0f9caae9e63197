/**
 * One OPC UA session with one server, serving every parameter declared on it: one subscription
 * with a monitored item per variable (when the wiring reads), each value typed by the
 * parameter's datatype, and setpoints written with the Write service. A variable the server
 * does not have, or whose type cannot hold the parameter's datatype, makes the session not
 * ready until the server serves it (a warning names the parameter and the status).
 */
import type { ClientSession, ClientSubscription, DataValue } from 'node-opcua-client';
import { RuntimeError, UnavailableError, ValueError } from '../../errors.js';
import { DeviceAnswerError, type DeviceCall } from '../../device/errors.js';
import { LIMITS } from '../../limits.js';
import type { ConnectorContext, ConnectorSession, ParameterDeclaration, TransportAddress } from '../binding.js';
import type { ParameterValue } from '../datatypes.js';
import { withTimeout } from '../mqtt/session.js';
import { OpcuaConnection } from './connection.js';
import type { OpcuaModule } from './load.js';
import type { OpcuaMetadata } from './metadata.js';
import { holds, jsonToVariant, mismatch, variantToJson } from './variants.js';

/** A parameter of the session with its checked metadata. */
export interface OpcuaParameter {
  readonly declaration: ParameterDeclaration;
  readonly metadata: OpcuaMetadata;
}

/** How OPC UA calls are described in errors: no endpoint, no NodeId (southbound). */
export const OPCUA_DEVICE_DESCRIPTION = 'opcua';

// Publishing interval bounds: no faster than the fastest item samples, and at least this.
const MIN_PUBLISHING_MS = 50;

export class OpcuaSession implements ConnectorSession {
  private readonly byName = new Map<string, OpcuaParameter>();
  /** Parameters the server does not serve now (unknown node, wrong type), with why. */
  private readonly faults = new Map<string, string>();
  /** The built-in type of each parameter's variable, as last seen. */
  private readonly types = new Map<string, number>();
  private connection!: OpcuaConnection;

  private constructor(
    parameters: readonly OpcuaParameter[],
    private readonly context: ConnectorContext,
  ) {
    for (const p of parameters) this.byName.set(p.declaration.name, p);
  }

  /** Connects in the background; resolves once node-opcua is loaded, not once it is connected. */
  static async open(
    _transport: TransportAddress,
    parameters: readonly OpcuaParameter[],
    context: ConnectorContext,
    pkiDir: string | undefined,
  ): Promise<OpcuaSession> {
    const session = new OpcuaSession(parameters, context);
    session.connection = await OpcuaConnection.open({
      // Every parameter of one host:port is one server; the first one's endpoint and security are used.
      endpoint: parameters[0]!.metadata.endpoint,
      credentials: context.credentials,
      pkiDir,
      logger: context.logger,
      serves: () => ({ parameters: parameters.length }),
      onSession: (s, opcua) => session.subscribe(s, opcua),
    });
    return session;
  }

  /** Connected, and every variable served with a type that fits. */
  connected(): boolean {
    return this.connection.connected() && this.faults.size === 0;
  }

  async write(parameter: string, value: ParameterValue): Promise<void> {
    if (this.connection.isClosed()) throw new RuntimeError(`parameter "${parameter}": the connector is closed`);
    const p = this.byName.get(parameter);
    if (p === undefined) throw new RuntimeError(`parameter "${parameter}" has no setpoint connector`);
    const session = this.connection.session();
    if (session === undefined) throw new UnavailableError(`parameter "${parameter}": its OPC UA server is not connected; nothing was sent`);
    const call: DeviceCall = { target: OPCUA_DEVICE_DESCRIPTION, method: 'Write', path: `parameter "${parameter}"` };
    const written = this.send(session, p, value, call);
    const status = await withTimeout(
      written,
      LIMITS.connectorWriteTimeoutMs,
      () => new UnavailableError(`parameter "${parameter}": the server did not acknowledge the setpoint in time`),
    );
    if (status !== 'Good')
      throw new DeviceAnswerError(`parameter "${parameter}": the server refused the setpoint (${status})`, call, {
        deviceStatus: 502,
        bodyPreview: status,
      });
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /** Writes `value` as the variable's own type (read first when no value was seen yet); the status name. */
  private async send(session: ClientSession, p: OpcuaParameter, value: ParameterValue, call: DeviceCall): Promise<string> {
    const { nodeId } = p.metadata;
    const name = p.declaration.name;
    let dataType = this.types.get(name);
    if (dataType === undefined) {
      const current = await session.read({ nodeId, attributeId: this.connection.opcua.AttributeIds.Value });
      if (current.statusCode.isNotGood())
        throw new DeviceAnswerError(`parameter "${name}": the server cannot read the variable (${current.statusCode.name})`, call, {
          deviceStatus: 502,
          bodyPreview: current.statusCode.name,
        });
      dataType = current.value.dataType;
    }
    const variant = jsonToVariant(dataType, value);
    if (!variant.ok) throw new ValueError(`value for parameter "${name}": ${variant.reason}`);
    const status = await session.write({
      nodeId,
      attributeId: this.connection.opcua.AttributeIds.Value,
      value: { value: { dataType: variant.dataType, value: variant.value } },
    });
    return status.name;
  }

  private async subscribe(session: ClientSession, opcua: OpcuaModule): Promise<void> {
    this.faults.clear();
    if (!this.context.wiring.reads || this.byName.size === 0) return;
    const parameters = [...this.byName.values()];
    const fastest = Math.min(...parameters.map((p) => p.metadata.samplingIntervalMs));
    const subscription = await session.createSubscription2({
      requestedPublishingInterval: Math.max(MIN_PUBLISHING_MS, fastest),
      requestedMaxKeepAliveCount: 10,
      requestedLifetimeCount: 60,
      maxNotificationsPerPublish: 0,
      publishingEnabled: true,
      priority: 1,
    });
    subscription.on('terminated', () => this.connection.lost('the server terminated the subscription'));
    for (const p of parameters) await this.monitor(subscription, p, opcua);
  }

  private async monitor(subscription: ClientSubscription, p: OpcuaParameter, opcua: OpcuaModule): Promise<void> {
    const { nodeId, samplingIntervalMs } = p.metadata;
    const name = p.declaration.name;
    const item = await subscription.monitor(
      { nodeId, attributeId: opcua.AttributeIds.Value },
      { samplingInterval: samplingIntervalMs, queueSize: 1, discardOldest: true },
      opcua.TimestampsToReturn.Neither,
    );
    const status = item.statusCode;
    if (status.isNotGood()) {
      this.fault(name, `the server does not serve the variable (${status.name})`);
      return;
    }
    item.on('changed', (value: DataValue) => this.onValue(p, value));
  }

  private onValue(p: OpcuaParameter, data: DataValue): void {
    const name = p.declaration.name;
    if (data.statusCode.isNotGood()) {
      this.context.received(name, { reason: `the server reports the value as ${data.statusCode.name}` });
      return;
    }
    const dataType = data.value.dataType as number;
    this.types.set(name, dataType);
    if (!holds(p.declaration.datatype, dataType)) {
      this.fault(name, mismatch(p.declaration.datatype, dataType));
      return;
    }
    this.faults.delete(name);
    this.context.received(name, variantToJson({ dataType, arrayType: data.value.arrayType, value: data.value.value as unknown }));
  }

  /** Marks a parameter as not served (not ready) and reports why, once per change. */
  private fault(name: string, reason: string): void {
    if (this.faults.get(name) === reason) return;
    this.faults.set(name, reason);
    this.context.received(name, { reason });
  }
}
