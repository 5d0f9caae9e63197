// What plc.mjs publishes and listens to, and what transfer-unit.ttl declares for a sidecar: the
// PLC's defaults, and its topics relative to the topic prefix. transfer-unit.ttl spells them out
// under DEFAULT_PREFIX; ontology.mjs rewrites them for another prefix or broker.

/** The broker the PLC and transfer-unit.ttl use when none is given. */
export const DEFAULT_BROKER = 'mqtt://127.0.0.1:1883';

/** The topic prefix of transfer-unit.ttl and of the PLC when none is given. */
export const DEFAULT_PREFIX = 'plant/transferUnit1';

/** Topics below the prefix. */
export const TOPICS = Object.freeze({
  /** Conveyor speed readings, a JSON envelope `{"data":{"value":<m/s>,"unit":"m/s"},"ts":"..."}`. */
  speed: 'conveyor/speed',
  /** Conveyor speed setpoints, the same envelope (or a bare number). */
  speedSet: 'conveyor/speed_set',
  /** Light barrier readings, a raw `true` or `false`. */
  occupied: 'lightBarrier/occupied',
});

/** Host and port of an `mqtt://host:port` URL (port 1883 when absent). */
export function brokerAddress(url) {
  const parsed = new URL(url);
  if (parsed.protocol !== 'mqtt:') throw new Error(`the broker must be an mqtt:// URL, got ${JSON.stringify(url)}`);
  return { host: parsed.hostname, port: Number(parsed.port || 1883) };
}
