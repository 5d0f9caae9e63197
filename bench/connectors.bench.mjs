// The MQTT connectors against a real Mosquitto: a SemanticMiddleware in this process (embedded
// store, silent log) holding PARAMS generated MQTT parameters on one broker. Rows, each beside
// its reference measured in the same run: publish-to-visible latency (publish on a read topic,
// poll GET /parameters/{name} on one keep-alive connection until it shows the value) beside a
// bare mqtt.js publish -> subscriber round trip and one GET; setpoint latency (PUT on the route
// until the message arrives on the set topic) beside a bare QoS 1 publish -> subscriber; and
// the memory PARAMS parameters cost once recognized and connected, beside a middleware with none
// and a bare mqtt.js client subscribed to as many topics.
// Uses MQTT_URL when set; otherwise starts a private broker with scripts/mosquitto.sh (stopped
// whatever happens) and skips, saying why, when mosquitto cannot be installed.
// Env: BENCH_N (default 300), BENCH_PARAMS (1000), BENCH_TIMEOUT_S (300).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import mqtt from 'mqtt';
import { createLogger } from '../dist/lib/logger.js';
import { SemanticMiddleware } from '../dist/middleware/index.js';
import { OGM } from '../dist/ogm/index.js';
import { BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE } from '../dist/ontology/files.js';
import { provisionOntology } from '../dist/ontology/provision.js';
import { openEmbeddedStore } from '../dist/store/embedded-store.js';
import { inf, ONTOLOGY_GRAPHS, plant } from '../dist/vocab/index.js';
import { envInt, jsonClient, median, ROOT } from './sidecar-support.mjs';
import { writeResults } from './results.mjs';
import { round, row } from './support.mjs';

const N = envInt('BENCH_N', 300);
const PARAMS = envInt('BENCH_PARAMS', 1000, 2);
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_S', 300) * 1000;
const GRAPH = 'urn:bench:connectors';
const UNIT = 'https://example.org/bench#unit1';
const EX = 'https://example.org/bench#';
const MOSQUITTO = join(ROOT, 'scripts', 'mosquitto.sh');
const MEMORY_RUNS = 3;
const SETTLE_MS = 500;

// Exact heap figures need a full collection between readings; --expose-gc at run time.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

/** MQTT_URL, or a private broker from scripts/mosquitto.sh with its `stop`; undefined when it cannot start. */
async function broker() {
  if (process.env.MQTT_URL) return { url: process.env.MQTT_URL, origin: 'MQTT_URL', stop: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), 'bench-mosquitto-'));
  const env = { ...process.env, MOSQUITTO_DIR: dir };
  const stop = async () => {
    await promisify(execFile)('bash', [MOSQUITTO, 'stop'], { env }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const { stdout } = await promisify(execFile)('bash', [MOSQUITTO, 'start'], { env });
    const url = /MQTT_URL=(\S+)/u.exec(stdout)?.[1];
    if (url === undefined) throw new Error(`no MQTT_URL in ${JSON.stringify(stdout)}`);
    return { url, origin: 'scripts/mosquitto.sh', stop };
  } catch (error) {
    await stop();
    console.log(
      `connectors benchmark skipped: mosquitto could not be installed or started (${String(error.stderr || error.message).trim()})`,
    );
    return undefined;
  }
}

/** Turtle of the bench's parameters: every other one readwrite with a JSON envelope, the rest read-only raw floats. */
function parametersTurtle(count, { host, port }) {
  const lines = [
    `<${inf.isInterfaceAccessibleMQTTParameter}> <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> <${inf.isInterfaceAccessibleParameter}> .`,
  ];
  for (let i = 0; i < count; i++) {
    const property = `${EX}p${i}`;
    const writable = i % 2 === 0;
    lines.push(
      `<${property}> <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> <${inf.isInterfaceAccessibleMQTTParameter}> ;`,
      `  <http://www.w3.org/2000/01/rdf-schema#range> [ <http://www.w3.org/2002/07/owl#onProperty> <${inf.hasValue}> ; <http://www.w3.org/2002/07/owl#allValuesFrom> <http://www.w3.org/2001/XMLSchema#float> ] .`,
      `<${UNIT}> <${property}> [ <${inf.accessMode}> "${writable ? 'readwrite' : 'read'}" ; <${inf.hasMQTTTopic}> "bench/${i}" ;`,
      writable ? `  <${inf.hasMQTTSetTopic}> "bench/${i}/set" ; <${inf.hasMQTTValuePath}> "data.value" ;` : '',
      `  <${inf.hasMQTTBrokerIP}> "${host}" ; <${inf.hasMQTTBrokerPort}> ${port} ] .`,
    );
  }
  return lines.join('\n');
}

