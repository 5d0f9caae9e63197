import { describe, expect, it } from '@jest/globals';

// Every runtime dependency must load under the suite's module format: the ESM-only ones
// (rdf-validate-shacl) fail here first if the format is wrong.
describe('module format', () => {
  it.each(['oxigraph', 'sparql-http-client', 'rdf-validate-shacl', 'n3', 'pino', 'commander'])('should import %s', async (name) => {
    const mod: unknown = await import(name);
    expect(mod).toBeDefined();
  });
});
