/**
 * One connection to one MQTT broker that reconnects by itself: exponential backoff with jitter
 * after any loss, a warning when the broker refuses the credentials or its certificate does not
 * verify (once per streak of failures, naming neither the broker nor a secret), and a hook run
 * on every (re)connect. The `mqtt` package is loaded only here, on first use.
 */
import type { IClientOptions, MqttClient } from 'mqtt';
import type { Logger } from '../../lib/logger.js';
import { LIMITS } from '../../limits.js';
import type { TransportAddress } from '../binding.js';
import type { TransportCredentials } from '../credentials.js';
import { connectionProblem, mqttClientOptions } from './connect.js';

/** The delay before reconnect attempt `attempt` (0-based): doubling from the minimum, capped, ±25 % jitter. */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(LIMITS.connectorReconnectMaxMs, LIMITS.connectorReconnectMinMs * 2 ** Math.min(attempt, 20));
  return Math.round(base * (0.75 + 0.5 * random()));
}

/** Options of {@link BrokerConnection.open}. */
export interface BrokerConnectionOptions {
  readonly transport: TransportAddress;
  readonly credentials: Readonly<TransportCredentials> | undefined;
  /** Southbound details at debug level only. */
  readonly logger: Logger;
  /** What the connection serves, for its log lines: `{ parameters: 3 }`. */
  serves(): Record<string, unknown>;
  /** Client options beyond the connection's own (e.g. `protocolVersion: 5`). */
  readonly extra?: Partial<IClientOptions>;
  /** Run on every successful (re)connect. */
  onConnect(): void;
}

export class BrokerConnection {
  private attempt = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private problem: string | undefined;

  private constructor(
    /** The client; publish and subscribe only while {@link BrokerConnection.connected}. */
    readonly client: MqttClient,
    private readonly options: BrokerConnectionOptions,
  ) {
    client.on('connect', () => this.onConnect());
    client.on('close', () => this.scheduleReconnect());
    // Connection errors are followed by 'close', which retries; without a listener an error would throw.
    client.on('error', (error) => this.onError(error));
  }

  /** Connects in the background; resolves once the client exists, not once it is connected. */
  static async open(options: BrokerConnectionOptions): Promise<BrokerConnection> {
    const mqtt = await import('mqtt');
    return new BrokerConnection(mqtt.connect(mqttClientOptions(options.transport, options.credentials, options.extra)), options);
  }

  /** Whether the broker is connected now. */
  connected(): boolean {
    return this.client.connected;
  }

  /** Whether {@link BrokerConnection.close} was called. */
  isClosed(): boolean {
    return this.closed;
  }

  /** Closes the connection and stops reconnecting; repeatable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retry);
    await this.client.endAsync(true);
  }

  /** Drops the connection and reconnects after the backoff (e.g. after a failed subscription). */
  restart(): void {
    this.client.end(true, {}, () => this.scheduleReconnect());
  }

  private onConnect(): void {
    this.attempt = 0;
    this.problem = undefined;
    this.options.logger.info(this.options.serves(), 'connector connected');
    this.options.onConnect();
  }

  private onError(error: Error): void {
    const problem = connectionProblem(error);
    this.options.logger.debug({ err: error }, 'MQTT connection error');
    if (problem !== undefined && problem !== this.problem)
      this.options.logger.warn({ ...this.options.serves(), reason: problem }, 'connector cannot connect');
    this.problem = problem;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry !== undefined) return;
    const delay = reconnectDelayMs(this.attempt++);
    this.options.logger.debug({ delayMs: delay, attempt: this.attempt }, 'connector reconnecting');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) this.client.reconnect();
    }, delay);
  }
}
