/**
 * Workflows invoked over MQTT 5 request/response, as a {@link DeviceClient} of the device seam:
 * an invocation publishes its JSON arguments on the form's command topic (`path`) with the
 * form's response topic (`replyTo`) and fresh correlation data, and resolves with the JSON of the
 * response that carries the same correlation data. Responses with other or no correlation data
 * are ignored; no matching response within the form's timeout is a DeviceTimeoutError (504).
 * One broker connection per device; errors and info-level logs name the workflow, never the
 * broker or a topic.
 */
import { randomBytes } from 'node:crypto';
import type { IPublishPacket } from 'mqtt';
import { RuntimeError, ValueError } from '../../errors.js';
import type { DeviceClient, DeviceForm, DeviceHealth, StateReader, WorkflowInvoker } from '../../device/client.js';
import { DeviceReplyError, DeviceTimeoutError, DeviceUnreachableError, type DeviceCall } from '../../device/errors.js';
import { replyValue } from '../../device/reply.js';
import type { Logger } from '../../lib/logger.js';
import type { TransportAddress } from '../binding.js';
import type { TransportCredentials } from '../credentials.js';
import { BrokerConnection } from './broker-connection.js';
import { withTimeout } from './session.js';

/** How devices of this kind are described in logs and errors: no address (southbound). */
export const MQTT_DEVICE_DESCRIPTION = 'mqtt';

/** Options of {@link MqttWorkflowDevice.open}. */
export interface MqttWorkflowDeviceOptions {
  readonly transport: TransportAddress;
  readonly credentials: Readonly<TransportCredentials> | undefined;
  readonly logger: Logger;
  /** Largest accepted response payload, in bytes. */
  readonly maxReplyBytes: number;
}

interface Pending {
  readonly responseTopic: string;
  resolve(payload: Buffer): void;
  reject(error: Error): void;
}

const isArguments = (args: unknown): args is Record<string, unknown> => typeof args === 'object' && args !== null && !Array.isArray(args);

export class MqttWorkflowDevice implements DeviceClient {
  readonly description = MQTT_DEVICE_DESCRIPTION;
  private readonly responseTopics = new Set<string>();
  private readonly pending = new Map<string, Pending>();
  private connection!: BrokerConnection;

  private constructor(private readonly options: MqttWorkflowDeviceOptions) {}

  /** Connects (MQTT 5) in the background; resolves once the client exists. */
  static async open(options: MqttWorkflowDeviceOptions): Promise<MqttWorkflowDevice> {
    const device = new MqttWorkflowDevice(options);
    device.connection = await BrokerConnection.open({
      transport: options.transport,
      credentials: options.credentials,
      logger: options.logger,
      serves: () => ({ workflows: device.responseTopics.size }),
      extra: { protocolVersion: 5 },
      onConnect: () => device.subscribe([...device.responseTopics]),
    });
    device.connection.client.on('message', (topic, payload, packet) => device.onMessage(topic, payload, packet));
    return device;
  }

  /**
   * The invocation of the workflow whose command topic is `form.path` and response topic
   * `form.replyTo`; the response topic is subscribed from now on.
   * @throws ValueError when the form has no response topic.
   */
  invoker(form: DeviceForm): WorkflowInvoker {
    const responseTopic = form.replyTo;
    if (responseTopic === undefined) throw new ValueError(`${form.label} has no response topic: an MQTT workflow needs one`);
    if (!this.responseTopics.has(responseTopic)) {
      this.responseTopics.add(responseTopic);
      if (this.connection.connected()) this.subscribe([responseTopic]);
    }
    const call: DeviceCall = { target: MQTT_DEVICE_DESCRIPTION, method: 'MQTT request', path: form.label };
    return (args) => (isArguments(args) ? this.invoke(form, responseTopic, call, args) : Promise.reject(argumentsError(form, args)));
  }

  reader(form: DeviceForm): StateReader {
    throw new ValueError(`${form.label}: state properties are not read through MQTT workflows (declare an MQTT parameter instead)`);
  }

  health(): Promise<DeviceHealth> {
    if (this.connection.isClosed()) return Promise.reject(new RuntimeError('the MQTT workflow device is closed'));
    if (this.connection.connected()) return Promise.resolve({ reachable: true, ms: 0 });
    const call: DeviceCall = { target: MQTT_DEVICE_DESCRIPTION, method: 'MQTT', path: 'connect' };
    return Promise.resolve({
      reachable: false,
      error: new DeviceUnreachableError('the MQTT broker of the workflows is not connected', call, undefined),
    });
  }

  /** Whether the broker is connected now. */
  connected(): boolean {
    return this.connection.connected();
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) p.reject(new RuntimeError('the MQTT workflow device was closed before the answer came'));
    this.pending.clear();
    await this.connection.close();
  }

  private async invoke(form: DeviceForm, responseTopic: string, call: DeviceCall, args: Record<string, unknown>): Promise<unknown> {
    if (this.connection.isClosed()) throw new RuntimeError(`${form.label}: the MQTT workflow device is closed`);
    if (!this.connection.connected())
      throw new DeviceUnreachableError(`${form.label}: its MQTT broker is not connected; nothing was sent`, call, undefined);
    const correlation = randomBytes(16);
    const key = correlation.toString('hex');
    const answered = new Promise<Buffer>((resolve, reject) => this.pending.set(key, { responseTopic, resolve, reject }));
    try {
      const published = this.connection.client.publishAsync(form.path, JSON.stringify(args), {
        qos: 1,
        properties: { responseTopic, correlationData: correlation, contentType: 'application/json' },
      });
      const payload = await withTimeout(
        Promise.all([answered, published]).then(([reply]) => reply),
        form.timeoutMs,
        () => new DeviceTimeoutError(`${form.label} got no answer over MQTT within ${form.timeoutMs} ms`, call, form.timeoutMs),
      );
      return replyValue(
        { bytes: payload, complete: payload.length <= this.options.maxReplyBytes },
        call,
        this.options.maxReplyBytes,
        'MQTT payload',
      );
    } catch (error) {
      if (error instanceof DeviceTimeoutError || error instanceof DeviceReplyError || error instanceof RuntimeError) throw error;
      this.options.logger.debug({ err: error }, 'MQTT workflow publish failed');
      throw new DeviceUnreachableError(`${form.label}: the call could not be sent to its MQTT broker`, call, undefined);
    } finally {
      this.pending.delete(key);
    }
  }

  private subscribe(topics: string[]): void {
    if (topics.length === 0) return;
    this.connection.client.subscribeAsync(topics, { qos: 1 }).catch((error: unknown) => {
      this.options.logger.debug({ err: error }, 'MQTT subscribe failed');
      this.options.logger.warn({ workflows: topics.length }, 'workflow responses could not be subscribed; reconnecting');
      this.connection.restart();
    });
  }

  private onMessage(topic: string, payload: Buffer, packet: IPublishPacket): void {
    const correlation = packet.properties?.correlationData;
    const pending = correlation === undefined ? undefined : this.pending.get(Buffer.from(correlation).toString('hex'));
    // A response on another topic, without or with foreign correlation data is not an answer.
    if (pending === undefined || pending.responseTopic !== topic) {
      this.options.logger.debug({ correlated: correlation !== undefined }, 'MQTT message without a matching call ignored');
      return;
    }
    pending.resolve(payload);
  }
}

function argumentsError(form: DeviceForm, args: unknown): ValueError {
  return new ValueError(`${form.label} takes a JSON object of arguments, got ${Array.isArray(args) ? 'an array' : typeof args}`);
}
