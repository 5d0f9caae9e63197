import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeConfig } from '../../src/sidecar/config.js';
import { selfSigned, type SelfSigned } from '../middleware/surface/support/self-signed.js';
import { configFixture } from '../sidecar/support/config-fixture.js';

const { write, load, problems } = configFixture('sm-broker-settings-');
const R = 'https://example.org/cell#belt1';
const PASSWORD = 'broker-pass-Q1w2E3r4';
const EDGE_PASSWORD = 'edge-pass-Z9x8C7v6';
const passwordFile = write('secrets/broker-password', `${PASSWORD}\n`);
const edgePasswordFile = write('secrets/edge-password', EDGE_PASSWORD);

let tls: SelfSigned;
beforeAll(async () => {
  tls = await selfSigned();
});
afterAll(async () => {
  await tls?.remove();
});

describe('loadSidecarConfig: broker credentials and TLS', () => {
  it('should leave broker out when nothing is set', async () => {
    expect((await load({ flags: { resource: R } })).broker).toBeUndefined();
  });

  it('should resolve the default entry from the environment and per-broker entries from the file, secrets redacted in the summary', async () => {
    const file = write(
      'broker.yaml',
      `resource: ${R}\nbroker:\n  byAddress:\n    "Edge7:8883": { username: edge, passwordFile: secrets/edge-password, caFile: ${tls.certFile} }\n`,
    );
    const config = await load({
      file,
      env: {
        SIDECAR_BROKER_USERNAME: 'sidecar',
        SIDECAR_BROKER_PASSWORD_FILE: passwordFile,
        SIDECAR_BROKER_TLS: 'true',
        SIDECAR_BROKER_CA_FILE: tls.certFile,
        SIDECAR_BROKER_CERT_FILE: tls.certFile,
        SIDECAR_BROKER_KEY_FILE: tls.keyFile,
      },
    });
    expect(config.broker).toMatchObject({ username: 'sidecar', passwordFile, tls: true, caFile: tls.certFile, keyFile: tls.keyFile });
    expect(config.broker!.credentials).toEqual({
      default: { username: 'sidecar', password: PASSWORD, tls: true, ca: tls.cert, cert: tls.cert, key: tls.key },
      byAddress: { 'Edge7:8883': { username: 'edge', password: EDGE_PASSWORD, ca: tls.cert } },
    });
    const summary = JSON.stringify(describeConfig(config));
    for (const secret of [PASSWORD, EDGE_PASSWORD, tls.key.split('\n')[1]!]) expect(summary).not.toContain(secret);
    expect(summary).toContain(edgePasswordFile);
  });

  it('should take SIDECAR_BROKER_PASSWORD and refuse a password in a config file', async () => {
    const fromEnv = await load({ flags: { resource: R }, env: { SIDECAR_BROKER_USERNAME: 'u', SIDECAR_BROKER_PASSWORD: PASSWORD } });
    expect(fromEnv.broker!.credentials).toEqual({ default: { username: 'u', password: PASSWORD } });
    const file = write('inline.yaml', `resource: ${R}\nbroker: { username: u, password: ${PASSWORD} }\n`);
    const lines = await problems({ file });
    expect(lines.join('\n')).toMatch(/broker\.password: passwords are not accepted here/u);
    expect(lines.join('\n')).not.toContain(PASSWORD);
  });

  it('should report unusable combinations, naming the field and never the secret', async () => {
    const lines = await problems({
      flags: {
        resource: R,
        'broker.passwordFile': passwordFile,
        'broker.certFile': tls.certFile,
        'broker.caFile': passwordFile,
        'broker.byAddress': { 'no port here': { username: 'x' } },
      },
    });
    const text = lines.join('\n');
    expect(text).toMatch(/broker\.keyFile: is required with the other/u);
    expect(text).toMatch(/broker\.username: is required with a password/u);
    expect(text).toMatch(/broker\.caFile: holds no PEM block/u);
    expect(text).toMatch(/is not "host:port"/u);
    expect(text).not.toContain(PASSWORD);
  });
});
