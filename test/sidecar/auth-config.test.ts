import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { LIMITS } from '../../src/limits.js';
import { describeConfig, securityOptionsOf } from '../../src/sidecar/config.js';
import { selfSigned, type SelfSigned } from '../middleware/surface/support/self-signed.js';
import { configFixture } from './support/config-fixture.js';

const { dir, write, load, problems } = configFixture('sm-auth-config-');

const R = 'https://example.org/plant#door1';
const HTTP_TOKEN = 'http-token-A1b2C3d4E5f6G7h8';
const PLANT_TOKEN = 'plant-token-Z9y8X7w6V5u4T3s2';
const ROBOT_TOKEN = 'robot-token-M1n2B3v4C5x6Z7l8';
const httpTokenFile = write('secrets/http-token', `${HTTP_TOKEN}\n`);
const plantTokenFile = write('secrets/plant-token', `${PLANT_TOKEN}\r\n`);
const robotTokenFile = write('secrets/robot-token', ROBOT_TOKEN);
const SECRETS = [HTTP_TOKEN, PLANT_TOKEN, ROBOT_TOKEN];

let tls: SelfSigned;
let other: SelfSigned;
beforeAll(async () => {
  [tls, other] = await Promise.all([selfSigned(), selfSigned()]);
});
afterAll(async () => {
  await tls?.remove();
  await other?.remove();
});

/** Expects none of the secrets (tokens and the TLS key) in `text`. */
function expectNoSecret(text: string): void {
  for (const secret of [...SECRETS, tls.key.split('\n')[1]!]) expect(text.includes(secret) ? `leaked: ${secret}` : 'clean').toBe('clean');
}

