// The steps of `npm run build` that follow tsc, in order (test/support/build.ts runs them too):
// the generated config validator first, since the CLI bundle carries a copy of it.
await import('./build-config-validator.mjs');
await import('./build-cli-bundle.mjs');
