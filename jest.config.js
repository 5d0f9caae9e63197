/**
 * The suite runs as native ESM: rdf-validate-shacl and its RDF/JS helpers ship ESM only, and
 * CommonJS Jest cannot load them. Type checking is done once by `tsc` in `npm test`, so ts-jest
 * only transpiles.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