describe('loadSidecarConfig: the HTTP surface token', () => {
  it('should leave http and outgoingTokens out when nothing is set, and give null security options', async () => {
    const config = await load({ flags: { resource: R } });
    expect(config.http).toBeUndefined();
    expect(config.outgoingTokens).toBeUndefined();
    expect(securityOptionsOf(config)).toEqual({ httpToken: null, tls: null, outgoingTokens: null });
  });

  it('should read the token from http.tokenFile (relative to the config file) and never show it', async () => {
    const file = write('http.yaml', `resource: ${R}\nhttp:\n  tokenFile: secrets/http-token\n`);
    const config = await load({ file });
    expect(config.http).toEqual({ tokenFile: httpTokenFile, token: HTTP_TOKEN });
    expect(securityOptionsOf(config).httpToken).toBe(HTTP_TOKEN);
    expect(describeConfig(config)).toMatchObject({ http: { tokenFile: httpTokenFile, token: '[redacted]' } });
    expectNoSecret(JSON.stringify(describeConfig(config)));
  });

  it('should read named tokens from http.tokenFile and the local API token file, refusing limits there, never showing a token', async () => {
    const named = write('secrets/named', `# callers of door1\nplanner ${HTTP_TOKEN}\nrobot ${ROBOT_TOKEN} open,close\n`);
    const config = await load({ flags: { resource: R, 'http.tokenFile': named } });
    expect(securityOptionsOf(config).httpToken).toEqual([
      { name: 'planner', token: HTTP_TOKEN },
      { name: 'robot', token: ROBOT_TOKEN, workflows: ['open', 'close'] },
    ]);
    expect(describeConfig(config)).toMatchObject({ http: { tokenFile: named, token: '[redacted]' } });
    expectNoSecret(JSON.stringify(describeConfig(config)));
    const unlimited = write('secrets/unlimited', `planner ${HTTP_TOKEN}\n`);
    const local = await load({ flags: { resource: R }, env: { SIDECAR_LOCAL_API_PORT: '0', SIDECAR_LOCAL_API_TOKEN_FILE: unlimited } });
    expect(local.localApi).toEqual({ port: 0, tokenFile: unlimited, token: [{ name: 'planner', token: HTTP_TOKEN }] });
    expectNoSecret(JSON.stringify(describeConfig(local)));
    const lines = await problems({ flags: { resource: R }, env: { SIDECAR_LOCAL_API_PORT: '0', SIDECAR_LOCAL_API_TOKEN_FILE: named } });
    expect(lines).toEqual([
      `environment SIDECAR_LOCAL_API_TOKEN_FILE: localApi.tokenFile: limits a token to workflows, which the local API runs none of by name: drop the third field (got ${JSON.stringify(named)})`,
    ]);
    const hostile = write('secrets/hostile', `"}> DROP ${HTTP_TOKEN}\n`);
    const refused = await problems({ flags: { resource: R, 'http.tokenFile': hostile } });
    expect(refused).toEqual([expect.stringContaining('http.tokenFile: has a bad entry[0].name: "\\"}>" is not a token name')]);
    expectNoSecret(refused.join('\n'));
  });

  it('should take SIDECAR_HTTP_TOKEN or SIDECAR_HTTP_TOKEN_FILE, the higher layer winning over a file', async () => {
    expect((await load({ env: { SIDECAR_HTTP_TOKEN: HTTP_TOKEN }, flags: { resource: R } })).http).toEqual({ token: HTTP_TOKEN });
    expect((await load({ env: { SIDECAR_HTTP_TOKEN_FILE: httpTokenFile }, flags: { resource: R } })).http).toEqual({
      tokenFile: httpTokenFile,
      token: HTTP_TOKEN,
    });
    const file = write('http-file.yaml', `resource: ${R}\nhttp: { tokenFile: secrets/plant-token }\n`);
    expect((await load({ file, env: { SIDECAR_HTTP_TOKEN: HTTP_TOKEN } })).http).toEqual({ token: HTTP_TOKEN });
    expect(
      (await load({ env: { SIDECAR_HTTP_TOKEN: PLANT_TOKEN }, flags: { resource: R, 'http.tokenFile': httpTokenFile } })).http,
    ).toEqual({ tokenFile: httpTokenFile, token: HTTP_TOKEN });
    expect(
      await problems({ env: { SIDECAR_HTTP_TOKEN: HTTP_TOKEN, SIDECAR_HTTP_TOKEN_FILE: httpTokenFile }, flags: { resource: R } }),
    ).toEqual([
      'environment SIDECAR_HTTP_TOKEN: http.token: and http.tokenFile are both set: give the token or the file holding it, not both',
    ]);
  });

  it('should refuse weak or unusable tokens, naming the file but never the token', async () => {
    const short = write('secrets/short', 'short-secret\n');
    const spaced = write('secrets/spaced', 'a token with spaces inside it\n');
    const lines = [
      ...(await problems({ flags: { resource: R, 'http.tokenFile': short } })),
      ...(await problems({ flags: { resource: R, 'http.tokenFile': spaced } })),
      ...(await problems({ env: { SIDECAR_HTTP_TOKEN: 'env-short' }, flags: { resource: R } })),
      ...(await problems({ flags: { resource: R, 'http.tokenFile': 'secrets/missing' } })),
    ];
    expect(lines).toEqual([
      `command line: http.tokenFile: the token in it is 12 characters long; use at least ${LIMITS.minTokenLength} (got ${JSON.stringify(short)})`,
      `command line: http.tokenFile: line 1 holds 6 fields; expected "<name> <token> [<workflow>,...]" (a token cannot hold spaces) (got ${JSON.stringify(spaced)})`,
      `environment SIDECAR_HTTP_TOKEN: http.token: the token is 9 characters long; use at least ${LIMITS.minTokenLength}`,
      `command line: http.tokenFile: cannot be read: ENOENT (got ${JSON.stringify(join(dir, 'secrets/missing'))})`,
    ]);
    expect(lines.join('\n')).not.toMatch(/short-secret|with spaces|env-short/u);
  });

  it('should refuse tokens and keys written into a config file or a flag, without echoing them', async () => {
    const file = write(
      'leaky.yaml',
      `resource: ${R}\nhttp: { token: "${HTTP_TOKEN}", tls: { key: "${PLANT_TOKEN}" } }\noutgoingTokens: { default: "${PLANT_TOKEN}", byAddress: { "https://robot1:8443": "${ROBOT_TOKEN}" } }\n`,
    );
    const lines = [...(await problems({ file })), ...(await problems({ flags: { resource: R, 'http.token': HTTP_TOKEN } }))];
    expect(lines).toEqual([
      `config file ${file}: http.token: tokens are not accepted here: name a file in http.tokenFile (or set SIDECAR_HTTP_TOKEN_FILE)`,
      `config file ${file}: http.tls: certificates and keys are not accepted here: name the PEM files in http.tlsCertFile and http.tlsKeyFile`,
      `config file ${file}: outgoingTokens.default: tokens are not accepted here: name a file in outgoingTokens.defaultFile (or set SIDECAR_OUTGOING_TOKEN_FILE)`,
      `config file ${file}: outgoingTokens.byAddress: tokens are not accepted here: map each address to a token file in outgoingTokens.byAddressFiles`,
      expect.stringMatching(/^command line: http\.token: unknown key/u),
    ]);
    expectNoSecret(lines.join('\n'));
  });
});

