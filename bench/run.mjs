// `npm run bench`: runs every benchmark (or those named on the command line) against the built
// package and writes each result to bench/results/<name>.json.
const all = {
  ogm: () => import('./ogm.bench.mjs'),
  registration: () => import('./registration.bench.mjs'),
  sidecar: () => import('./sidecar.bench.mjs'),
};
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(all);
for (const name of names) {
  if (!all[name]) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(all).join(', ')}`);
  await (await all[name]()).run();
}
