import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { LIMITS } from '../../src/limits.js';
import { loadSidecarConfig } from '../../src/sidecar/config.js';

// Docker cannot run here: these tests read the deployment files and check that everything they
// reference exists in the repository and that every config they start validates.

const root = fileURLToPath(new URL('../..', import.meta.url));
const dockerDir = join(root, 'docker');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { disable?: boolean; test?: string[] };
  stop_grace_period?: string;
}
const compose = parse(read('docker/docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = Object.entries(compose.services);

// What the Dockerfile copies into the image under WORKDIR /app.
const dockerfile = read('docker/Dockerfile');
const WORKDIR = /^WORKDIR (\S+)$/mu.exec(dockerfile.split(/^FROM .* AS runtime$/mu)[1]!)![1]!;
const copies = [...dockerfile.matchAll(/^COPY (?!--from)(\S+(?: \S+)*) (\S+)$/gmu)].map((m) => ({
  sources: m[1]!.split(' '),
  target: m[2]!,
}));

/** The repository path a container path of `service` comes from (a bind mount or the image), if any. */
function hostPath(service: Service, containerPath: string): string | undefined {
  const absolute = posix.resolve(WORKDIR, containerPath);
  for (const volume of service.volumes ?? []) {
    const [source, target] = volume.split(':') as [string, string];
    if (source.startsWith('.') && (absolute === target || absolute.startsWith(`${target}/`)))
      return resolve(dockerDir, source) + absolute.slice(target.length);
  }
  for (const dir of ['config', 'ontology', 'bin']) {
    const inImage = posix.join(WORKDIR, dir);
    if (absolute.startsWith(`${inImage}/`)) return join(root, dir, absolute.slice(inImage.length + 1));
  }
  return undefined;
}

const durationSeconds = (text: string): number => Number(/^(\d+)s?$/u.exec(text)?.[1] ?? NaN);

describe('docker/Dockerfile', () => {
  it('should build in stages and run production dependencies as a non-root user', () => {
    expect(dockerfile.match(/^FROM /gmu)!.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/npm ci --omit=dev/u);
    expect(dockerfile).toMatch(/^USER (?!root)\w+$/mu);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["semantic-sidecar"\]$/mu);
    const probe = /^HEALTHCHECK .*\n?.*CMD \["node", "(\S+)"\]$/mu.exec(dockerfile)![1]!;
    expect(
      copies.some(
        (c) => posix.resolve(WORKDIR, c.target) === probe && readFileSync(join(root, c.sources[0]!), 'utf8').includes('/healthz'),
      ),
    ).toBe(true);
  });

  it('should copy only what exists, and let its .dockerignore through', () => {
    const ignore = read('docker/Dockerfile.dockerignore');
    for (const source of copies.flatMap((c) => c.sources)) {
      expect(existsSync(join(root, source)) ? source : `missing: ${source}`).toBe(source);
      expect(ignore).toContain(`!${source}`);
    }
    expect(copies.map((c) => c.sources[0])).toEqual(expect.arrayContaining(['src', 'bin', 'ontology', 'config']));
  });
});

describe('docker/docker-compose.yml', () => {
  it('should build from files that exist and mount only paths that exist', () => {
    for (const [name, service] of services) {
      if (service.build) expect(existsSync(join(resolve(dockerDir, service.build.context), service.build.dockerfile))).toBe(true);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.') || source.startsWith('/'))
          expect(existsSync(resolve(dockerDir, source)) ? volume : `${name}: missing ${source}`).toBe(volume);
        else expect(Object.keys(compose.volumes)).toContain(source);
      }
    }
  });

  it('should reference only files the repository has, in every entrypoint and command', () => {
    const checked: string[] = [];
    for (const [, service] of services) {
      for (const word of [...(service.entrypoint ?? []), ...(service.command ?? [])].flatMap((w) => w.split(/\s+/u))) {
        if (!/\.(ya?ml|json|mjs|js|ttl)$/u.test(word)) continue;
        const path = hostPath(service, word);
        expect(path !== undefined && existsSync(path) ? word : `missing: ${word}`).toBe(word);
        checked.push(word);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        '/app/config/door1.yaml',
        '/app/config/watchdog.yaml',
        '/opt/mock-plc-bridge/bridge.mjs',
        'ontology/examples/plant.ttl',
      ]),
    );
  });

  it('should start every sidecar with a config that validates under its environment', async () => {
    for (const [name, service] of services) {
      const args = service.command ?? [];
      const at = args.indexOf('--config');
      if (at < 0) continue;
      const purpose = args[0] === 'watchdog' ? 'watchdog' : 'start';
      const env = { ...service.environment, STATE_DIRECTORY: '/var/lib/semantic-sidecar', RUNTIME_DIRECTORY: '/run/semantic-sidecar' };
      const config = await loadSidecarConfig({ file: hostPath(service, args[at + 1]!)!, env, purpose, cwd: root });
      expect([name, config.store.url]).toEqual([name, 'http://virtuoso:8890/sparql']);
      if (purpose === 'start') expect(config.address).toBe(`http://${name}:${config.port}`);
    }
  });

  it('should let door1 and its bridge share the device socket through one named volume', () => {
    const bridge = compose.services['door1-bridge']!;
    const sidecar = compose.services.door1!;
    const socket = bridge.command![bridge.command!.indexOf('--socket') + 1]!;
    expect(sidecar.environment!.SIDECAR_DEVICE).toBe(`unix:${socket}`);
    const shared = (s: Service): string | undefined =>
      s.volumes!.find((v) => !v.startsWith('.') && posix.dirname(socket) === v.split(':')[1]);
    expect(shared(bridge)).toBeDefined();
    expect(shared(sidecar)).toBe(shared(bridge));
  });

  it('should load the ontology once before the sidecars, into a Virtuoso set up like scripts/virtuoso.sh', () => {
    const { virtuoso, ontology } = compose.services;
    expect(virtuoso!.image).toMatch(/^openlink\/virtuoso-opensource-7/u);
    const ini = read('scripts/virtuoso.sh');
    for (const key of ['DefaultIsolation', 'MaxSortedTopRows', 'ResultSetMaxRows']) {
      const value = new RegExp(`^${key} = (\\S+)$`, 'mu').exec(ini)![1];
      expect(Object.entries(virtuoso!.environment!).find(([k]) => k.endsWith(`_${key}`))?.[1]).toBe(value);
    }
    const grant = virtuoso!.volumes!.find((v) => v.includes('initdb.d'))!.split(':')[0]!;
    expect(readFileSync(resolve(dockerDir, grant), 'utf8')).toContain('GRANT SPARQL_UPDATE TO "SPARQL";');
    expect(ontology!.depends_on!.virtuoso!.condition).toBe('service_healthy');
    for (const name of ['door1', 'watchdog'])
      expect(compose.services[name]!.depends_on!.ontology!.condition).toBe('service_completed_successfully');
  });

  it('should give sidecars more time to stop than their shutdown grace', () => {
    for (const name of ['door1', 'watchdog'])
      expect(durationSeconds(compose.services[name]!.stop_grace_period!)).toBeGreaterThan(LIMITS.shutdownGraceMs / 1000);
  });
});

