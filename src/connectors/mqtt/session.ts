/**
 * One MQTT connection to one broker, serving every parameter declared on it: subscribes to the
 * read topics (when the wiring reads), hands each message to the parameters of its topic, and
 * publishes setpoints. Reconnection, credentials and TLS are the {@link BrokerConnection}'s.
 */
import { RuntimeError, UnavailableError } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import type { ConnectorContext, ConnectorSession, ParameterDeclaration, TransportAddress } from '../binding.js';
import type { ParameterValue } from '../datatypes.js';
import { BrokerConnection } from './broker-connection.js';
import type { MqttMetadata } from './metadata.js';
import { readPayload, writePayload } from './payload.js';

/** A parameter of the session with its checked metadata. */
export interface MqttParameter {
  readonly declaration: ParameterDeclaration;
  readonly metadata: MqttMetadata;
}

/** Rejects with `error()` after `ms`, or settles as `work` does; the timer never outlives the race. */
export async function withTimeout<T>(work: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class MqttSession implements ConnectorSession {
  private readonly byTopic = new Map<string, MqttParameter[]>();
  private readonly byName = new Map<string, MqttParameter>();
  private connection!: BrokerConnection;

  private constructor(
    parameters: readonly MqttParameter[],
    private readonly context: ConnectorContext,
  ) {
    for (const p of parameters) {
      this.byName.set(p.declaration.name, p);
      const { topic } = p.metadata;
      if (topic !== undefined && context.wiring.reads) this.byTopic.set(topic, [...(this.byTopic.get(topic) ?? []), p]);
    }
  }

  /** Connects in the background; resolves once the client exists, not once it is connected. */
  static async open(transport: TransportAddress, parameters: readonly MqttParameter[], context: ConnectorContext): Promise<MqttSession> {
    const session = new MqttSession(parameters, context);
    session.connection = await BrokerConnection.open({
      transport,
      credentials: context.credentials,
      logger: context.logger,
      serves: () => ({ parameters: parameters.length }),
      onConnect: () => session.onConnect(),
    });
    session.connection.client.on('message', (topic, payload) => session.onMessage(topic, payload));
    return session;
  }

  connected(): boolean {
    return this.connection.connected();
  }

  async write(parameter: string, value: ParameterValue): Promise<void> {
    if (this.connection.isClosed()) throw new RuntimeError(`parameter "${parameter}": the connector is closed`);
    const p = this.byName.get(parameter);
    const setTopic = p?.metadata.setTopic;
    if (p === undefined || setTopic === undefined) throw new RuntimeError(`parameter "${parameter}" has no setpoint connector`);
    if (!this.connection.connected()) throw new UnavailableError(`parameter "${parameter}": its broker is not connected; nothing was sent`);
    const sent = this.connection.client.publishAsync(setTopic, writePayload(value, p.metadata.valuePath), { qos: 1 });
    try {
      await withTimeout(
        sent,
        LIMITS.connectorWriteTimeoutMs,
        () => new UnavailableError(`parameter "${parameter}": the broker did not acknowledge the setpoint in time`),
      );
    } catch (error) {
      if (error instanceof UnavailableError) throw error;
      this.context.logger.debug({ err: error, parameter }, 'MQTT publish failed');
      throw new UnavailableError(`parameter "${parameter}": the setpoint could not be sent to its broker`);
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  private onConnect(): void {
    const topics = [...this.byTopic.keys()];
    if (topics.length === 0) return;
    this.connection.client.subscribeAsync(topics, { qos: 0 }).catch((error: unknown) => {
      this.context.logger.debug({ err: error }, 'MQTT subscribe failed');
      this.context.logger.warn({ parameters: this.byName.size }, 'connector could not subscribe; reconnecting');
      this.connection.restart();
    });
  }

  private onMessage(topic: string, payload: Buffer): void {
    for (const p of this.byTopic.get(topic) ?? []) {
      const { declaration, metadata } = p;
      this.context.received(declaration.name, readPayload(payload, declaration.datatype, metadata.valuePath, this.context.maxPayloadBytes));
    }
  }
}
