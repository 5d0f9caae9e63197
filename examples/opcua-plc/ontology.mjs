#!/usr/bin/env node
// Prints transfer-unit.ttl as N-Triples for another endpoint (a compose network, a test server on
// a free port), optionally with a security mode: every sm:hasOPCUAEndpoint is replaced, the rest
// of the graph is left as it is. See README.md beside this file.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DataFactory, Parser, Writer } from 'n3';

const USAGE = `Usage: node ontology.mjs [--endpoint URL] [--secure] [--out FILE.nt]
  --endpoint   the PLC's endpoint, opc.tcp://host:port/path (default $OPCUA_ENDPOINT, else opc.tcp://127.0.0.1:4840/UA/PLC)
  --secure     declare security mode SignAndEncrypt with policy Basic256Sha256 (default: None)
  --out        write the N-Triples to this file (default: stdout)`;

const SM = 'https://w3id.org/semantic-middleware#';
const SOURCE = new URL('./transfer-unit.ttl', import.meta.url);

function fail(message) {
  process.stderr.write(`ontology: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      endpoint: { type: 'string' },
      secure: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  }));
} catch (error) {
  fail(error.message);
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const endpoint = options.endpoint ?? (process.env.OPCUA_ENDPOINT || 'opc.tcp://127.0.0.1:4840/UA/PLC');
if (!/^opc\.tcp:\/\/[^\s/]+(\/\S*)?$/u.test(endpoint)) fail(`--endpoint must be an opc.tcp:// URL, got ${JSON.stringify(endpoint)}`);

const { namedNode, literal, quad } = DataFactory;
const out = [];
for (const q of new Parser().parse(readFileSync(SOURCE, 'utf8'))) {
  if (q.predicate.value !== `${SM}hasOPCUAEndpoint`) {
    out.push(q);
    continue;
  }
  out.push(quad(q.subject, q.predicate, literal(endpoint, q.object.datatype)));
  if (options.secure) {
    out.push(quad(q.subject, namedNode(`${SM}hasOPCUASecurityMode`), literal('SignAndEncrypt')));
    out.push(quad(q.subject, namedNode(`${SM}hasOPCUASecurityPolicy`), literal('Basic256Sha256')));
  }
}
const text = new Writer({ format: 'N-Triples' }).quadsToString(out);
if (options.out === undefined) process.stdout.write(text);
else writeFileSync(options.out, text);
