import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

// `.ci/run` in a scratch checkout whose npm, scripts/virtuoso.sh, scripts/mosquitto.sh,
// scripts/chromium.sh and scripts/docker.sh are stubs: the server stubs record the directory they were given
// (VIRTUOSO_DIR, MOSQUITTO_DIR), so the test can see what the script kept or removed.
const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sm-ci-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runCi(env: NodeJS.ProcessEnv): { status: number | null; dirSeen: string; brokerDirSeen: string; dockerDirSeen: string } {
  const checkout = mkdtempSync(join(scratch, 'checkout-'));
  mkdirSync(join(checkout, '.ci'));
  mkdirSync(join(checkout, 'scripts'));
  mkdirSync(join(checkout, 'bin'));
  copyFileSync(join(root, '.ci', 'run'), join(checkout, '.ci', 'run'));
  const seen = join(checkout, 'dir-seen');
  const brokerSeen = join(checkout, 'broker-dir-seen');
  const dockerSeen = join(checkout, 'docker-dir-seen');
  writeFileSync(
    join(checkout, 'scripts', 'virtuoso.sh'),
    `if [ "$1" = start ]; then printf '%s' "$VIRTUOSO_DIR" > '${seen}'; echo 'export SPARQL_ENDPOINT=http://127.0.0.1:1/sparql'; fi\n`,
  );
  writeFileSync(
    join(checkout, 'scripts', 'mosquitto.sh'),
    `if [ "$1" = start ]; then printf '%s' "$MOSQUITTO_DIR" > '${brokerSeen}'; echo 'export MQTT_URL=mqtt://127.0.0.1:1'; fi\n`,
  );
  writeFileSync(join(checkout, 'scripts', 'chromium.sh'), `echo /usr/bin/chromium\n`);
  writeFileSync(join(checkout, 'scripts', 'docker.sh'), `printf '%s' "$DOCKER_DIR" > '${dockerSeen}'\n`);
  writeFileSync(join(checkout, 'bin', 'npm'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(checkout, 'bin', 'npm'), 0o755);
  const result = spawnSync('bash', [join(checkout, '.ci', 'run')], {
    env: { ...env, PATH: `${join(checkout, 'bin')}:${process.env.PATH ?? ''}` },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return {
    status: result.status,
    dirSeen: readFileSync(seen, 'utf8'),
    brokerDirSeen: readFileSync(brokerSeen, 'utf8'),
    dockerDirSeen: readFileSync(dockerSeen, 'utf8'),
  };
}

describe('.ci/run', () => {
  it('should keep a VIRTUOSO_DIR and a MOSQUITTO_DIR the caller gives', () => {
    const given = mkdtempSync(join(scratch, 'given-'));
    const broker = mkdtempSync(join(scratch, 'broker-'));
    writeFileSync(join(given, 'keep-me'), 'data');
    writeFileSync(join(broker, 'keep-me'), 'data');
    const { status, dirSeen, brokerDirSeen } = runCi({ VIRTUOSO_DIR: given, MOSQUITTO_DIR: broker });
    expect([status, dirSeen, brokerDirSeen]).toEqual([0, given, broker]);
    expect(existsSync(join(given, 'keep-me')) && existsSync(join(broker, 'keep-me'))).toBe(true);
  });

  it('should remove the directories it made itself, and only those', () => {
    const broker = mkdtempSync(join(scratch, 'broker-'));
    const { status, dirSeen, brokerDirSeen } = runCi({ MOSQUITTO_DIR: broker });
    expect(status).toBe(0);
    expect(dirSeen).toMatch(/^\/tmp\/sm-virtuoso-ci\./u);
    expect(existsSync(dirSeen)).toBe(false);
    expect(brokerDirSeen).toBe(broker);
    expect(existsSync(broker)).toBe(true);
    const both = runCi({});
    expect(both.brokerDirSeen).toMatch(/^\/tmp\/sm-mosquitto-ci\./u);
    expect(existsSync(both.brokerDirSeen) || existsSync(both.dirSeen)).toBe(false);
    // The Docker engine's directory is always its own.
    expect(both.dockerDirSeen).toMatch(/^\/tmp\/sm-docker-ci\./u);
    expect(existsSync(both.dockerDirSeen)).toBe(false);
  });
});
