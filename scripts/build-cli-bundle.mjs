// Part of `npm run build`, after tsc: bundles the CLI that bin/semantic-sidecar.js runs into
// dist/cli-bundle/ with esbuild. A command then loads a few files instead of some 700 modules,
// each resolved, read and compiled on its own: resolution and per-module work were most of a
// sidecar's start-up. Commands stay lazy: every `import()` of dist/ becomes a chunk of its own,
// loaded only when that command runs. The library (dist/index.js and its subpaths) is not bundled.
//
// Kept external (loaded from node_modules as before): packages loaded only on some paths and
// heavy (node-opcua, Comunica, OpenTelemetry's SDK, mqtt: a CommonJS package that the code
// loads with import(), which a bundle would answer with its default export alone, where Node
// gives its named exports too), packages that read files next to their own
// code at run time (oxigraph's WebAssembly, pino's transport worker, ajv's runtime helpers that
// the generated config validator requires), and devDependencies.
//
// The chunks sit at dist/cli-bundle/, as deep as dist/<folder>/<module>.js, so paths that the
// modules build from import.meta.url (../../ontology/, ../../package.json) point where they did.
// meta.json is esbuild's metafile: which modules and packages each chunk holds, for tests that
// check what a command loads.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { GENERATED_VALIDATOR } from '../dist/sidecar/config-schema.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BUNDLE_DIR = fileURLToPath(new URL('../dist/cli-bundle/', import.meta.url));

// Transitive packages left external, each with a package that depends on it: the bundle finds
// them only where npm hoisted them, so the build checks that this is the copy their dependents use.
const TRANSITIVE_EXTERNALS = { 'iconv-lite': 'body-parser', 'mime-db': 'mime-types' };

const EXTERNAL = [
  'node-opcua*',
  '@comunica/*',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  'mqtt',
  'undici',
  'oxigraph',
  'pino',
  'pino-pretty',
  'thread-stream',
  'ajv',
  'ajv/*',
  'playwright-core',
  // Loaded from node_modules although only express's dependencies use them: iconv-lite's 529 KB
  // of encodings are never used, and mime-db's table parses faster as JSON than as bundled code.
  ...Object.keys(TRANSITIVE_EXTERNALS),
];

rmSync(BUNDLE_DIR, { recursive: true, force: true });
mkdirSync(BUNDLE_DIR, { recursive: true });
const result = await build({
  entryPoints: [fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))],
  outdir: BUNDLE_DIR,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  metafile: true,
  // The metafile names inputs and outputs relative to this, the project root.
  absWorkingDir: ROOT,
  logLevel: 'warning',
  // N3 as ES modules (its `module` entry) rather than its CommonJS build, so that the parts no
  // command uses are left out: its Store and stream classes, and the streams library they bring.
  alias: { n3: 'n3/src/index.js' },
  // CommonJS packages inside an ES module bundle still call require() for Node's own modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);" },
});
writeFileSync(new URL('meta.json', `file://${BUNDLE_DIR}`), JSON.stringify(result.metafile));
const fromBundle = createRequire(`${BUNDLE_DIR}main.js`);
for (const [name, dependent] of Object.entries(TRANSITIVE_EXTERNALS)) {
  const used = createRequire(fromBundle.resolve(dependent)).resolve(name);
  if (fromBundle.resolve(name) !== used) {
    throw new Error(`the CLI bundle would load ${fromBundle.resolve(name)}, but ${dependent} uses ${used}: ${name} is not hoisted`);
  }
}
// src/sidecar/config-validator.ts looks for the generated validator next to its own module.
copyFileSync(fileURLToPath(new URL(`../dist/sidecar/${GENERATED_VALIDATOR}`, import.meta.url)), `${BUNDLE_DIR}${GENERATED_VALIDATOR}`);
