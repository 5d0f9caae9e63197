import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ValueError } from '../../src/errors.js';
import { openStore, parseStoreUrl } from '../../src/store/open-store.js';

const tmp = mkdtempSync(join(tmpdir(), 'sm-open-store-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const URL_ = 'http://127.0.0.1:8890/sparql';

describe('parseStoreUrl', () => {
  it('should read "memory" as the ephemeral embedded store', () => {
    expect(parseStoreUrl('memory', {})).toEqual({ kind: 'memory' });
  });

  it('should read an http(s) URL as a remote store updating at the same URL', () => {
    expect(parseStoreUrl(URL_, {})).toEqual({ kind: 'remote', queryUrl: URL_, updateUrl: URL_ });
    expect(parseStoreUrl('https://kg.example.org/repositories/plant', {})).toMatchObject({
      kind: 'remote',
      queryUrl: 'https://kg.example.org/repositories/plant',
    });
  });

  it('should take the update URL, user, password and timeout from the environment', () => {
    const env = {
      SPARQL_UPDATE_URL: 'http://127.0.0.1:8890/update',
      SPARQL_USER: 'sm',
      SPARQL_PASSWORD: 'pw-1234',
      SPARQL_TIMEOUT_MS: '5000',
    };
    expect(parseStoreUrl(URL_, env)).toEqual({
      kind: 'remote',
      queryUrl: URL_,
      updateUrl: 'http://127.0.0.1:8890/update',
      user: 'sm',
      password: 'pw-1234',
      timeoutMs: 5000,
    });
  });

  it('should read the password from SPARQL_PASSWORD_FILE without its trailing newline', () => {
    const file = join(tmp, 'secret');
    writeFileSync(file, 'from-file-pw\n');
    expect(parseStoreUrl(URL_, { SPARQL_USER: 'sm', SPARQL_PASSWORD_FILE: file })).toMatchObject({ user: 'sm', password: 'from-file-pw' });
  });

  it('should prefer SPARQL_PASSWORD over the password file', () => {
    expect(parseStoreUrl(URL_, { SPARQL_PASSWORD: 'direct', SPARQL_PASSWORD_FILE: join(tmp, 'missing') })).toMatchObject({
      password: 'direct',
    });
  });

  it('should refuse an unreadable password file, naming the file', () => {
    const file = join(tmp, 'does-not-exist');
    expect(() => parseStoreUrl(URL_, { SPARQL_PASSWORD_FILE: file })).toThrow(ValueError);
    expect(() => parseStoreUrl(URL_, { SPARQL_PASSWORD_FILE: file })).toThrow(/SPARQL_PASSWORD_FILE.*does-not-exist.*ENOENT/u);
  });

  it('should move credentials out of the URL', () => {
    expect(parseStoreUrl('http://alice:p%40ss@127.0.0.1:8890/sparql', {})).toEqual({
      kind: 'remote',
      queryUrl: URL_,
      updateUrl: URL_,
      user: 'alice',
      password: 'p@ss',
    });
  });

  it('should read a path or a file: URL as the data directory of an embedded store', () => {
    expect(parseStoreUrl('./data/store', {})).toEqual({ kind: 'embedded', dataDir: './data/store' });
    expect(parseStoreUrl('/var/lib/semantic-sidecar', {})).toEqual({ kind: 'embedded', dataDir: '/var/lib/semantic-sidecar' });
    expect(parseStoreUrl(pathToFileURL('/var/lib/sm store').href, {})).toEqual({ kind: 'embedded', dataDir: '/var/lib/sm store' });
  });

  it.each(['', '   ', 'ftp://host/x', 'redis://localhost:6379'])('should refuse %j', (text) => {
    expect(() => parseStoreUrl(text, {})).toThrow(ValueError);
  });

  it('should refuse a timeout that is not a positive integer', () => {
    expect(() => parseStoreUrl(URL_, { SPARQL_TIMEOUT_MS: 'soon' })).toThrow(/SPARQL_TIMEOUT_MS/u);
    expect(() => parseStoreUrl(URL_, { SPARQL_TIMEOUT_MS: '0' })).toThrow(ValueError);
  });
});

describe('openStore', () => {
  it('should open an in-memory embedded store', async () => {
    const store = await openStore({ kind: 'memory' });
    await store.update('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "o" } }');
    expect(await store.ask('ASK { GRAPH <urn:g> { <urn:s> <urn:p> "o" } }')).toBe(true);
    await store.close();
  });

  it('should open a durable embedded store in a data directory', async () => {
    const dataDir = join(tmp, 'embedded');
    const store = await openStore({ kind: 'embedded', dataDir });
    await store.update('INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> "kept" } }');
    await store.close();
    const again = await openStore(parseStoreUrl(dataDir, {}));
    expect(await again.ask('ASK { GRAPH <urn:g> { <urn:s> <urn:p> "kept" } }')).toBe(true);
    await again.close();
  });

  it('should open a remote store without contacting it, credentials kept out of its description', async () => {
    const store = await openStore(parseStoreUrl('http://bob:hunter2-pw@127.0.0.1:9/sparql', {}));
    expect(store.description).toContain('http://127.0.0.1:9/sparql');
    expect(store.description).not.toMatch(/bob|hunter2/u);
    expect(store.requestCount).toBe(0);
    await store.close();
  });
});
