import { it } from '@jest/globals';

/** The broker the connector tests use (`bash scripts/mosquitto.sh start` prints it), or undefined. */
export function brokerUrl(): string | undefined {
  const url = process.env.MQTT_URL;
  return url === undefined || url === '' ? undefined : url;
}

/** Host and port of {@link brokerUrl}; throws when MQTT_URL is unset (guard with {@link itWithBroker}). */
export function brokerAddress(): { host: string; port: number } {
  const url = brokerUrl();
  if (url === undefined) throw new Error('MQTT_URL is not set');
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 1883) };
}

/**
 * Jest's `it` when a broker is configured (MQTT_URL), `it.skip` otherwise, so that the summary
 * counts those tests as skipped rather than passed.
 */
export function itWithBroker(): typeof it.skip {
  return brokerUrl() === undefined ? it.skip : it;
}
