// `npm run bench`: runs every benchmark (or those named on the command line) against the built
// package; each writes bench/results/<name>-<timestamp>.json and <name>-latest.md and prints its
// table (results.mjs). A benchmark whose checks failed (the load test's audit, a heartbeat-scale
// correctness check) makes the command exit 1 after the others ran.
const all = {
  ogm: () => import('./ogm.bench.mjs'),
  registration: () => import('./registration.bench.mjs'),
  sidecar: () => import('./sidecar.bench.mjs'),
  load: () => import('./load.bench.mjs'),
  dispatch: () => import('./dispatch.bench.mjs'),
  trigger: () => import('./trigger.bench.mjs'),
  'store-client': () => import('./store-client.bench.mjs'),
  'heartbeat-scale': () => import('./heartbeat-scale.bench.mjs'),
  connectors: () => import('./connectors.bench.mjs'),
  opcua: () => import('./opcua.bench.mjs'),
  'cli-start': () => import('./cli-start.bench.mjs'),
  memory: () => import('./memory.bench.mjs'),
};
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(all);
for (const name of names) {
  if (!all[name]) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(all).join(', ')}`);
}
const failed = [];
for (const name of names) {
  const result = await (await all[name]()).run();
  if (result?.ok === false) failed.push(name);
}
if (failed.length > 0) {
  console.error(`benchmark checks failed: ${failed.join(', ')} (see the tables above)`);
  process.exitCode = 1;
}