describe('loadSidecarConfig: a secret written in the config file', () => {
  const storeRefusal = 'passwords are not accepted here: name a file in store.passwordFile (or set SPARQL_PASSWORD_FILE)';
  const httpRefusal = 'tokens are not accepted here: name a file in http.tokenFile (or set SIDECAR_HTTP_TOKEN_FILE)';
  const outgoingRefusal = 'tokens are not accepted here: name a file in outgoingTokens.defaultFile (or set SIDECAR_OUTGOING_TOKEN_FILE)';
  // Each higher layer here names the same setting's file, its value or the store it belongs to,
  // which drops the file's entry while merging: the inline secret must be refused all the same.
  const cases: { field: string; yaml: string; higher: string; options: Parameters<typeof load>[0]; refusal: string }[] = [
    ...[
      { higher: 'SIDECAR_HTTP_TOKEN_FILE', options: { env: { SIDECAR_HTTP_TOKEN_FILE: httpTokenFile } } },
      { higher: 'SIDECAR_HTTP_TOKEN', options: { env: { SIDECAR_HTTP_TOKEN: PLANT_TOKEN } } },
      { higher: '--http-token-file', options: { flags: { 'http.tokenFile': httpTokenFile } } },
    ].map((c) => ({ ...c, field: 'http.token', yaml: `http: { token: "${HTTP_TOKEN}" }`, refusal: httpRefusal })),
    {
      field: 'outgoingTokens.default',
      yaml: `outgoingTokens: { default: "${PLANT_TOKEN}" }`,
      higher: 'SIDECAR_OUTGOING_TOKEN_FILE',
      options: { env: { SIDECAR_OUTGOING_TOKEN_FILE: plantTokenFile } },
      refusal: outgoingRefusal,
    },
    ...[
      { higher: 'SM_STORE', options: { env: { SM_STORE: 'http://kg-b/sparql' } } },
      { higher: 'SPARQL_PASSWORD', options: { env: { SPARQL_PASSWORD: ROBOT_TOKEN } } },
    ].map((c) => ({
      ...c,
      field: 'store.password',
      yaml: `store: { url: "http://kg-a/sparql", password: "${PLANT_TOKEN}" }`,
      refusal: storeRefusal,
    })),
  ];

  it.each(cases)(
    'should refuse an inline $field whatever a higher layer sets ($higher)',
    async ({ field, yaml, higher, options, refusal }) => {
      const file = write(`inline-${higher}.yaml`, `resource: ${R}\n${yaml}\n`);
      const lines = await problems({ file, ...options });
      expect(lines).toEqual([`config file ${file}: ${field}: ${refusal}`]);
      expectNoSecret(lines.join('\n'));
    },
  );

  it('should refuse every inline secret of the settings table, once each', async () => {
    const file = write(
      'inline-all.yaml',
      `resource: ${R}\nstore: { url: "http://kg/sparql", password: "${PLANT_TOKEN}" }\nlocalApi: { port: 8101, tokenFile: secrets/http-token, token: "${HTTP_TOKEN}" }\n`,
    );
    expect(await problems({ file, env: { SIDECAR_LOCAL_API_SOCKET: join(dir, 'api.sock') } })).toEqual([
      `config file ${file}: store.password: ${storeRefusal}`,
      `config file ${file}: localApi.token: tokens are not accepted here: name a file in localApi.tokenFile`,
    ]);
  });
});

describe('loadSidecarConfig: HTTPS', () => {
  it('should read the certificate and key, derive an https:// address, and redact the key', async () => {
    const config = await load({
      env: { SIDECAR_HTTP_TLS_CERT_FILE: tls.certFile, SIDECAR_HTTP_TLS_KEY_FILE: tls.keyFile },
      flags: { resource: R, port: 8443 },
    });
    expect(config.http).toEqual({ tlsCertFile: tls.certFile, tlsKeyFile: tls.keyFile, tls: { cert: tls.cert, key: tls.key } });
    expect(config.address).toBe('https://127.0.0.1:8443');
    expect(securityOptionsOf(config).tls).toEqual({ cert: tls.cert, key: tls.key });
    expect(describeConfig(config)).toMatchObject({ http: { tlsCertFile: tls.certFile, tlsKeyFile: tls.keyFile, tls: '[redacted]' } });
    expectNoSecret(JSON.stringify(describeConfig(config)));
  });

  it('should refuse an http:// address, a lone file, a mismatched pair and a file without PEM', async () => {
    const notPem = write('tls/not.pem', 'hello\n');
    const pair = { 'http.tlsCertFile': tls.certFile, 'http.tlsKeyFile': tls.keyFile };
    const lines = [
      ...(await problems({ flags: { resource: R, ...pair, address: 'http://door1.plant.local:8443' } })),
      ...(await problems({ flags: { resource: R, 'http.tlsCertFile': tls.certFile } })),
      ...(await problems({ flags: { resource: R, 'http.tlsCertFile': tls.certFile, 'http.tlsKeyFile': other.keyFile } })),
      ...(await problems({ flags: { resource: R, 'http.tlsCertFile': notPem, 'http.tlsKeyFile': tls.keyFile } })),
    ];
    expect(lines).toEqual([
      'command line: address: starts with http:// but the surface serves HTTPS (http.tlsCertFile): callers would fail; use https:// (got "http://door1.plant.local:8443")',
      'command line: http.tlsKeyFile: is required with http.tlsCertFile: HTTPS needs a certificate and its private key',
      expect.stringMatching(
        /^command line: http\.tlsCertFile: and http\.tlsKeyFile are not a usable certificate and private key: .*key values mismatch/u,
      ),
      `command line: http.tlsCertFile: holds no PEM block (expected "-----BEGIN ...") (got ${JSON.stringify(notPem)})`,
    ]);
    expectNoSecret(lines.join('\n'));
    expect(lines.join('\n')).not.toContain(other.key.split('\n')[1]!);
  });
});

