/**
 * The command-line contracts of the daemon commands, by spawning the built CLI: exit codes,
 * messages that name the offending setting, and help with examples.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessGroup, runCli } from '../support/sidecar-process.js';
import { ensureBuilt } from '../support/build.js';
import { closedPort } from '../support/ports.js';

let dir: string;
const group = new ProcessGroup();

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'sm-e2e-cli-'));
}, 120_000);

afterEach(async () => {
  await group.cleanup();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BAD_CONFIG = `resource: plant:door1
port: "80a"
device:
  socket: /run/device/door1.sock
workflows:
  - name: open
    capabilityClass: plnt:DoorOpeningCapability
    workflowClass: plant:OpenDoorWorkflow
    path: /open
`;

describe('semantic-sidecar start, watchdog and request contracts', () => {
  it('should exit 2 from start with a bad config, naming the file, each bad field and the value, and start nothing', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, BAD_CONFIG);
    const result = await runCli(['start', '--config', file], { cwd: dir, env: { STATE_DIRECTORY: join(dir, 'state') } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('invalid sidecar configuration (2 problems)');
    expect(result.stderr).toContain(`config file ${file}: port: must be an integer (got "80a")`);
    expect(result.stderr).toContain('workflows[0].capabilityClass: unknown prefix "plnt:"');
  });

  it('should exit 2 from start with a bad environment value, naming the variable', async () => {
    const result = await runCli(['start', '--resource', 'plant:door1', '--store', 'memory'], {
      cwd: dir,
      env: { SIDECAR_HEARTBEAT_INTERVAL: 'often', STATE_DIRECTORY: join(dir, 'state') },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('environment SIDECAR_HEARTBEAT_INTERVAL: heartbeatInterval');
    expect(result.stderr).toContain('"often"');
  });

  it('should exit 2 from watchdog when given a setting of a resource', async () => {
    const file = join(dir, 'watchdog.yaml');
    await writeFile(file, 'resource: plant:door1\nstalenessThreshold: 3\n');
    const result = await runCli(['watchdog', '--config', file, '--store', 'memory'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`config file ${file}: resource: is not used by the watchdog`);
  });

  it('should exit 1 from request when no reachable receiver realizes the Capability', async () => {
    const result = await runCli(
      ['request', '--capability', 'plant:TransportCapability', '--operation-class', 'plant:TransportOperation', '--store', 'memory'],
      { cwd: dir },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('no reachable Service realizes a Capability of class <https://example.org/plant#TransportCapability>');
  });

  it('should exit 2 from request with malformed --data, before touching the store', async () => {
    const storeDir = join(dir, 'never-created');
    const result = await runCli(
      [
        'request',
        '--capability',
        'plant:DoorOpeningCapability',
        '--operation-class',
        'plant:OpenDoorOperation',
        '--data',
        '{"angle":',
        '--store',
        storeDir,
      ],
      { cwd: dir },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--data is not valid JSON');
    expect(existsSync(storeDir)).toBe(false);
  });

  it.each([
    ['start', '$ semantic-sidecar start --config config/door1.yaml'],
    ['watchdog', '$ semantic-sidecar watchdog --store'],
    ['request', '$ semantic-sidecar request --capability plant:DoorOpeningCapability'],
  ])('should show an example and the exit codes in `%s --help`', async (command, example) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Examples:');
    expect(result.stdout).toContain(example);
    expect(result.stdout).toContain('Exit codes:');
  });

  it.each([
    ['start', ['--resource', 'plant:door1', '--port', '0']],
    ['watchdog', ['--port', '0']],
  ])(
    'should exit 0 from %s when stopped by SIGTERM while it waits for its store',
    async (command, args) => {
      const store = `http://127.0.0.1:${await closedPort()}/sparql`;
      const proc = group.cli(command, [command, ...args, '--store', store], {
        cwd: dir,
        env: { STATE_DIRECTORY: join(dir, `${command}-state`) },
      });
      await proc.waitFor(() => proc.logs().find((l) => String(l.msg).includes('does not answer yet; retrying')), 'a retry log line');
      expect(await proc.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      expect(proc.stdout).toBe('');
      expect(proc.logs().at(-1)).toMatchObject({ level: 30, reason: 'SIGTERM' });
    },
    30_000,
  );
});
