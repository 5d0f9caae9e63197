import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadSidecarConfig } from '../../src/sidecar/config.js';

// Installs the example configs the way the sidecar unit's comment says, under a scratch root
// standing in for "/", and checks that every file a config names is found from there.

const root = fileURLToPath(new URL('../..', import.meta.url));
const unitText = readFileSync(join(root, 'config/systemd/semantic-sidecar@.service'), 'utf8');
const execStart = /^ExecStart=semantic-sidecar start --config (\S+)$/mu.exec(unitText)![1]!;
/** The `install -D -m MODE SOURCE TARGET` lines of the unit's comment. */
const installs = [...unitText.matchAll(/^#\s+install -D -m \d+ (\S+) (\S+)$/gmu)].map((m) => ({ source: m[1]!, target: m[2]! }));
/** Example configs that name ontology files. */
const withOntologyFiles = readdirSync(join(root, 'config'))
  .filter((f) => f.endsWith('.yaml'))
  .filter((f) => (parse(readFileSync(join(root, 'config', f), 'utf8')) as { ontologyFiles?: string[] }).ontologyFiles !== undefined);

let fakeRoot: string;
beforeAll(async () => {
  fakeRoot = await mkdtemp(join(tmpdir(), 'sm-systemd-'));
});
afterAll(async () => {
  await rm(fakeRoot, { recursive: true, force: true });
});

/** Runs the unit's install lines for `instance` (door1 is the comment's example) under the scratch root. */
async function install(instance: string): Promise<string> {
  for (const { source, target } of installs) {
    const to = join(fakeRoot, target.replaceAll('door1', instance));
    await mkdir(dirname(to), { recursive: true });
    await copyFile(join(root, source.replaceAll('door1', instance)), to);
  }
  return join(fakeRoot, execStart.replace('%i', instance));
}

describe('the sidecar unit and the example configs', () => {
  it('should document how to install a config and the ontology files it names', () => {
    expect(execStart).toBe('/etc/semantic-sidecar/config/%i.yaml');
    expect(installs.map((i) => i.target)).toEqual([
      '/etc/semantic-sidecar/config/door1.yaml',
      '/etc/semantic-sidecar/ontology/examples/plant.ttl',
    ]);
    expect(withOntologyFiles).toEqual(expect.arrayContaining(['door1.yaml', 'robot1.yaml']));
  });

  it.each(withOntologyFiles)('should find every ontology file %s names once installed as documented', async (file) => {
    const configPath = await install(file.replace(/\.yaml$/u, ''));
    const env = { STATE_DIRECTORY: join(fakeRoot, 'var/lib/semantic-sidecar'), RUNTIME_DIRECTORY: join(fakeRoot, 'run/semantic-sidecar') };
    const config = await loadSidecarConfig({ file: configPath, env, purpose: 'start', cwd: '/' });
    expect(config.ontologyFiles.length).toBeGreaterThan(0);
    for (const ontologyFile of config.ontologyFiles) {
      expect(ontologyFile.startsWith(join(fakeRoot, 'etc/semantic-sidecar/'))).toBe(true);
      expect(existsSync(ontologyFile) ? ontologyFile : `missing: ${ontologyFile}`).toBe(ontologyFile);
    }
  });
});
