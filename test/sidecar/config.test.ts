import { describe, expect, it } from '@jest/globals';
import { configFixture } from './support/config-fixture.js';
import { CURIE_PREFIXES } from '../../src/iri/curie.js';
import { join } from 'node:path';
import { LIMITS } from '../../src/limits.js';
import { CONFIG_ENV_VARS, CONFIG_PATHS, resourceSlug, storeSpecOf, type SidecarConfig } from '../../src/sidecar/config.js';
import { DEFAULT_DATA_GRAPH, PLANT, svc } from '../../src/vocab/index.js';

const { dir, write, load, problems } = configFixture('sm-config-');

const R = 'https://example.org/plant#door1';
const doorWorkflow = {
  name: 'open',
  capabilityClass: 'plant:DoorOpeningCapability',
  workflowClass: 'plant:OpenDoorWorkflow',
  path: '/open',
};

describe('loadSidecarConfig defaults', () => {
  it('should need nothing but a resource: embedded store in ./.data/<slug>/store, ontology provisioned', async () => {
    const config = await load({ flags: { resource: R } });
    const state = join(dir, '.data', resourceSlug(R));
    expect(config).toEqual({
      resource: R,
      serviceClass: svc.Service,
      store: { url: join(state, 'store') },
      namedGraph: DEFAULT_DATA_GRAPH,
      provisionOntology: true,
      ontologyFiles: [],
      host: '127.0.0.1',
      port: 8000,
      address: 'http://127.0.0.1:8000',
      heartbeatInterval: 30,
      stalenessThreshold: 90,
      sweepInterval: 30,
      workflows: [],
      states: [],
      operationConcurrency: 1,
      discoveryCacheMs: LIMITS.discoveryCacheMs,
      localApi: { socket: join(state, 'local.sock') },
      activityFeed: false,
      activityCapacity: 200,
      autoregisterConnectors: true,
      connectorSyncDirection: 'bidirectional',
      connectorMaxAge: null,
      consolePort: null,
      opcuaPkiDir: join(state, 'opcua-pki'),
      log: { level: 'info', accessLevel: 'debug' },
      tracing: {},
      shutdownGraceMs: LIMITS.shutdownGraceMs,
    });
    expect(storeSpecOf(config.store)).toEqual({ kind: 'embedded', dataDir: join(state, 'store') });
    expect(Object.isFrozen(config) && Object.isFrozen(config.store) && Object.isFrozen(config.workflows)).toBe(true);
  });

  it('should give each resource its own readable, collision-free data directory', () => {
    expect(resourceSlug(R)).toMatch(/^door1-[0-9a-f]{8}$/u);
    expect(resourceSlug('https://other.example/plant#door1')).not.toBe(resourceSlug(R));
    expect(resourceSlug('urn:x:../../etc')).toMatch(/^etc-[0-9a-f]{8}$/u);
  });

  it('should keep state in $STATE_DIRECTORY and the socket in $RUNTIME_DIRECTORY under systemd', async () => {
    const env = { STATE_DIRECTORY: '/var/lib/semantic-sidecar/door1', RUNTIME_DIRECTORY: '/run/semantic-sidecar/door1' };
    const config = await load({ env, flags: { resource: R } });
    expect(config.store.url).toBe('/var/lib/semantic-sidecar/door1/store');
    expect(config.localApi).toEqual({ socket: '/run/semantic-sidecar/door1/local.sock' });
  });

  it('should read the file named by SIDECAR_CONFIG when no file is given', async () => {
    const file = write('from-env.yaml', `resource: ${R}\nport: 8123\n`);
    expect((await load({ env: { SIDECAR_CONFIG: file } })).port).toBe(8123);
  });
});

