#!/usr/bin/env node
// Prints transfer-unit.ttl as N-Triples for another broker or topic prefix, so that a sidecar
// recognizes the PLC wherever it publishes (a compose network, a test broker on a free port).
// Everything else in the graph is left as it is. See README.md beside this file.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DataFactory, Parser, Writer } from 'n3';
import { brokerAddress, DEFAULT_BROKER, DEFAULT_PREFIX } from './topics.mjs';

const USAGE = `Usage: node ontology.mjs [--broker URL] [--prefix TOPIC_PREFIX] [--out FILE.nt]
  --broker   the PLC's broker, mqtt://host:port (default $MQTT_URL, else ${DEFAULT_BROKER})
  --prefix   the PLC's topic prefix (default $PLC_TOPIC_PREFIX, else ${DEFAULT_PREFIX})
  --out      write the N-Triples to this file (default: stdout)`;

const INF = 'https://www.sfb1574.kit.edu/ontologies/CrcInterfaces#';
const XSD_INTEGER = 'http://www.w3.org/2001/XMLSchema#integer';
const SOURCE = new URL('./transfer-unit.ttl', import.meta.url);

function fail(message) {
  process.stderr.write(`ontology: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: { broker: { type: 'string' }, prefix: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean' } },
  }));
} catch (error) {
  fail(error.message);
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
let broker;
try {
  broker = brokerAddress(options.broker ?? (process.env.MQTT_URL || DEFAULT_BROKER));
} catch (error) {
  fail(error.message);
}
const prefix = options.prefix ?? (process.env.PLC_TOPIC_PREFIX || DEFAULT_PREFIX);
if (prefix === '' || /[+#\0]/u.test(prefix)) fail(`--prefix must be a topic name without wildcards, got ${JSON.stringify(prefix)}`);

const { literal, namedNode, quad } = DataFactory;
/** The object a metadata triple gets for this broker and prefix; other triples keep theirs. */
const rewrite = {
  [`${INF}hasMQTTBrokerIP`]: () => literal(broker.host),
  [`${INF}hasMQTTBrokerPort`]: () => literal(String(broker.port), namedNode(XSD_INTEGER)),
  [`${INF}hasMQTTTopic`]: (o) => literal(withPrefix(o.value)),
  [`${INF}hasMQTTSetTopic`]: (o) => literal(withPrefix(o.value)),
};

function withPrefix(topic) {
  return topic.startsWith(`${DEFAULT_PREFIX}/`) ? prefix + topic.slice(DEFAULT_PREFIX.length) : topic;
}

const quads = new Parser({ baseIRI: SOURCE.href }).parse(readFileSync(SOURCE, 'utf8'));
const rewritten = quads.map((q) => {
  const change = rewrite[q.predicate.value];
  return change ? quad(q.subject, q.predicate, change(q.object), q.graph) : q;
});
const text = new Writer({ format: 'N-Triples' }).quadsToString(rewritten);
if (options.out) writeFileSync(options.out, text);
else process.stdout.write(text);