/** Heap used after full collections and RSS, in MB, once closed sockets and timers have let go. */
async function memory() {
  await sleep(SETTLE_MS);
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed / 2 ** 20, rss: rss / 2 ** 20 };
}

/**
 * What `start` adds to the heap and RSS until `stop(kept)`, median of MEMORY_RUNS runs; the
 * last run's `kept` is returned still running when `keep` is set.
 */
async function memoryAdded(start, stop, { keep = false } = {}) {
  const heap = [];
  const rss = [];
  let kept;
  for (let i = 0; i < MEMORY_RUNS; i++) {
    const before = await memory();
    kept = await start();
    const after = await memory();
    heap.push(after.heap - before.heap);
    rss.push(after.rss - before.rss);
    if (!keep || i < MEMORY_RUNS - 1) await stop(kept);
  }
  return { kept, heap: median(heap), rss: median(rss) };
}

/** Resolves once `probe` answers true, checking every 20 ms. */
async function until(probe, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** A started middleware for `resource` on `store`, ready (every broker connected). */
async function startedMiddleware(store, resource) {
  const mw = new SemanticMiddleware({
    resourceIri: resource,
    serviceClass: plant.MonitorService,
    ogm: new OGM({ store, graph: GRAPH, shapesGraph: ONTOLOGY_GRAPHS.shapes }),
    port: 0,
    heartbeatInterval: null,
    logger: createLogger({ level: 'silent' }),
  });
  await mw.start();
  await until(async () => (await fetch(`${mw.address}/readyz`)).status === 200, 'readiness');
  return mw;
}

/** Messages of `client` by topic, each with the time it arrived; `next(topic, payload)` waits for one. */
function arrivals(client) {
  const waiting = new Map();
  client.on('message', (topic, payload) => {
    const key = `${topic}\n${payload.toString('utf8')}`;
    waiting.get(key)?.(performance.now());
    waiting.delete(key);
  });
  return {
    next: (topic, payload) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no message on ${topic} within 10 s`)), 10_000);
        waiting.set(`${topic}\n${payload}`, (at) => (clearTimeout(timer), resolve(at)));
      }),
  };
}

/** Publish on a read topic, then poll the parameter's route until it shows the value. */
async function publishToVisible(publisher, http) {
  const ms = [];
  const polls = [];
  for (let i = 0; i < N + 20; i++) {
    const value = i + 0.5;
    const t = performance.now();
    publisher.publish('bench/0', JSON.stringify({ data: { value } }));
    let n = 0;
    while ((await http.get('/parameters/p0')).value !== value) n += 1;
    if (i >= 20) {
      ms.push(performance.now() - t);
      polls.push(n + 1);
    }
  }
  return { ms, polls };
}

/** A bare mqtt.js publish, timed to the subscriber's message (the broker's round trip). */
async function bareRoundTrip(publisher, watch, topic, qos) {
  const ms = [];
  for (let i = 0; i < N + 20; i++) {
    const payload = `ref-${qos}-${i}`;
    const arrived = watch.next(topic, payload);
    const t = performance.now();
    publisher.publish(topic, payload, { qos });
    const at = await arrived;
    if (i >= 20) ms.push(at - t);
  }
  return ms;
}

/** PUT a setpoint on the route, timed to its arrival on the set topic and to the answer. */
async function setpointLatency(http, watch) {
  const arrival = [];
  const answer = [];
  for (let i = 0; i < N + 20; i++) {
    const value = i + 0.25;
    const arrived = watch.next('bench/0/set', JSON.stringify({ data: { value } }));
    const t = performance.now();
    const res = await http.client.request({
      method: 'PUT',
      path: '/parameters/p0',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value }),
    });
    await res.body.text();
    const answered = performance.now();
    if (res.statusCode !== 200) throw new Error(`PUT /parameters/p0 -> ${res.statusCode}`);
    const at = await arrived;
    if (i >= 20) {
      arrival.push(at - t);
      answer.push(answered - t);
    }
  }
  return { arrival, answer };
}

/** Timed GET /parameters/p0 alone: the floor of the polling in {@link publishToVisible}. */
async function oneGet(http) {
  const ms = [];
  for (let i = 0; i < N + 20; i++) {
    const t = performance.now();
    await http.get('/parameters/p0');
    if (i >= 20) ms.push(performance.now() - t);
  }
  return ms;
}

/** The memory section: a middleware without parameters, one with PARAMS, a bare client with PARAMS subscriptions. */
async function memoryRows(store, connect) {
  // Each once unmeasured: a first start also pays for code (bytecode, compiled functions) that
  // every later one shares.
  for (const resource of [plant.door1, UNIT]) await (await startedMiddleware(store, resource)).stop();
  const stopMiddleware = (mw) => mw.stop();
  const none = await memoryAdded(() => startedMiddleware(store, plant.door1), stopMiddleware);
  const many = await memoryAdded(() => startedMiddleware(store, UNIT), stopMiddleware, { keep: true });
  const bare = await memoryAdded(
    async () => {
      const client = await connect();
      await client.subscribeAsync(
        Array.from({ length: PARAMS }, (_, i) => `bench/${i}`),
        { qos: 0 },
      );
      return client;
    },
    (client) => client.endAsync(true),
  );
  const mb = (m) => ({ heap_MB: m.heap, rss_MB: m.rss });
  return {
    mw: many.kept,
    rows: [
      { name: `middleware with ${PARAMS} MQTT parameters: start (recognize, connect, subscribe)`, ...mb(many) },
      { name: 'reference: middleware with no parameter: start', ...mb(none) },
      {
        name: `difference: ${PARAMS} parameters`,
        heap_MB: many.heap - none.heap,
        rss_MB: many.rss - none.rss,
        note: `${round(((many.heap - none.heap) * 1024) / PARAMS)} KiB heap per parameter`,
      },
      { name: `reference: bare mqtt.js client subscribed to ${PARAMS} topics`, ...mb(bare) },
    ].map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]))),
  };
}

async function measure(url) {
  const { hostname: host, port } = new URL(url);
  const store = await openEmbeddedStore({});
  const clients = [];
  const connect = async () => {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
    clients.push(client);
    return client;
  };
  let mw;
  let http;
  try {
    await provisionOntology(store, { files: [...BUNDLED_ONTOLOGY_FILES, EXAMPLE_PLANT_FILE] });
    await store.load(parametersTurtle(PARAMS, { host, port: Number(port || 1883) }), { graph: GRAPH, format: 'text/turtle' });
    const memorySection = await memoryRows(store, connect);
    mw = memorySection.mw;
    http = jsonClient({ address: mw.address });
    const publisher = await connect();
    const subscriber = await connect();
    await subscriber.subscribeAsync(['bench/ref', 'bench/0/set'], { qos: 1 });
    const watch = arrivals(subscriber);

    const visible = await publishToVisible(publisher, http);
    const get = await oneGet(http);
    const bare0 = await bareRoundTrip(publisher, watch, 'bench/ref', 0);
    const setpoint = await setpointLatency(http, watch);
    const bare1 = await bareRoundTrip(publisher, watch, 'bench/ref', 1);
    return [
      {
        title: 'publish to visible',
        rows: [
          row('publish -> GET /parameters/{name} shows it', visible.ms, { note: `median ${median(visible.polls)} GETs polled` }),
          row('reference: mqtt.js publish -> subscriber (QoS 0, same broker)', bare0),
          row('reference: one GET /parameters/{name}', get, { note: 'keep-alive, loopback' }),
        ],
      },
      {
        title: 'setpoint',
        rows: [
          row('PUT /parameters/{name} -> message on the set topic', setpoint.arrival),
          row('  PUT answered', setpoint.answer, { note: 'after the broker acknowledged (QoS 1)' }),
          row('reference: mqtt.js publish -> subscriber (QoS 1, same broker)', bare1),
        ],
      },
      {
        title: `memory per ${PARAMS} parameters`,
        meta: {
          measured: `heap used after two full GCs, and RSS, before and after; median of ${MEMORY_RUNS} runs`,
          note: 'RSS moves by whole allocator pages and what the GC returns to the system; the heap is the figure to compare',
        },
        rows: memorySection.rows,
      },
    ];
  } finally {
    http?.close();
    await mw?.stop();
    await Promise.all(clients.map((c) => c.endAsync(true)));
    await store.close();
  }
}

export async function run() {
  const load = loadavg()[0];
  const found = await broker();
  if (found === undefined) return { ok: true, skipped: true };
  let timer;
  try {
    const timeout = new Promise(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error(`the connectors benchmark took longer than ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS)),
    );
    const sections = await Promise.race([measure(found.url), timeout]);
    const meta = {
      broker: `Mosquitto on loopback (${found.origin})`,
      middleware: `in this process, embedded store in memory, ${PARAMS} MQTT parameters of one resource on one broker, silent log`,
      N,
      cpus: `${cpus().length}, shared: load average ${round(load)} at start, ${round(loadavg()[0])} at end`,
    };
    writeResults('connectors', { meta, sections });
    return { ok: true };
  } finally {
    clearTimeout(timer);
    await found.stop();
  }
}