describe('loadSidecarConfig: outgoing tokens', () => {
  it('should read the plant token and per-address tokens, keyed by normalized address, and redact them', async () => {
    const file = write(
      'out.yaml',
      `resource: ${R}\noutgoingTokens:\n  defaultFile: secrets/plant-token\n  byAddressFiles:\n    "HTTPS://Robot1.Plant.local:8443/": secrets/robot-token\n`,
    );
    const config = await load({ file });
    expect(config.outgoingTokens).toEqual({
      defaultFile: plantTokenFile,
      default: PLANT_TOKEN,
      byAddressFiles: { 'https://robot1.plant.local:8443': robotTokenFile },
      byAddress: { 'https://robot1.plant.local:8443': ROBOT_TOKEN },
    });
    expect(securityOptionsOf(config).outgoingTokens).toEqual({
      default: PLANT_TOKEN,
      byAddress: { 'https://robot1.plant.local:8443': ROBOT_TOKEN },
    });
    expect(describeConfig(config)).toMatchObject({
      outgoingTokens: { default: '[redacted]', byAddress: { 'https://robot1.plant.local:8443': '[redacted]' } },
    });
    expectNoSecret(JSON.stringify(describeConfig(config)));
  });

  it('should take SIDECAR_OUTGOING_TOKEN and SIDECAR_OUTGOING_TOKEN_FILE', async () => {
    expect((await load({ env: { SIDECAR_OUTGOING_TOKEN: PLANT_TOKEN }, flags: { resource: R } })).outgoingTokens).toEqual({
      default: PLANT_TOKEN,
    });
    const config = await load({ env: { SIDECAR_OUTGOING_TOKEN_FILE: plantTokenFile }, flags: { resource: R } });
    expect(config.outgoingTokens).toEqual({ defaultFile: plantTokenFile, default: PLANT_TOKEN });
    expect(securityOptionsOf(config).outgoingTokens).toEqual({ default: PLANT_TOKEN });
  });

  it('should refuse a key that is no http(s) address and one address named twice', async () => {
    const file = write(
      'out-bad.yaml',
      `resource: ${R}\noutgoingTokens:\n  byAddressFiles:\n    "ftp://robot1": secrets/robot-token\n    "https://robot1:8443": secrets/robot-token\n    "HTTPS://ROBOT1:8443/": secrets/plant-token\n`,
    );
    expect(await problems({ file })).toEqual([
      `config file ${file}: outgoingTokens.byAddressFiles["ftp://robot1"]: is not an absolute http(s) URL (expected e.g. "https://robot1.plant.local:8443")`,
      `config file ${file}: outgoingTokens.byAddressFiles["HTTPS://ROBOT1:8443/"]: names the address https://robot1:8443 a second time (addresses are compared normalized)`,
    ]);
  });

  it('should take http but refuse outgoingTokens in a watchdog file, and ignore outgoing tokens in its environment', async () => {
    const file = write(
      'wd.yaml',
      `store: memory\nhttp: { tokenFile: secrets/http-token }\noutgoingTokens: { defaultFile: secrets/plant-token }\n`,
    );
    expect(await problems({ file, purpose: 'watchdog' })).toEqual([
      `config file ${file}: outgoingTokens.defaultFile: is not used by the watchdog (it registers no resource): remove it or use a separate config file`,
    ]);
    const env = { SIDECAR_HTTP_TOKEN: HTTP_TOKEN, SIDECAR_OUTGOING_TOKEN_FILE: plantTokenFile };
    const config = await load({ env, flags: { store: 'memory' }, purpose: 'watchdog' });
    expect(config.outgoingTokens).toBeUndefined();
    expect(securityOptionsOf(config).httpToken).toBe(HTTP_TOKEN);
  });
});