// One row per setting: the file's value, the environment's and the flag's, and how to read it.
const PRECEDENCE: Array<{
  field: string;
  file: string;
  env: [string, string];
  flag: [string, unknown];
  read: (c: SidecarConfig) => unknown;
  expect: [unknown, unknown, unknown];
}> = [
  {
    field: 'resource',
    file: 'resource: plant:door1',
    env: ['SIDECAR_RESOURCE', 'plant:robot1'],
    flag: ['resource', 'plant:conveyor1'],
    read: (c) => c.resource,
    expect: [PLANT('door1'), PLANT('robot1'), PLANT('conveyor1')],
  },
  {
    field: 'serviceClass',
    file: 'serviceClass: plant:ControllerService',
    env: ['SIDECAR_SERVICE_CLASS', 'plant:MonitorService'],
    flag: ['serviceClass', 'svc:Service'],
    read: (c) => c.serviceClass,
    expect: [PLANT('ControllerService'), PLANT('MonitorService'), svc.Service],
  },
  {
    field: 'store.url',
    file: 'store: memory',
    env: ['SM_STORE', 'http://kg:8890/sparql'],
    flag: ['store.url', '/srv/kg'],
    read: (c) => c.store.url,
    expect: ['memory', 'http://kg:8890/sparql', '/srv/kg'],
  },
  {
    field: 'namedGraph',
    file: 'namedGraph: urn:g:file',
    env: ['SIDECAR_GRAPH', 'urn:g:env'],
    flag: ['namedGraph', 'urn:g:flag'],
    read: (c) => c.namedGraph,
    expect: ['urn:g:file', 'urn:g:env', 'urn:g:flag'],
  },
  {
    field: 'host',
    file: 'host: 127.0.0.2',
    env: ['SIDECAR_HOST', 'localhost'],
    flag: ['host', '::1'],
    read: (c) => c.host,
    expect: ['127.0.0.2', 'localhost', '::1'],
  },
  {
    field: 'port',
    file: 'port: 8001',
    env: ['SIDECAR_PORT', '8002'],
    flag: ['port', '8003'],
    read: (c) => c.port,
    expect: [8001, 8002, 8003],
  },
  {
    field: 'address',
    file: 'address: http://a.example:1',
    env: ['SIDECAR_ADDRESS', 'http://B.example:2/'],
    flag: ['address', 'https://c.example'],
    read: (c) => c.address,
    expect: ['http://a.example:1', 'http://b.example:2', 'https://c.example'],
  },
  {
    field: 'heartbeatInterval',
    file: 'heartbeatInterval: 10',
    env: ['SIDECAR_HEARTBEAT_INTERVAL', 'off'],
    flag: ['heartbeatInterval', 5],
    read: (c) => c.heartbeatInterval,
    expect: [10, null, 5],
  },
  {
    field: 'stalenessThreshold',
    file: 'stalenessThreshold: 100',
    env: ['SIDECAR_STALENESS_THRESHOLD', '120.5'],
    flag: ['stalenessThreshold', '150'],
    read: (c) => c.stalenessThreshold,
    expect: [100, 120.5, 150],
  },
  {
    field: 'sweepInterval',
    file: 'sweepInterval: 11',
    env: ['SIDECAR_SWEEP_INTERVAL', '12'],
    flag: ['sweepInterval', 13],
    read: (c) => c.sweepInterval,
    expect: [11, 12, 13],
  },
  {
    field: 'provisionOntology',
    file: 'provisionOntology: false',
    env: ['SIDECAR_PROVISION_ONTOLOGY', 'true'],
    flag: ['provisionOntology', false],
    read: (c) => c.provisionOntology,
    expect: [false, true, false],
  },
  {
    field: 'device',
    file: 'device: { target: "unix:/run/d.sock" }',
    env: ['SIDECAR_DEVICE', 'http://127.0.0.1:9000'],
    flag: ['device.target', 'unix:/run/e.sock'],
    read: (c) => c.device,
    expect: [
      { target: 'unix:/run/d.sock', timeoutMs: LIMITS.deviceTimeoutMs, healthIntervalMs: LIMITS.deviceHealthIntervalMs },
      { target: 'http://127.0.0.1:9000', timeoutMs: LIMITS.deviceTimeoutMs, healthIntervalMs: LIMITS.deviceHealthIntervalMs },
      { target: 'unix:/run/e.sock', timeoutMs: LIMITS.deviceTimeoutMs, healthIntervalMs: LIMITS.deviceHealthIntervalMs },
    ],
  },
  {
    field: 'device.timeoutMs',
    file: 'device: { url: "http://127.0.0.1:9000", timeoutMs: 100 }',
    env: ['SIDECAR_DEVICE_TIMEOUT_MS', '200'],
    flag: ['device.timeoutMs', 300],
    read: (c) => c.device?.timeoutMs,
    expect: [100, 200, 300],
  },
  {
    field: 'device.healthIntervalMs',
    file: 'device: { target: "unix:/run/d.sock", healthIntervalMs: 100 }',
    env: ['SIDECAR_DEVICE_HEALTH_INTERVAL_MS', '200'],
    flag: ['device.healthIntervalMs', 300],
    read: (c) => c.device?.healthIntervalMs,
    expect: [100, 200, 300],
  },
  {
    field: 'device.healthPath',
    file: 'device: { target: "unix:/run/d.sock", healthPath: /health }',
    env: ['SIDECAR_DEVICE_HEALTH_PATH', '/ready?deep=1'],
    flag: ['device.healthPath', '/alive'],
    read: (c) => c.device?.healthPath,
    expect: ['/health', '/ready?deep=1', '/alive'],
  },
  {
    field: 'localApi',
    file: 'localApi: { socket: /run/a.sock }',
    env: ['SIDECAR_LOCAL_API_SOCKET', '/run/b.sock'],
    flag: ['localApi', false],
    read: (c) => c.localApi,
    expect: [{ socket: '/run/a.sock' }, { socket: '/run/b.sock' }, false],
  },
  {
    field: 'activityFeed',
    file: 'activityFeed: true',
    env: ['SIDECAR_ACTIVITY_FEED', '0'],
    flag: ['activityFeed', 'true'],
    read: (c) => c.activityFeed,
    expect: [true, false, true],
  },
  {
    field: 'activityCapacity',
    file: 'activityCapacity: 10',
    env: ['SIDECAR_ACTIVITY_CAPACITY', '20'],
    flag: ['activityCapacity', 30],
    read: (c) => c.activityCapacity,
    expect: [10, 20, 30],
  },
  {
    field: 'autoregisterConnectors',
    file: 'autoregisterConnectors: false',
    env: ['SIDECAR_AUTOREGISTER_CONNECTORS', 'true'],
    flag: ['autoregisterConnectors', false],
    read: (c) => c.autoregisterConnectors,
    expect: [false, true, false],
  },
  {
    field: 'connectorSyncDirection',
    file: 'connectorSyncDirection: to_persistence',
    env: ['SIDECAR_CONNECTOR_SYNC_DIRECTION', 'from_persistence'],
    flag: ['connectorSyncDirection', 'bidirectional'],
    read: (c) => c.connectorSyncDirection,
    expect: ['to_persistence', 'from_persistence', 'bidirectional'],
  },
  {
    field: 'connectorMaxAge',
    file: 'connectorMaxAge: 5',
    env: ['SIDECAR_CONNECTOR_MAX_AGE', 'off'],
    flag: ['connectorMaxAge', '2.5'],
    read: (c) => c.connectorMaxAge,
    expect: [5, null, 2.5],
  },
  {
    field: 'opcuaPkiDir',
    file: 'opcuaPkiDir: /srv/pki-file',
    env: ['SIDECAR_OPCUA_PKI_DIR', '/srv/pki-env'],
    flag: ['opcuaPkiDir', '/srv/pki-flag'],
    read: (c) => c.opcuaPkiDir,
    expect: ['/srv/pki-file', '/srv/pki-env', '/srv/pki-flag'],
  },
  {
    field: 'log.level',
    file: 'log: { level: warn }',
    env: ['LOG_LEVEL', 'debug'],
    flag: ['log.level', 'silent'],
    read: (c) => c.log.level,
    expect: ['warn', 'debug', 'silent'],
  },
  {
    field: 'log.accessLevel',
    file: 'log: { accessLevel: info }',
    env: ['LOG_ACCESS_LEVEL', 'warn'],
    flag: ['log.accessLevel', 'silent'],
    read: (c) => c.log.accessLevel,
    expect: ['info', 'warn', 'silent'],
  },
  {
    field: 'log.pretty',
    file: 'log: { pretty: true }',
    env: ['LOG_PRETTY', 'false'],
    flag: ['log.pretty', true],
    read: (c) => c.log.pretty,
    expect: [true, false, true],
  },
  {
    field: 'shutdownGraceMs',
    file: 'shutdownGraceMs: 1000',
    env: ['SIDECAR_SHUTDOWN_GRACE_MS', '2000'],
    flag: ['shutdownGraceMs', 0],
    read: (c) => c.shutdownGraceMs,
    expect: [1000, 2000, 0],
  },
  {
    field: 'operationConcurrency',
    file: 'operationConcurrency: 4',
    env: ['SIDECAR_OPERATION_CONCURRENCY', '8'],
    flag: ['operationConcurrency', '2'],
    read: (c) => c.operationConcurrency,
    expect: [4, 8, 2],
  },
  {
    field: 'discoveryCacheMs',
    file: 'discoveryCacheMs: 250',
    env: ['SIDECAR_DISCOVERY_CACHE_MS', '0'],
    flag: ['discoveryCacheMs', '5000'],
    read: (c) => c.discoveryCacheMs,
    expect: [250, 0, 5000],
  },
  {
    field: 'consolePort',
    file: 'consolePort: 8095',
    env: ['SIDECAR_CONSOLE_PORT', 'off'],
    flag: ['consolePort', '0'],
    read: (c) => c.consolePort,
    expect: [8095, null, 0],
  },
  {
    field: 'store.timeoutMs',
    file: 'store: { url: "http://kg/sparql", timeoutMs: 1000 }',
    env: ['SPARQL_TIMEOUT_MS', '2000'],
    flag: ['store.timeoutMs', '3000'],
    read: (c) => c.store.timeoutMs,
    expect: [1000, 2000, 3000],
  },
  {
    field: 'tracing.otlpEndpoint',
    file: 'tracing: { otlpEndpoint: "http://collector-a:4318" }',
    env: ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://collector-b:4318'],
    flag: ['tracing.otlpEndpoint', 'http://collector-c:4318'],
    read: (c) => c.tracing.otlpEndpoint,
    expect: ['http://collector-a:4318', 'http://collector-b:4318', 'http://collector-c:4318'],
  },
];

