#!/usr/bin/env node
// A simulated MQTT PLC: a transfer unit whose conveyor speed ramps towards the setpoint it is
// sent, and whose light barrier sees a part pass at every metre of belt travel. It publishes its
// readings on an interval and obeys setpoints, as a PLC gateway or an edge box does. Plain Node
// and the `mqtt` package, no build step. See README.md beside this file.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import mqtt from 'mqtt';
import { brokerAddress, DEFAULT_BROKER, DEFAULT_PREFIX, TOPICS } from './topics.mjs';

const USAGE = `Usage: node plc.mjs [--broker URL] [--prefix TOPIC_PREFIX] [--interval-ms N] [--ramp R] [--log json|plain]
  --broker        broker to publish on, mqtt://host:port (default $MQTT_URL, else ${DEFAULT_BROKER})
  --prefix        topic prefix (default $PLC_TOPIC_PREFIX, else ${DEFAULT_PREFIX})
  --interval-ms   time between two readings (default 500)
  --ramp          how fast the speed follows its setpoint, in m/s per second (default 0.5)
  --log           json (pino-style lines, the default) or plain`;

/** The belt's limits: setpoints outside are refused. */
const MAX_SPEED = 2;
/** Parts lie one metre apart; each blocks the light barrier for this much of the metre. */
const PART_LENGTH = 0.2;

function fail(message) {
  process.stderr.write(`plc: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** The checked options; problems exit 2 with the usage. */
function readOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        broker: { type: 'string' },
        prefix: { type: 'string' },
        'interval-ms': { type: 'string', default: '500' },
        ramp: { type: 'string', default: '0.5' },
        log: { type: 'string', default: 'json' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    fail(error.message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const broker = values.broker ?? (process.env.MQTT_URL || DEFAULT_BROKER);
  try {
    brokerAddress(broker);
  } catch (error) {
    fail(error.message);
  }
  const prefix = values.prefix ?? (process.env.PLC_TOPIC_PREFIX || DEFAULT_PREFIX);
  if (prefix === '' || /[+#\0]/u.test(prefix)) fail(`--prefix must be a topic name without wildcards, got ${JSON.stringify(prefix)}`);
  const intervalMs = Number(values['interval-ms']);
  if (!Number.isInteger(intervalMs) || intervalMs < 10) fail('--interval-ms must be a whole number >= 10');
  const ramp = Number(values.ramp);
  if (!Number.isFinite(ramp) || ramp <= 0) fail('--ramp must be a number > 0');
  if (values.log !== 'json' && values.log !== 'plain') fail(`--log must be json or plain, got ${JSON.stringify(values.log)}`);
  return { broker, prefix, intervalMs, ramp, log: values.log };
}

/** pino's levels and line shape (level, time, pid, hostname, msg), or a plain line. */
function logger(format) {
  const base = { pid: process.pid, hostname: hostname(), name: 'mqtt-plc' };
  const line = (level, label) => (fields, msg) => {
    const text =
      format === 'json'
        ? JSON.stringify({ level, time: Date.now(), ...base, ...fields, msg })
        : `${new Date().toISOString()} ${label} ${msg}${Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''}`;
    process.stdout.write(`${text}\n`);
  };
  return { info: line(30, 'INFO'), warn: line(40, 'WARN') };
}

/** The transfer unit: speed ramps towards the setpoint, belt travel moves parts past the barrier. */
class TransferUnit {
  speed = 0;
  setpoint = 0;
  // Starts between two parts, so the barrier is free until the belt moves.
  position = 0.5;

  constructor(ramp) {
    this.ramp = ramp;
  }

  /** Advances simulated time by `seconds` (the interval, not the wall clock: runs are repeatable). */
  step(seconds) {
    const delta = this.setpoint - this.speed;
    const most = this.ramp * seconds;
    this.speed = Math.abs(delta) <= most ? this.setpoint : this.speed + Math.sign(delta) * most;
    this.speed = Math.round(this.speed * 1e6) / 1e6;
    this.position += this.speed * seconds;
  }

  get occupied() {
    return this.position % 1 < PART_LENGTH;
  }
}

/** The setpoint in a payload (the JSON envelope or a bare number), or why there is none. */
function setpointOf(payload) {
  let parsed;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return { reason: 'payload is not JSON' };
  }
  const value = typeof parsed === 'number' ? parsed : parsed?.data?.value;
  if (typeof value !== 'number' || !Number.isFinite(value)) return { reason: 'no number at data.value' };
  if (value < 0 || value > MAX_SPEED) return { reason: `speed must be between 0 and ${MAX_SPEED} m/s` };
  return { value };
}

const options = readOptions();
const log = logger(options.log);
const topic = (name) => `${options.prefix}/${TOPICS[name]}`;
const unit = new TransferUnit(options.ramp);
const client = mqtt.connect(options.broker, { clientId: `mqtt-plc-${process.pid}`, reconnectPeriod: 1000 });

client.on('connect', () => {
  log.info({ broker: options.broker, prefix: options.prefix }, 'connected');
  client.subscribe(topic('speedSet'), { qos: 1 });
});
client.on('reconnect', () => log.info({}, 'reconnecting'));
client.on('offline', () => log.warn({}, 'broker unreachable'));
client.on('error', (error) => log.warn({ err: error.message }, 'connection error'));
client.on('message', (_topic, payload) => {
  const { value, reason } = setpointOf(payload);
  if (reason !== undefined) return log.warn({ reason }, 'setpoint refused');
  unit.setpoint = value;
  log.info({ setpoint: value }, 'setpoint accepted');
});

/** One cycle: advance the simulation, publish both readings (dropped while offline). */
function publishReadings() {
  unit.step(options.intervalMs / 1000);
  if (!client.connected) return;
  const envelope = { data: { value: unit.speed, unit: 'm/s' }, ts: new Date().toISOString() };
  client.publish(topic('speed'), JSON.stringify(envelope));
  client.publish(topic('occupied'), String(unit.occupied));
}
const timer = setInterval(publishReadings, options.intervalMs);

function stop(signal) {
  clearInterval(timer);
  client.end(false, {}, () => {
    log.info({ signal }, 'stopped');
    process.exit(0);
  });
}
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    // A second signal quits at once.
    process.once(signal, () => process.exit(1));
    stop(signal);
  });
}