/** `key=value` lines of a unit file, by section (repeated keys kept in order). */
function unit(path: string): Record<string, Array<[string, string]>> {
  const sections: Record<string, Array<[string, string]>> = {};
  let current = '';
  for (const line of read(path).split('\n')) {
    const section = /^\[(\w+)\]$/u.exec(line);
    if (section) sections[(current = section[1]!)] = [];
    else if (/^[A-Za-z]+=/u.test(line)) sections[current]!.push(line.split(/=(.*)/su).slice(0, 2) as [string, string]);
  }
  return sections;
}
const value = (entries: Array<[string, string]> | undefined, key: string): string | undefined =>
  entries?.filter(([k]) => k === key).at(-1)?.[1];

describe('the deployed environment', () => {
  it("should be the same in the Dockerfile's runtime image as in the sidecar unit", () => {
    const { Service } = unit('config/systemd/semantic-sidecar@.service');
    const fromUnit = Object.fromEntries(
      Service!
        .filter(([k]) => k === 'Environment')
        .map(([, v]) => v.replace(/^"|"$/gu, '').split(/=(.*)/su).slice(0, 2) as [string, string]),
    );
    const runtime = dockerfile.split(/^FROM .* AS runtime$/mu)[1]!;
    const env = /^ENV ((?:.*\\\n)*.*)$/mu.exec(runtime)![1]!.replace(/\\\n/gu, ' ');
    const fromImage = Object.fromEntries([...env.matchAll(/(\w+)=("[^"]*"|\S+)/gu)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/gu, '')]));
    expect(Object.keys(fromUnit).sort()).toEqual(['MALLOC_TRIM_THRESHOLD_', 'NODE_ENV', 'NODE_OPTIONS']);
    for (const [key, v] of Object.entries(fromUnit)) expect([key, fromImage[key]]).toEqual([key, v]);
  });
});

describe('config/systemd', () => {
  const HARDENING: Record<string, string> = {
    NoNewPrivileges: 'yes',
    ProtectSystem: 'strict',
    ProtectHome: 'yes',
    PrivateTmp: 'yes',
    RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6',
    CapabilityBoundingSet: '',
    KillSignal: 'SIGTERM',
    Restart: 'on-failure',
  };

  it.each([
    ['config/systemd/semantic-sidecar@.service', 'start --config /etc/semantic-sidecar/config/%i.yaml', 'semantic-sidecar/%i'],
    [
      'config/systemd/semantic-sidecar-watchdog.service',
      'watchdog --config /etc/semantic-sidecar/config/watchdog.yaml',
      'semantic-sidecar/watchdog',
    ],
  ])('%s should run the right command, restart with limits, and be hardened', (path, command, stateDirectory) => {
    const { Unit, Service, Install } = unit(path);
    expect(value(Service, 'ExecStart')).toBe(`semantic-sidecar ${command}`);
    expect(value(Service, 'StateDirectory')).toBe(stateDirectory);
    for (const [key, expected] of Object.entries(HARDENING)) expect([key, value(Service, key)]).toEqual([key, expected]);
    expect(Service!.filter(([k]) => k === 'SystemCallFilter').map(([, v]) => v)).toContain('@system-service');
    expect(value(Service, 'User') ?? value(Service, 'DynamicUser')).toBeTruthy();
    expect(durationSeconds(value(Service, 'RestartSec')!)).toBeGreaterThan(0);
    expect(Number(value(Unit, 'StartLimitBurst'))).toBeGreaterThan(0);
    expect(durationSeconds(value(Unit, 'StartLimitIntervalSec')!)).toBeGreaterThan(0);
    expect(durationSeconds(value(Service, 'TimeoutStopSec')!)).toBeGreaterThan(LIMITS.shutdownGraceMs / 1000);
    expect(value(Install, 'WantedBy')).toBe('multi-user.target');
  });

  it('should name instances after the example configs, which exist', () => {
    for (const instance of ['door1', 'robot1', 'remote-store']) expect(existsSync(join(root, 'config', `${instance}.yaml`))).toBe(true);
    expect(existsSync(join(root, 'config', 'watchdog.yaml'))).toBe(true);
    expect(read('config/systemd/semantic-sidecar.sysusers.conf')).toMatch(/^u semantic-sidecar /mu);
  });
});
