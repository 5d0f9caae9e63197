// Child process of the embedded store's crash test (plain JS: child processes do not go through
// ts-jest). Opens a durable store and writes until killed, printing `ack <id>` once a write's
// promise resolved, i.e. once the store claims it is on disk. Several writers run at once so that
// group commits and compactions (a tiny threshold) are in progress when the kill lands.
// Usage: node embedded-crash-writer.mjs <compiled embedded-store.js> <data dir> <round> <writers>
import { pathToFileURL } from 'node:url';

const [modulePath, dataDir, round = '0', writers = '4'] = process.argv.slice(2);
const { openEmbeddedStore } = await import(pathToFileURL(modulePath).href);
const store = await openEmbeddedStore({ dataDir, compactAfterBytes: 4096 });
process.stdout.write('ready\n');

let next = 0;
async function writer() {
  for (;;) {
    const id = `${round}-${next++}`;
    // A padded literal makes entries big enough to compact often.
    await store.update(
      `INSERT DATA { GRAPH <urn:test:crash> { <urn:test:w:${id}> <urn:test:p:id> "${id}" ; <urn:test:p:pad> "${'x'.repeat(200)}" } }`,
    );
    process.stdout.write(`ack ${id}\n`);
  }
}
await Promise.all(Array.from({ length: Number(writers) }, writer));