describe('loadSidecarConfig precedence: defaults < file < environment < flags', () => {
  it.each(PRECEDENCE)('should take $field from the file, then the environment, then a flag', async (row) => {
    const file = write(`precedence-${row.field}.yaml`, `${row.field === 'resource' ? '' : `resource: ${R}\n`}${row.file}\n`);
    const env = { [row.env[0]]: row.env[1] };
    const flags = { [row.flag[0]]: row.flag[1] };
    expect(row.read(await load({ file }))).toEqual(row.expect[0]);
    expect(row.read(await load({ file, env }))).toEqual(row.expect[1]);
    expect(row.read(await load({ file, env, flags }))).toEqual(row.expect[2]);
  });

  it('should cover every environment variable that names a setting', () => {
    const covered = new Set(PRECEDENCE.map((row) => row.env[0]));
    const untested = CONFIG_ENV_VARS.filter((v) => v.field !== undefined && !covered.has(v.name)).map((v) => v.name);
    // Tested on their own below: credentials, the update URL, ontology files, the loopback API;
    // the HTTP token, TLS and outgoing tokens in auth-config.test.ts; the broker credentials in
    // test/e2e/connectors-credentials.test.ts.
    const security = [
      'SIDECAR_BROKER_CA_FILE',
      'SIDECAR_BROKER_CERT_FILE',
      'SIDECAR_BROKER_KEY_FILE',
      'SIDECAR_BROKER_PASSWORD',
      'SIDECAR_BROKER_PASSWORD_FILE',
      'SIDECAR_BROKER_TLS',
      'SIDECAR_BROKER_USERNAME',
      'SIDECAR_HTTP_TLS_CERT_FILE',
      'SIDECAR_HTTP_TLS_KEY_FILE',
      'SIDECAR_HTTP_TOKEN',
      'SIDECAR_HTTP_TOKEN_FILE',
      'SIDECAR_OUTGOING_TOKEN',
      'SIDECAR_OUTGOING_TOKEN_FILE',
    ];
    expect(untested.sort()).toEqual(
      [
        'SIDECAR_DEVICE_SOCKET',
        'SIDECAR_DEVICE_URL',
        'SIDECAR_STORE',
        ...security,
        'SIDECAR_LOCAL_API_PORT',
        'SIDECAR_LOCAL_API_TOKEN_FILE',
        'SIDECAR_ONTOLOGY_FILES',
        'SPARQL_PASSWORD',
        'SPARQL_PASSWORD_FILE',
        'SPARQL_UPDATE_URL',
        'SPARQL_USER',
      ].sort(),
    );
    // Secrets from the environment are resolved values, not settings a file or flag may name.
    const secrets = ['store.password', 'http.token', 'outgoingTokens.default', 'broker.password'];
    for (const v of CONFIG_ENV_VARS) if (v.field !== undefined && !secrets.includes(v.field)) expect(CONFIG_PATHS).toContain(v.field);
    expect(new Set(CONFIG_ENV_VARS.map((v) => v.name)).size).toBe(CONFIG_ENV_VARS.length);
  });

  it('should read SIDECAR_DEVICE_SOCKET and SIDECAR_ONTOLOGY_FILES relative to the working directory', async () => {
    write('onto/a.ttl', '');
    write('onto/b.nt', '');
    const env = { SIDECAR_DEVICE_SOCKET: 'run/dev.sock', SIDECAR_ONTOLOGY_FILES: 'onto/a.ttl:onto/b.nt' };
    const config = await load({ env, flags: { resource: R } });
    expect(config.device).toEqual({
      target: `unix:${join(dir, 'run/dev.sock')}`,
      timeoutMs: LIMITS.deviceTimeoutMs,
      healthIntervalMs: LIMITS.deviceHealthIntervalMs,
    });
    expect(config.ontologyFiles).toEqual([join(dir, 'onto/a.ttl'), join(dir, 'onto/b.nt')]);
  });

  it('should resolve relative paths in a file against the file, not the working directory', async () => {
    write('sub/onto.ttl', '');
    const file = write('sub/rel.yaml', `resource: ${R}\nstore: data\nontologyFiles: [onto.ttl]\ndevice: { target: "unix:dev.sock" }\n`);
    const config = await load({ file, cwd: '/' });
    expect([config.store.url, config.ontologyFiles[0], config.device?.target]).toEqual([
      join(dir, 'sub/data'),
      join(dir, 'sub/onto.ttl'),
      `unix:${join(dir, 'sub/dev.sock')}`,
    ]);
  });

  it('should replace a list from a lower layer whole, not merge it', async () => {
    const file = write(
      'lists.yaml',
      `resource: ${R}\ndevice: { url: "http://127.0.0.1:9" }\nworkflows:\n  - { name: open, capabilityClass: plant:DoorOpeningCapability, workflowClass: plant:OpenDoorWorkflow, path: /open }\n`,
    );
    const workflows = [{ ...doorWorkflow, name: 'open2' }];
    expect((await load({ file, flags: { workflows } })).workflows.map((w) => w.name)).toEqual(['open2']);
  });
});

