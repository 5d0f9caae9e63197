import { getHeapStatistics } from 'node:v8';
const Orig = WebAssembly.Instance; const mems = [];
WebAssembly.Instance = function (m, i) { const inst = new Orig(m, i); if (inst.exports.memory) mems.push(inst.exports.memory); return inst; };
WebAssembly.Instance.prototype = Orig.prototype;
const { Store } = await import('oxigraph');
const mem = mems.at(-1);
const s = new Store();
let seen = 0, grows = 0, last = mem.buffer.byteLength;
const ext = () => getHeapStatistics().external_memory;
const pad = 'y'.repeat(100);
for (let i = 0; i < 20000; i++) {
  const a = ext();
  s.update(`INSERT DATA { GRAPH <urn:g> { <urn:s${i}> <urn:p> "${pad}${i}" . <urn:s${i}> <urn:q> "${i}" } }`);
  if (i % 7 === 0) s.query(`SELECT * WHERE { GRAPH <urn:g> { ?s ?p ?o } } LIMIT 50`, { results_format: 'application/sparql-results+json' });
  const d = ext() - a; if (d > 0) seen += d;
  const n = mem.buffer.byteLength; if (n !== last) { grows++; last = n; }
  if (i % 4000 === 0 || i === 19999) console.log(i, 'wasm', (n / 1048576).toFixed(1), 'MB; grows', grows, '; seen growth', (seen / 1048576).toFixed(1), 'MB; external', (ext() / 1048576).toFixed(1));
}
