import { describe, expect, it } from '@jest/globals';
import { configFixture } from './support/config-fixture.js';
import { join } from 'node:path';
import { LIMITS } from '../../src/limits.js';
import { describeConfig, storeSpecOf } from '../../src/sidecar/config.js';

const { dir, write, load, problems } = configFixture('sm-config-secrets-');

const R = 'https://example.org/plant#door1';

describe('loadSidecarConfig stores and secrets', () => {
  const secret = 'pw-Zx81-secret';
  const passwordFile = write('secrets/sparql', `${secret}\n`);

  it('should read a remote store with its update URL, user and password file', async () => {
    const file = write(
      'remote.yaml',
      `resource: ${R}\nstore:\n  url: http://kg:8890/sparql\n  updateUrl: http://kg:8890/update\n  user: sm\n  passwordFile: secrets/sparql\n`,
    );
    const config = await load({ file });
    expect(config.store).toEqual({
      url: 'http://kg:8890/sparql',
      updateUrl: 'http://kg:8890/update',
      user: 'sm',
      passwordFile,
      password: secret,
      timeoutMs: LIMITS.remoteRequestTimeoutMs,
    });
    expect(config.provisionOntology).toBe(false);
    expect(storeSpecOf(config.store)).toEqual({
      kind: 'remote',
      queryUrl: 'http://kg:8890/sparql',
      updateUrl: 'http://kg:8890/update',
      user: 'sm',
      password: secret,
      timeoutMs: LIMITS.remoteRequestTimeoutMs,
    });
    expect(JSON.stringify(describeConfig(config))).not.toContain(secret);
    expect(describeConfig(config)).toMatchObject({ store: { kind: 'remote', password: '[redacted]', passwordFile } });
  });

  it('should take credentials from the SPARQL_* environment, as parseStoreUrl does', async () => {
    const env = {
      SPARQL_UPDATE_URL: 'http://kg/update',
      SPARQL_USER: 'env-user',
      SPARQL_PASSWORD: secret,
      SPARQL_PASSWORD_FILE: '/missing',
    };
    const config = await load({ env, flags: { resource: R, store: 'http://kg/sparql' } });
    expect(config.store).toMatchObject({ url: 'http://kg/sparql', updateUrl: 'http://kg/update', user: 'env-user', password: secret });
    expect(
      (await load({ env: { SPARQL_PASSWORD_FILE: passwordFile }, flags: { resource: R, store: 'http://kg/sparql' } })).store.password,
    ).toBe(secret);
  });

  it('should move credentials out of the store URL', async () => {
    const config = await load({ flags: { resource: R, store: 'http://alice:p%40ss@kg:8890/sparql' } });
    expect(config.store).toMatchObject({ url: 'http://kg:8890/sparql', user: 'alice', password: 'p@ss' });
  });

  it('should not send a file’s credentials to a store named by a higher layer', async () => {
    const file = write(
      'creds.yaml',
      `resource: ${R}\nstore: { url: "http://kg-a/sparql", user: a, passwordFile: secrets/sparql, updateUrl: "http://kg-a/update" }\n`,
    );
    const config = await load({ file, env: { SIDECAR_STORE: 'http://kg-b/sparql' } });
    expect(config.store).toEqual({ url: 'http://kg-b/sparql', updateUrl: 'http://kg-b/sparql', timeoutMs: LIMITS.remoteRequestTimeoutMs });
  });

  it('should read memory, file: URLs and directories, and refuse other schemes', async () => {
    expect((await load({ flags: { resource: R, store: 'memory' } })).store).toEqual({ url: 'memory' });
    expect((await load({ flags: { resource: R, store: 'file:///srv/kg' } })).store).toEqual({ url: '/srv/kg' });
    expect((await load({ flags: { resource: R, store: 'kg-data' } })).store).toEqual({ url: join(dir, 'kg-data') });
    expect(await problems({ flags: { resource: R, store: 'ftp://kg/x' } })).toEqual([
      'command line: store.url: has an unsupported scheme (expected "memory", an http(s) or http+unix URL, or a directory) (got "ftp://kg/x")',
    ]);
  });

  it('should refuse remote-only settings for a local store from a file, but ignore ambient SPARQL_* variables', async () => {
    const file = write('local-creds.yaml', `resource: ${R}\nstore: { url: memory, user: sm }\n`);
    expect(await problems({ file })).toEqual([`config file ${file}: store.user: only applies to a remote (http/https) store`]);
    expect((await load({ env: { SPARQL_USER: 'sm', SPARQL_PASSWORD: secret }, flags: { resource: R, store: 'memory' } })).store).toEqual({
      url: 'memory',
    });
  });

  it('should never echo a password, whatever else is wrong', async () => {
    const file = write('leaky.yaml', `resource: ${R}\nstore: { url: "http://kg/sparql", password: "${secret}" }\nport: nope\n`);
    const messages = [
      ...(await problems({ file })),
      ...(await problems({ env: { SPARQL_PASSWORD: secret, SIDECAR_PORT: 'x' }, flags: { resource: R, store: 'http://kg/sparql' } })),
      ...(await problems({ flags: { resource: R, store: `http://u:${secret}@kg/spa rql` } })),
      ...(await problems({
        flags: { resource: R, 'device.url': `http://u:${secret}@kg:1`, store: `http://u:${secret}@kg/sparql`, port: 'x' },
      })),
      ...(await problems({ flags: { resource: R, store: 'http://kg/sparql', 'store.passwordFile': write('secrets/empty', '\n') } })),
    ].join('\n');
    expect(messages).not.toContain(secret);
    expect(messages).toContain(
      `config file ${file}: store.password: passwords are not accepted here: name a file in store.passwordFile (or set SPARQL_PASSWORD_FILE)`,
    );
    expect(messages).toContain('store.passwordFile: holds an empty first line');
  });

  it('should refuse an unreadable password file, naming the file', async () => {
    expect(await problems({ flags: { resource: R, store: 'http://kg/sparql', 'store.passwordFile': '/nonexistent/pw' } })).toEqual([
      'command line: store.passwordFile: cannot be read: ENOENT (got "/nonexistent/pw")',
    ]);
  });

  it('should serve the local API on loopback only with a long enough token, never shown', async () => {
    const token = 'tok-0123456789abcdef';
    const tokenFile = write('secrets/token', `${token}\n`);
    const config = await load({ env: { SIDECAR_LOCAL_API_PORT: '8101', SIDECAR_LOCAL_API_TOKEN_FILE: tokenFile }, flags: { resource: R } });
    expect(config.localApi).toEqual({ port: 8101, tokenFile, token });
    expect(JSON.stringify(describeConfig(config))).not.toContain(token);
    const short = write('secrets/short', 'abc123\n');
    const lines = await problems({ flags: { resource: R, 'localApi.port': 8101, 'localApi.tokenFile': short } });
    expect(lines).toEqual([
      `command line: localApi.tokenFile: the token in it is 6 characters long; use at least ${LIMITS.minTokenLength} (got ${JSON.stringify(short)})`,
    ]);
    expect(await problems({ flags: { resource: R, 'localApi.port': 8101 } })).toEqual([
      'command line: localApi.tokenFile: is required with localApi.port: the loopback local API needs a token',
    ]);
    expect(await problems({ flags: { resource: R, localApi: true } })).toEqual([
      'command line: localApi: must be false or a mapping ({ socket } or { port, tokenFile }) (got true)',
    ]);
  });

  it('should load the listed ontology files, which must exist and be RDF', async () => {
    write('plant.ttl', '');
    const file = write('onto.yaml', `resource: ${R}\nontologyFiles: [plant.ttl, missing.ttl, notes.txt]\n`);
    expect(await problems({ file })).toEqual([
      `config file ${file}: ontologyFiles[1]: cannot be read: ENOENT (got ${JSON.stringify(join(dir, 'missing.ttl'))})`,
      `config file ${file}: ontologyFiles[2]: has an unknown RDF extension (expected one of .ttl, .turtle, .nt, .nq, .trig) (got "notes.txt")`,
    ]);
    const remote = await load({ flags: { resource: R, store: 'http://kg/sparql', ontologyFiles: ['plant.ttl'] } });
    expect(remote.provisionOntology).toBe(true);
    expect(await problems({ flags: { resource: R, provisionOntology: false, ontologyFiles: ['plant.ttl'] } })).toEqual([
      'command line: ontologyFiles: are listed but provisionOntology is false: remove one of them, or load the files with "semantic-sidecar ontology load"',
    ]);
  });
});

describe('loadSidecarConfig for the watchdog', () => {
  it('should refuse resource settings in its file but ignore them in a shared environment', async () => {
    const file = write('wd.yaml', `store: memory\nresource: ${R}\nworkflows: []\nsweepInterval: 5\n`);
    expect(await problems({ file, purpose: 'watchdog' })).toEqual([
      `config file ${file}: resource: is not used by the watchdog (it registers no resource): remove it or use a separate config file`,
      `config file ${file}: workflows: is not used by the watchdog (it registers no resource): remove it or use a separate config file`,
    ]);
    const ok = await load({
      flags: { store: 'memory', sweepInterval: 5 },
      env: { SIDECAR_RESOURCE: R, SIDECAR_DEVICE_URL: 'http://127.0.0.1:9' },
      purpose: 'watchdog',
    });
    expect(ok).toMatchObject({ sweepInterval: 5, localApi: false, workflows: [], states: [] });
    expect(ok.resource).toBeUndefined();
    expect(ok.device).toBeUndefined();
  });
});
