import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'n3';
import { parse } from 'yaml';
import { loadSidecarConfig } from '../../src/sidecar/config.js';
import { inf } from '../../src/vocab/index.js';
import { composeCommand } from '../support/compose-command.js';

// The MQTT part of docker/docker-compose.yml: Mosquitto, the simulated PLC of examples/mqtt-plc
// and a sidecar that finds the PLC's parameters in the ontology, read and its pieces run as the
// containers would run them (test/deploy/compose-plant.test.ts runs the containers themselves).

const root = fileURLToPath(new URL('../..', import.meta.url));
const dockerDir = join(root, 'docker');
const composeFile = join(dockerDir, 'docker-compose.yml');

interface Service {
  image?: string;
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[] };
}
const { services } = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as { services: Record<string, Service> };
const { mosquitto, ontology, 'transfer-unit1-plc': plc, 'transfer-unit1': sidecar } = services;

/** The bind mount of `service` whose container side is `target`, as a repository path. */
function mountedFrom(service: Service, target: string): string | undefined {
  const volume = service.volumes?.find((v) => v.split(':')[1] === target);
  return volume === undefined ? undefined : resolve(dockerDir, volume.split(':')[0]!);
}

/** The listener port of the broker's config file. */
function listenerPort(): number {
  const conf = readFileSync(mountedFrom(mosquitto!, '/mosquitto/config/mosquitto.conf')!, 'utf8');
  return Number(/^listener (\d+)\s*$/mu.exec(conf)![1]);
}

/** `host:container` of a `127.0.0.1:host:container` port entry. */
function published(entry: string): { address: string; host: number; container: number } {
  const [address, host, container] = entry.split(':');
  return { address: address!, host: Number(host), container: Number(container) };
}

describe('docker/docker-compose.yml: Mosquitto, the MQTT PLC and its sidecar', () => {
  it('should have the three services, built from this image or Eclipse Mosquitto 2', () => {
    expect(mosquitto?.image).toMatch(/^eclipse-mosquitto:2/u);
    expect(plc?.image).toBe(services['door1']!.image);
    expect(sidecar?.image).toBe(services['door1']!.image);
  });

  it('should mount only files that exist and run the example scripts from the mount', () => {
    const example = mountedFrom(plc!, '/app/examples/mqtt-plc');
    expect(example).toBe(join(root, 'examples', 'mqtt-plc'));
    expect(mountedFrom(ontology!, '/app/examples/mqtt-plc')).toBe(example);
    expect(existsSync(join(example!, plc!.entrypoint![1]!.slice('/app/examples/mqtt-plc/'.length)))).toBe(true);
    expect(existsSync(mountedFrom(mosquitto!, '/mosquitto/config/mosquitto.conf')!)).toBe(true);
    const script = /node (examples\/mqtt-plc\/\S+\.mjs)/u.exec(ontology!.command!.join(' '))![1]!;
    expect(existsSync(join(root, script))).toBe(true);
  });

  it('should declare the PLC for the broker service, where the PLC publishes and the sidecar connects', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-compose-'));
    try {
      // The ontology service's generation step, with its environment, writing to a temporary file.
      const step = /node (examples\/mqtt-plc\/ontology\.mjs[^&]*?)--out (\S+)/u.exec(ontology!.command!.join(' '))!;
      const out = join(dir, 'transfer-unit.nt');
      const args = [...step[1]!.trim().split(/\s+/u).slice(1), '--out', out];
      const run = spawnSync(process.execPath, [join(root, step[1]!.trim().split(/\s+/u)[0]!), ...args], {
        env: { PATH: process.env.PATH, ...ontology!.environment },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      // The file the step writes is the one the next step loads.
      expect(ontology!.command!.join(' ')).toContain(`ontology load ${step[2]}`);
      const quads = new Parser({ format: 'N-Triples' }).parse(readFileSync(out, 'utf8'));
      const values = (property: string): string[] => [
        ...new Set(quads.filter((q) => q.predicate.value === property).map((q) => q.object.value)),
      ];
      const broker = new URL(plc!.environment!.MQTT_URL!);
      expect(values(inf.hasMQTTBrokerIP)).toEqual([broker.hostname]);
      expect(Object.keys(services)).toContain(broker.hostname);
      expect(values(inf.hasMQTTBrokerPort)).toEqual([broker.port]);
      expect(Number(broker.port)).toBe(listenerPort());
      for (const topic of [...values(inf.hasMQTTTopic), ...values(inf.hasMQTTSetTopic)])
        expect(topic.startsWith(`${plc!.environment!.PLC_TOPIC_PREFIX}/`)).toBe(true);
      expect(ontology!.environment).toMatchObject(plc!.environment!);
      // The sidecar's resource holds the parameters.
      const resource = sidecar!.command![sidecar!.command!.indexOf('--resource') + 1]!.replace(/^plant:/u, 'https://example.org/plant#');
      expect(quads.filter((q) => q.subject.value === resource && q.object.termType === 'BlankNode')).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('should start the sidecar after the ontology is loaded and the broker is healthy, and the PLC after the broker', () => {
    expect(sidecar!.depends_on).toMatchObject({
      ontology: { condition: 'service_completed_successfully' },
      mosquitto: { condition: 'service_healthy' },
    });
    expect(plc!.depends_on).toMatchObject({ mosquitto: { condition: 'service_healthy' } });
    const probe = mosquitto!.healthcheck!.test!;
    expect(probe[probe.indexOf('-p') + 1]).toBe(String(listenerPort()));
  });

  it('should give the sidecar a config that validates, listening and announced on its published port', async () => {
    const env = { ...sidecar!.environment, STATE_DIRECTORY: '/var/lib/semantic-sidecar', RUNTIME_DIRECTORY: '/run/semantic-sidecar' };
    const resource = sidecar!.command![sidecar!.command!.indexOf('--resource') + 1]!;
    const config = await loadSidecarConfig({ env, flags: { resource }, purpose: 'start', cwd: root });
    expect(config.resource).toBe('https://example.org/plant#transferUnit1');
    expect(config.address).toBe(`http://transfer-unit1:${config.port}`);
    expect(sidecar!.ports!.map(published)).toEqual([{ address: '127.0.0.1', host: config.port, container: config.port }]);
  });

  it('should publish every port on loopback only, each host port once, the broker on its listener port', () => {
    const entries = Object.values(services).flatMap((s) => (s.ports ?? []).map(published));
    for (const entry of entries) expect(entry.address).toBe('127.0.0.1');
    expect(new Set(entries.map((e) => e.host)).size).toBe(entries.length);
    expect(mosquitto!.ports!.map(published).map((p) => p.container)).toEqual([listenerPort()]);
  });

  // Compose itself resolves the file (anchors, merges, interpolation), alone and with the override
  // that swaps in the images built from Debian's packages.
  const compose = composeCommand();
  (compose ? it : it.skip)(
    `should be accepted by \`${compose?.join(' ') ?? 'docker compose'} config\`, alone and with docker-compose.local.yml`,
    () => {
      const [command, ...args] = compose!;
      for (const extra of [[], ['-f', join(dockerDir, 'docker-compose.local.yml')]]) {
        const result = spawnSync(command, [...args, '-f', composeFile, ...extra, 'config', '--quiet'], { encoding: 'utf8' });
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
      }
    },
  );
});
