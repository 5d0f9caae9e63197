import { describe, expect, it } from '@jest/globals';
import { configFixture } from './support/config-fixture.js';
import { ValueError } from '../../src/errors.js';
import fc from 'fast-check';
import { isIri } from '../../src/iri/validate.js';
import { CONFIG_PATHS, loadSidecarConfig, storeSpecOf, type SidecarConfig } from '../../src/sidecar/config.js';

const { dir, write, load, problems } = configFixture('sm-config-validation-');

const R = 'https://example.org/plant#door1';
const doorWorkflow = {
  name: 'open',
  capabilityClass: 'plant:DoorOpeningCapability',
  workflowClass: 'plant:OpenDoorWorkflow',
  path: '/open',
};

describe('loadSidecarConfig validation', () => {
  it('should list every problem at once, each with its source and field', async () => {
    const file = write('many.yaml', `resource: ${R}\nport: 70000\nprot: 1\nheartbeatInterval: 0\nlog: { level: loud }\n`);
    const lines = await problems({ file, env: { SIDECAR_STALENESS_THRESHOLD: 'soon' } });
    expect(lines).toEqual(
      expect.arrayContaining([
        `config file ${file}: prot: unknown key, did you mean "port"? (expected one of ${CONFIG_PATHS.filter((p) => !p.includes('.')).join(', ')})`,
        `config file ${file}: port: must be <= 65535 (got 70000)`,
        `config file ${file}: heartbeatInterval: must be > 0 (got 0)`,
        `config file ${file}: log.level: must be one of "trace", "debug", "info", "warn", "error", "fatal", "silent" (got "loud")`,
        'environment SIDECAR_STALENESS_THRESHOLD: stalenessThreshold: must be a number (got "soon")',
      ]),
    );
    expect(lines).toHaveLength(5);
  });

  it.each([
    ['-1', 'port: must be >= 0 (got -1)'],
    ['80.5', 'port: must be an integer (got 80.5)'],
    ['http', 'port: must be an integer (got "http")'],
    ['0x50', 'port: must be an integer (got "0x50")'],
  ])('should refuse SIDECAR_PORT=%s', async (value, message) => {
    expect(await problems({ env: { SIDECAR_PORT: value }, flags: { resource: R } })).toEqual([`environment SIDECAR_PORT: ${message}`]);
  });

  it.each([
    ['0', 'operationConcurrency: must be >= 1 (got 0)'],
    ['257', 'operationConcurrency: must be <= 256 (got 257)'],
    ['1.5', 'operationConcurrency: must be an integer (got 1.5)'],
  ])('should refuse SIDECAR_OPERATION_CONCURRENCY=%s', async (value, message) => {
    expect(await problems({ env: { SIDECAR_OPERATION_CONCURRENCY: value }, flags: { resource: R } })).toEqual([
      `environment SIDECAR_OPERATION_CONCURRENCY: ${message}`,
    ]);
  });

  it.each([
    ['-1', 'discoveryCacheMs: must be >= 0 (got -1)'],
    ['0.5', 'discoveryCacheMs: must be an integer (got 0.5)'],
    ['soon', 'discoveryCacheMs: must be an integer (got "soon")'],
  ])('should refuse SIDECAR_DISCOVERY_CACHE_MS=%s', async (value, message) => {
    expect(await problems({ env: { SIDECAR_DISCOVERY_CACHE_MS: value }, flags: { resource: R } })).toEqual([
      `environment SIDECAR_DISCOVERY_CACHE_MS: ${message}`,
    ]);
  });

  it('should refuse unknown keys at every level, suggesting the closest', async () => {
    const file = write(
      'typos.yaml',
      `resource: ${R}\nstore: { url: memory, updateURL: "http://x" }\ndevice: { socket: /run/d.sock }\nworkflows:\n  - { name: open, capabilityClass: plant:DoorOpeningCapability, workflowClass: plant:OpenDoorWorkflow, path: /open, timeout: 5 }\n`,
    );
    const lines = await problems({ file });
    expect(lines).toContain(
      `config file ${file}: store.updateURL: unknown key, did you mean "updateUrl"? (expected one of url, updateUrl, user, passwordFile, timeoutMs)`,
    );
    expect(lines).toContain(
      `config file ${file}: workflows[0].timeout: unknown key, did you mean "timeoutMs"? (expected one of name, capabilityClass, workflowClass, path, method, timeoutMs)`,
    );
  });

  it('should refuse an unknown flag key', async () => {
    expect((await problems({ flags: { resource: R, 'store.pasword': 'x' } }))[0]).toMatch(
      /^command line: store\.pasword: unknown key, did you mean "store\.passwordFile"\?/u,
    );
  });

  it('should require a resource for start, and say where to give it', async () => {
    expect(await problems({})).toEqual(['resource: is required by start: set resource in the config file, SIDECAR_RESOURCE or --resource']);
  });

  it('should keep the staleness threshold above the heartbeat interval', async () => {
    expect(await problems({ flags: { resource: R, heartbeatInterval: 60, stalenessThreshold: 60 } })).toEqual([
      'command line: stalenessThreshold: must be greater than heartbeatInterval (60), or the Service looks dead between heartbeats (got 60)',
    ]);
    expect(await problems({ flags: { resource: R, heartbeatInterval: 120 } })).toEqual([
      'command line: heartbeatInterval: must be less than stalenessThreshold (90), or the Service looks dead between heartbeats (got 120)',
    ]);
    expect((await load({ flags: { resource: R, heartbeatInterval: null, stalenessThreshold: 5 } })).heartbeatInterval).toBeNull();
  });

  it('should check names: valid, unique, not the reserved event trigger', async () => {
    const bad = (name: string) => ({ ...doorWorkflow, name });
    const flags = {
      resource: R,
      'device.url': 'http://127.0.0.1:9',
      workflows: [bad('open door'), bad('a/b'), bad('open'), bad('open'), bad('event_trigger')],
    };
    expect(await problems({ flags })).toEqual([
      'command line: workflows[0].name: is not a valid name: use 1 to 128 of the characters A-Z a-z 0-9 . _ ~ - (got "open door")',
      'command line: workflows[1].name: is not a valid name: use 1 to 128 of the characters A-Z a-z 0-9 . _ ~ - (got "a/b")',
      'command line: workflows[3].name: is declared twice in workflows (got "open")',
      'command line: workflows[4].name: is reserved for the built-in event trigger (got "event_trigger")',
    ]);
  });

  it('should check device paths, device URLs and the address', async () => {
    const flags = {
      resource: R,
      'device.url': 'http://u:pw@127.0.0.1:9000',
      address: 'ftp://x',
      workflows: [
        { ...doorWorkflow, path: 'open' },
        { ...doorWorkflow, name: 'b', path: '/../etc' },
        { ...doorWorkflow, name: 'c', path: '/a b' },
        { ...doorWorkflow, name: 'd', path: '/ok?x=1' },
      ],
    };
    const lines = await problems({ flags });
    expect(lines).toEqual([
      'command line: address: is not an absolute http(s) URL (expected e.g. "http://door1.plant.local:8000") (got "ftp://x")',
      'command line: device.url: must not hold credentials (user:password@) (got "http://<credentials>@127.0.0.1:9000")',
      ...['[0]', '[1]', '[2]'].map(
        (i, n) =>
          `command line: workflows${i}.path: must be a path on the device starting with "/", without spaces, "#", "." or ".." segments (expected e.g. "/door/open") (got ${JSON.stringify(['open', '/../etc', '/a b'][n])})`,
      ),
    ]);
  });

  it('should need a device when workflows or states are declared, and only one target', async () => {
    expect(await problems({ flags: { resource: R, workflows: [doorWorkflow] } })).toEqual([
      'command line: device: is required when workflows or states are declared: set device.target',
    ]);
    const file = write('both.yaml', `resource: ${R}\ndevice: { url: "http://127.0.0.1:9", socket: /run/d.sock }\n`);
    expect(await problems({ file })).toEqual([
      `config file ${file}: device: give one of device.url, device.socket, not several (device.target is the one to use)`,
    ]);
  });

  it('should refuse a wildcard host without an address, and accept it with one', async () => {
    expect(await problems({ flags: { resource: R, host: '0.0.0.0' } })).toEqual([
      'command line: host: listens on every interface, which is no address others can call: set address too (got "0.0.0.0")',
    ]);
    const config = await load({ flags: { resource: R, host: '0.0.0.0', address: 'http://Door1.Plant:8000/' } });
    expect(config.address).toBe('http://door1.plant:8000');
    expect((await load({ flags: { resource: R, port: 0 } })).address).toBeUndefined();
    expect((await problems({ flags: { resource: R, host: 'bad host!' } }))[0]).toBe(
      'command line: host: must be a host name or an IP address (expected e.g. "127.0.0.1") (got "bad host!")',
    );
  });

  it('should take a store on a Unix socket as store serve --socket prints it, and refuse one that names no socket', async () => {
    const url = `http+unix://${encodeURIComponent('/run/semantic-sidecar/store.sock')}/sparql`;
    const config = await load({ flags: { resource: R, 'store.url': url } });
    expect(storeSpecOf(config.store)).toMatchObject({ kind: 'remote', queryUrl: url, updateUrl: url });
    expect(await problems({ flags: { resource: R, 'store.url': 'http+unix://store.sock/sparql' } })).toEqual([
      'command line: store.url: an http+unix URL names its socket as its host, percent-encoded: http+unix://%2Frun%2Fstore.sock/sparql (got "http+unix://store.sock/sparql")',
    ]);
  });

  it('should refuse a Unix socket path longer than the kernel holds', async () => {
    const long = `/run/${'x'.repeat(120)}.sock`;
    expect((await problems({ flags: { resource: R, 'localApi.socket': long } }))[0]).toMatch(
      /^command line: localApi\.socket: is 130 bytes long, but a Unix socket path may be at most 107/u,
    );
    // The default socket lives under the working directory: a deep one is caught too.
    const deep = `/${'d'.repeat(90)}`;
    expect(await problems({ flags: { resource: R }, cwd: deep })).toEqual([
      expect.stringMatching(
        /^default: localApi\.socket: is \d+ bytes long, .*; set localApi\.socket, or run from a shorter directory \(got "\/d+/u,
      ),
    ]);
  });
});

describe('loadSidecarConfig with hostile input', () => {
  // Every problem is one line: a value or key holding newlines or control characters must not
  // be able to forge another line (or another problem) in the message.
  const oneLinePerProblem = (message: string): void => {
    for (const line of message.split('\n').slice(1)) {
      // eslint-disable-next-line no-control-regex -- a problem line must hold no raw control character
      expect(line).toMatch(/^ {2}- [^\u0000-\u001f\u007f]*$/u);
    }
  };

  it('should keep a key named __proto__ as an unknown key, not a prototype', async () => {
    const file = write('proto.json', `{"resource": "${R}", "__proto__": {"port": 1}, "store": {"__proto__": {"url": "memory"}}}`);
    const lines = await problems({ file });
    expect(lines).toEqual([
      `config file ${file}: __proto__: unknown key (expected one of ${CONFIG_PATHS.filter((p) => !p.includes('.')).join(', ')})`,
      `config file ${file}: store.__proto__: unknown key (expected one of url, updateUrl, user, passwordFile, timeoutMs)`,
    ]);
    expect(({} as Record<string, unknown>).port).toBeUndefined();
  });

  it('should quote keys and values with newlines instead of letting them start a line', async () => {
    const file = write(
      'newlines.json',
      JSON.stringify({
        resource: 'urn:a\n  - forged',
        'x\n  - forged: y': 1,
        workflows: [{ name: 'a\nb', capabilityClass: 'svc:X', workflowClass: 'svc:Y', path: '/p' }],
      }),
    );
    const error = await load({ file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValueError);
    oneLinePerProblem((error as Error).message);
    expect((error as Error).message).toContain('"urn:a\\n  - forged"');
  });

  it('should either load or throw one ValueError with one line per problem, for any strings', async () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('svc:Service', 'plant:door1', '/open', '127.0.0.1', 'memory', '<>', '"}', 'a b'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({ resource: text, serviceClass: text, host: text, store: text, name: text, path: text, klass: text, key: fc.string() }),
        async (v) => {
          const flags = {
            resource: v.resource,
            serviceClass: v.serviceClass,
            host: v.host,
            store: v.store,
            'device.url': 'http://127.0.0.1:9',
          };
          const file = write(
            'fuzz.json',
            JSON.stringify({
              [v.key]: 1,
              workflows: [{ name: v.name, path: v.path, capabilityClass: v.klass, workflowClass: 'svc:Workflow' }],
            }),
          );
          const outcome = await loadSidecarConfig({ file, flags, env: {}, cwd: dir }).then(
            (config) => config,
            (e: unknown) => e,
          );
          if (outcome instanceof Error) {
            expect(outcome).toBeInstanceOf(ValueError);
            oneLinePerProblem(outcome.message);
          } else {
            expect(isIri((outcome as SidecarConfig).resource)).toBe(true);
            expect(isIri((outcome as SidecarConfig).workflows[0]!.capabilityClass)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