describe('loadSidecarConfig CURIEs and IRIs', () => {
  it.each([
    ['svc:Service', svc.Service],
    ['cfc:Resource', 'https://w3id.org/circularfactory/Core#Resource'],
    ['mes:Pick', 'https://w3id.org/circularfactory/MES#Pick'],
    ['plant:OpenDoorWorkflow', PLANT('OpenDoorWorkflow')],
    ['https://example.org/x#Y', 'https://example.org/x#Y'],
    ['urn:example:class', 'urn:example:class'],
  ])('should read %s as %s', async (value, iri) => {
    const flags = {
      resource: R,
      device: undefined,
      'device.url': 'http://127.0.0.1:9',
      workflows: [{ ...doorWorkflow, workflowClass: value }],
    };
    expect((await load({ flags })).workflows[0]!.workflowClass).toBe(iri);
  });

  it('should name an unknown prefix, the field and the file', async () => {
    const file = write(
      'door1.yaml',
      `resource: ${R}\ndevice: { socket: /run/d.sock }\nworkflows:\n  - { name: open, capabilityClass: "plnt:DoorOpeningCapability", workflowClass: plant:OpenDoorWorkflow, path: /open }\n`,
    );
    expect(await problems({ file })).toEqual([
      `config file ${file}: workflows[0].capabilityClass: unknown prefix "plnt:" (expected an IRI or one of ${Object.keys(CURIE_PREFIXES)
        .map((p) => `${p}:`)
        .join(', ')}) (got "plnt:DoorOpeningCapability")`,
    ]);
  });

  it('should refuse IRIs SPARQL could not hold and CURIEs with odd local names', async () => {
    const lines = await problems({ flags: { resource: 'https://example.org/a b', serviceClass: 'svc:Ser>vice', namedGraph: 'no-scheme' } });
    expect(lines).toEqual([
      'command line: resource: is not a valid absolute IRI: it contains the character " ", which IRIs may not hold (got "https://example.org/a b")',
      'command line: serviceClass: the local name after "svc:" may hold only A-Z a-z 0-9 _ . ~ - (expected e.g. "svc:Service") (got "svc:Ser>vice")',
      'command line: namedGraph: is not a valid absolute IRI: it has no scheme (an absolute IRI starts like "https:" or "urn:") (got "no-scheme")',
    ]);
  });
});
