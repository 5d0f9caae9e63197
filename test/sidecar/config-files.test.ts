import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'n3';
import { ValueError } from '../../src/errors.js';
import {
  CONFIG_ENV_VARS,
  formatEnvVars,
  loadSidecarConfig,
  type LoadSidecarConfigOptions,
  type SidecarConfig,
} from '../../src/sidecar/config.js';
import { SIDECAR_CONFIG_SCHEMA } from '../../src/sidecar/config-schema.js';
import { schemaErrors } from '../../src/sidecar/config-validator.js';
import { OWL, PLANT, RDF, svc } from '../../src/vocab/index.js';
import { selfSigned } from '../middleware/surface/support/self-signed.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sm-config-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const passwordFile = join(dir, 'sparql-password');
writeFileSync(passwordFile, 'example-password\n');
const tokenFile = join(dir, 'example-token');
writeFileSync(tokenFile, 'example-token-0123456789\n');
// Written in beforeAll: openssl makes them at test time.
const tlsCertFile = join(dir, 'tls-cert.pem');
const tlsKeyFile = join(dir, 'tls-key.pem');
beforeAll(async () => {
  const tls = await selfSigned();
  writeFileSync(tlsCertFile, tls.cert);
  writeFileSync(tlsKeyFile, tls.key);
  await tls.remove();
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const load = (options: LoadSidecarConfigOptions): Promise<SidecarConfig> => loadSidecarConfig({ env: {}, cwd: dir, ...options });

async function message(options: LoadSidecarConfigOptions): Promise<string> {
  const error = await load(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValueError);
  return (error as Error).message.split('\n').slice(1).join('\n');
}

const R = 'https://example.org/plant#door1';

describe('config files', () => {
  it('should read JSON and YAML alike', async () => {
    const json = write('a.json', JSON.stringify({ resource: R, port: 8101, heartbeatInterval: null, log: { level: 'debug' } }));
    const yaml = write('a.yml', `resource: ${R}\nport: 8101\nheartbeatInterval: ~\nlog:\n  level: debug\n`);
    const [fromJson, fromYaml] = await Promise.all([load({ file: json }), load({ file: yaml })]);
    expect(fromJson).toEqual(fromYaml);
    expect(fromJson).toMatchObject({ port: 8101, heartbeatInterval: null, log: { level: 'debug' } });
  });

  it('should name the line and column of a YAML syntax error', async () => {
    const file = write('broken.yaml', `resource: ${R}\nworkflows: [\n  name: open\n`);
    expect(await message({ file })).toBe(
      `  - config file ${file}: not valid YAML: line 4, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    );
  });

  it('should refuse duplicate keys and unknown tags in YAML', async () => {
    const file = write('dupes.yaml', `resource: ${R}\nport: 1\nport: 2\nhost: !!js/function "x"\n`);
    const text = await message({ file });
    expect(text).toContain(`config file ${file}: not valid YAML: line 3, column 1: Map keys must be unique`);
    expect(text).toContain(`config file ${file}: not valid YAML: line 4, column 7: Unresolved tag: tag:yaml.org,2002:js/function`);
  });

  it('should name the line and column of a JSON syntax error, without quoting the document', async () => {
    const file = write('broken.json', `{\n  "resource": "${R}",\n  "port": 1,\n}\n`);
    expect(await message({ file })).toBe(`  - config file ${file}: not valid JSON: line 4, column 1: Expected double-quoted property name`);
  });

  it('should keep a JSON error on one line, naming the token but quoting none of the document', async () => {
    const secret = 'p4ssw0rd-not-to-be-shown';
    const file = write('yaml-in.json', `store:\n  password: ${secret}\n`);
    expect(await message({ file })).toBe(`  - config file ${file}: not valid JSON: Unexpected token "s"`);
    const newline = write('newline.json', `{\n  "port": tru\n}\n`);
    expect(await message({ file: newline })).toBe(`  - config file ${newline}: not valid JSON: Unexpected token "\\n"`);
    const cut = write('cut.json', `{\n  "port":`);
    expect(await message({ file: cut })).toBe(`  - config file ${cut}: not valid JSON: line 2, column 10: Unexpected end of JSON input`);
  });

  it('should refuse a YAML alias bomb as a config problem', async () => {
    const row = (alias: string) => `[${Array(9).fill(alias).join(', ')}]`;
    const bomb = `a: &a ${row('x')}\nb: &b ${row('*a')}\nc: &c ${row('*b')}\nd: &d ${row('*c')}\ne: ${row('*d')}\n`;
    const file = write('bomb.yaml', bomb);
    expect(await message({ file })).toBe(
      `  - config file ${file}: not valid YAML: its aliases expand too far (more than 100 alias uses); write the settings out`,
    );
  });

  it('should read YAML 1.2: yes/no and quoted numbers stay strings and are refused, not coerced', async () => {
    const file = write('coerce.yaml', `resource: ${R}\nactivityFeed: yes\nport: "8000"\n`);
    expect((await message({ file })).split('\n')).toEqual([
      `  - config file ${file}: port: must be an integer (got "8000")`,
      `  - config file ${file}: activityFeed: must be true or false (got "yes")`,
    ]);
  });

  it('should refuse other extensions, missing files and non-mappings, naming the file', async () => {
    expect(await message({ file: write('c.toml', 'port = 1') })).toMatch(
      /config file .*c\.toml: cannot tell the format from the extension "\.toml" \(expected \.yaml, \.yml or \.json\)$/u,
    );
    expect(await message({ file: 'nowhere/missing.yaml' })).toBe('  - config file nowhere/missing.yaml: cannot be read: ENOENT');
    const list = write('list.yaml', '- resource\n');
    expect(await message({ file: list })).toBe(`  - config file ${list}: must hold a mapping of settings at the top level, not a list`);
  });

  it('should treat an empty YAML file as no settings', async () => {
    expect((await load({ file: write('empty.yaml', '# nothing yet\n'), flags: { resource: R } })).port).toBe(8000);
  });
});

/** Subjects typed `owl:Class` and the individuals of the example plant and the bundled ontology. */
function declared(): Set<string> {
  const names = new Set<string>();
  for (const file of ['ontology/examples/plant.ttl', 'ontology/core.ttl', 'ontology/service.ttl', 'ontology/mes.ttl']) {
    for (const q of new Parser().parse(readFileSync(join(root, file), 'utf8'))) {
      if (q.predicate.value === RDF('type') && [OWL('Class'), OWL('NamedIndividual')].includes(q.object.value)) names.add(q.subject.value);
    }
  }
  return names;
}

const EXAMPLES: Record<string, LoadSidecarConfigOptions> = {
  'door1.yaml': {},
  'robot1.yaml': {},
  'remote-store.yaml': { flags: { 'store.passwordFile': passwordFile } },
  'watchdog.yaml': { purpose: 'watchdog', flags: { 'store.passwordFile': passwordFile } },
  'secure-door1.yaml': {
    flags: {
      'store.passwordFile': passwordFile,
      'http.tokenFile': tokenFile,
      'http.tlsCertFile': tlsCertFile,
      'http.tlsKeyFile': tlsKeyFile,
      'outgoingTokens.defaultFile': tokenFile,
      'outgoingTokens.byAddressFiles': { 'https://robot1.plant.local:8443': tokenFile },
    },
  },
};

/** A resolved config as a file could write it: secrets removed (files may not hold them). */
function asFile(config: SidecarConfig): unknown {
  const { password: _password, ...store } = config.store;
  const localApi =
    config.localApi === false || 'socket' in config.localApi
      ? config.localApi
      : { port: config.localApi.port, tokenFile: config.localApi.tokenFile };
  const { token: _token, tls: _tls, ...http } = config.http ?? {};
  const { default: _default, byAddress: _byAddress, ...outgoingTokens } = config.outgoingTokens ?? {};
  const { credentials: _credentials, ...broker } = config.broker ?? { credentials: {} };
  return {
    ...config,
    store,
    localApi,
    ...(config.http && { http }),
    ...(config.outgoingTokens && { outgoingTokens }),
    ...(config.broker && { broker }),
  };
}

describe('example configs in config/', () => {
  it('should have a test for every example', () => {
    expect(
      readdirSync(join(root, 'config'))
        .filter((f) => /\.(ya?ml|json)$/u.test(f))
        .sort(),
    ).toEqual(Object.keys(EXAMPLES).sort());
  });

  it.each(Object.entries(EXAMPLES))('should load %s, naming only classes and resources the ontology declares', async (name, options) => {
    const config = await load({ file: join(root, 'config', name), ...options });
    const known = declared();
    const iris = [
      config.serviceClass,
      ...config.workflows.flatMap((w) => [w.capabilityClass, w.workflowClass]),
      ...config.states.flatMap((s) => [s.capabilityClass, s.statePropertyClass]),
    ];
    if (config.resource !== undefined) iris.push(config.resource);
    for (const iri of iris) expect(known.has(iri) ? iri : `undeclared: ${iri}`).toBe(iri);
    expect(schemaErrors(asFile(config))).toEqual([]);
  });

  it('should describe door1 as the brief says: controller service, Unix socket device, open/close with plant classes', async () => {
    const config = await load({ file: join(root, 'config', 'door1.yaml') });
    expect(config).toMatchObject({
      resource: PLANT('door1'),
      serviceClass: PLANT('ControllerService'),
      provisionOntology: true,
      ontologyFiles: [join(root, 'ontology', 'examples', 'plant.ttl')],
      device: { target: 'unix:/run/device/door1.sock' },
    });
    expect(config.workflows.map((w) => [w.name, w.capabilityClass, w.workflowClass, w.path])).toEqual([
      ['open', PLANT('DoorOpeningCapability'), PLANT('OpenDoorWorkflow'), '/open'],
      ['close', PLANT('DoorClosingCapability'), PLANT('CloseDoorWorkflow'), '/close'],
    ]);
    expect(config.serviceClass).not.toBe(svc.Service);
  });
});

describe('SIDECAR_CONFIG_SCHEMA', () => {
  it('should accept every field of a fully populated resolved config (types and schema in sync)', async () => {
    const token = write('token', 'a-long-enough-token-value\n');
    const config = await load({
      flags: {
        resource: R,
        store: 'http://kg/sparql',
        'store.updateUrl': 'http://kg/update',
        'store.user': 'u',
        'store.passwordFile': passwordFile,
        'localApi.port': 8200,
        'localApi.tokenFile': token,
        'device.target': 'http://127.0.0.1:9',
        'log.pretty': false,
        address: 'https://door1:8000',
        'http.tokenFile': token,
        'http.tlsCertFile': tlsCertFile,
        'http.tlsKeyFile': tlsKeyFile,
        'outgoingTokens.defaultFile': token,
        'outgoingTokens.byAddressFiles': { 'https://robot1:8443': token },
        'broker.username': 'sidecar',
        'broker.passwordFile': passwordFile,
        'broker.tls': true,
        'broker.caFile': tlsCertFile,
        'broker.byAddress': { 'edge7:8883': { username: 'edge', passwordFile, caFile: tlsCertFile } },
        workflows: [
          {
            name: 'open',
            capabilityClass: 'plant:DoorOpeningCapability',
            workflowClass: 'plant:OpenDoorWorkflow',
            path: '/open',
            method: 'POST',
            timeoutMs: 5,
          },
        ],
        states: [
          {
            name: 'door',
            capabilityClass: 'plant:DoorStateCapability',
            statePropertyClass: 'plant:DoorStateProperty',
            path: '/state/door',
            timeoutMs: 5,
          },
        ],
      },
    });
    const file = asFile(config) as Record<string, unknown>;
    expect(schemaErrors(file)).toEqual([]);
    expect(Object.keys(file).sort()).toEqual(Object.keys(SIDECAR_CONFIG_SCHEMA.properties as object).sort());
  });
});

describe('--help', () => {
  it('should list the environment variables one per line for --help', () => {
    const lines = formatEnvVars().split('\n');
    expect(lines).toHaveLength(CONFIG_ENV_VARS.length);
    for (const [i, line] of lines.entries()) expect(line).toMatch(new RegExp(`^  ${CONFIG_ENV_VARS[i]!.name} +\\S`, 'u'));
  });
});
