/**
 * The suite runs as native ESM: rdf-validate-shacl and its RDF/JS helpers ship ESM only, and
 * CommonJS Jest cannot load them. Type checking is done once by `tsc` in `npm test`, so ts-jest
 * only transpiles.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // undici: the project's own (7.x) for every importer, Comunica's HTTP actor included, whose
  // undici 8 does not load on Node 20 (src/federation/comunica-engine.ts does the same at run time).
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', '^undici$': '<rootDir>/node_modules/undici/index.js' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  // V8's own coverage: no instrumentation pass over the ESM sources. Child processes (the CLI
  // and sidecars the e2e and fault suites spawn) are not counted, so the figures are a floor.
  coverageProvider: 'v8',
  collectCoverageFrom: ['<rootDir>/src/**/*.ts'],
  coverageReporters: ['text-summary', 'json-summary'],
  // Measured with the remote-store suites on Virtuoso: lines 86.3%, branches 92.1%. Without
  // SPARQL_ENDPOINT the remote store's code does not run, hence the floor a little lower.
  coverageThreshold: { global: { lines: 83, branches: 89 } },
};
