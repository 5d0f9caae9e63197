/**
 * One MQTT connection to one broker, serving every parameter declared on it: subscribes to the
 * read topics (when the wiring reads), hands each message to the parameters of its topic,
 * publishes setpoints, and reconnects with exponential backoff and jitter after any loss.
 * The `mqtt` package is loaded only here, on first use.
 */
import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { RuntimeError, UnavailableError } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import type { ConnectorContext, ConnectorSession, ParameterDeclaration, TransportAddress } from '../binding.js';
import type { ParameterValue } from '../datatypes.js';
import type { MqttMetadata } from './metadata.js';
import { readPayload, writePayload } from './payload.js';

/** A parameter of the session with its checked metadata. */
export interface MqttParameter {
  readonly declaration: ParameterDeclaration;
  readonly metadata: MqttMetadata;
}

/** The delay before reconnect attempt `attempt` (0-based): doubling from the minimum, capped, ±25 % jitter. */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(LIMITS.connectorReconnectMaxMs, LIMITS.connectorReconnectMinMs * 2 ** Math.min(attempt, 20));
  return Math.round(base * (0.75 + 0.5 * random()));
}

export class MqttSession implements ConnectorSession {
  private readonly byTopic = new Map<string, MqttParameter[]>();
  private readonly byName = new Map<string, MqttParameter>();
  private attempt = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly client: MqttClient,
    parameters: readonly MqttParameter[],
    private readonly context: ConnectorContext,
  ) {
    for (const p of parameters) {
      this.byName.set(p.declaration.name, p);
      const { topic } = p.metadata;
      if (topic !== undefined && context.wiring.reads) this.byTopic.set(topic, [...(this.byTopic.get(topic) ?? []), p]);
    }
    client.on('connect', () => this.onConnect());
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.on('close', () => this.scheduleReconnect());
    // Connection errors are followed by 'close', which retries; without a listener an error would throw.
    client.on('error', (error) => context.logger.debug({ err: error }, 'MQTT connection error'));
  }

  /** Connects in the background; resolves once the client exists, not once it is connected. */
  static async open(transport: TransportAddress, parameters: readonly MqttParameter[], context: ConnectorContext): Promise<MqttSession> {
    const mqtt = await import('mqtt');
    const client = mqtt.connect({
      host: transport.host,
      port: transport.port,
      protocol: 'mqtt',
      clientId: `semantic-middleware-${randomBytes(6).toString('hex')}`,
      reconnectPeriod: 0,
      connectTimeout: LIMITS.connectorWriteTimeoutMs,
      resubscribe: false,
    });
    return new MqttSession(client, parameters, context);
  }

  connected(): boolean {
    return this.client.connected;
  }

  async write(parameter: string, value: ParameterValue): Promise<void> {
    if (this.closed) throw new RuntimeError(`parameter "${parameter}": the connector is closed`);
    const p = this.byName.get(parameter);
    const setTopic = p?.metadata.setTopic;
    if (p === undefined || setTopic === undefined) throw new RuntimeError(`parameter "${parameter}" has no setpoint connector`);
    if (!this.client.connected) throw new UnavailableError(`parameter "${parameter}": its broker is not connected; nothing was sent`);
    const sent = this.client.publishAsync(setTopic, writePayload(value, p.metadata.valuePath), { qos: 1 });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new UnavailableError(`parameter "${parameter}": the broker did not acknowledge the setpoint in time`)),
        LIMITS.connectorWriteTimeoutMs,
      );
    });
    try {
      await Promise.race([sent, timeout]);
    } catch (error) {
      if (error instanceof UnavailableError) throw error;
      this.context.logger.debug({ err: error, parameter }, 'MQTT publish failed');
      throw new UnavailableError(`parameter "${parameter}": the setpoint could not be sent to its broker`);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retry);
    await this.client.endAsync(true);
  }

  private onConnect(): void {
    this.attempt = 0;
    this.context.logger.info({ parameters: this.byName.size }, 'connector connected');
    const topics = [...this.byTopic.keys()];
    if (topics.length === 0) return;
    this.client.subscribeAsync(topics, { qos: 0 }).catch((error: unknown) => {
      this.context.logger.warn({ err: error }, 'connector could not subscribe; reconnecting');
      this.client.end(true, {}, () => this.scheduleReconnect());
    });
  }

  private onMessage(topic: string, payload: Buffer): void {
    for (const p of this.byTopic.get(topic) ?? []) {
      const { declaration, metadata } = p;
      this.context.received(declaration.name, readPayload(payload, declaration.datatype, metadata.valuePath, this.context.maxPayloadBytes));
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry !== undefined) return;
    const delay = reconnectDelayMs(this.attempt++);
    this.context.logger.debug({ delayMs: delay, attempt: this.attempt }, 'connector reconnecting');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) this.client.reconnect();
    }, delay);
  }
}
