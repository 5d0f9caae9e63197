import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/mosquitto.sh', import.meta.url));

/** A private Mosquitto with a password listener and a TLS listener, started by the project's script. */
export interface SecuredBroker {
  /** The password listener (plain TCP). */
  readonly auth: { host: string; port: number };
  /** The TLS listener (password required too). */
  readonly tls: { host: string; port: number };
  readonly username: string;
  readonly password: string;
  readonly passwordFile: string;
  /** PEM of the CA that issued the broker's certificate, and its file. */
  readonly ca: string;
  readonly caFile: string;
  stop(): void;
}

/** Starts `scripts/mosquitto.sh start --auth --tls` in a temporary directory and reads what it prints. */
export function startSecuredBroker(): SecuredBroker {
  const dir = mkdtempSync(join(tmpdir(), 'sm-mosquitto-secured-'));
  const env: NodeJS.ProcessEnv = { ...process.env, MOSQUITTO_DIR: dir };
  delete env.MOSQUITTO_PORT;
  const printed = execFileSync('bash', [SCRIPT, 'start', '--auth', '--tls'], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const vars = new Map([...printed.matchAll(/([A-Z_]+)=(\S+)/gu)].map((m) => [m[1]!, m[2]!]));
  const address = (name: string): { host: string; port: number } => {
    const url = new URL(vars.get(name)!);
    return { host: url.hostname, port: Number(url.port) };
  };
  const passwordFile = vars.get('MQTT_PASSWORD_FILE')!;
  const caFile = vars.get('MQTT_CA_FILE')!;
  return {
    auth: address('MQTT_AUTH_URL'),
    tls: address('MQTT_TLS_URL'),
    username: vars.get('MQTT_USERNAME')!,
    password: readFileSync(passwordFile, 'utf8').split('\n')[0]!,
    passwordFile,
    ca: readFileSync(caFile, 'utf8'),
    caFile,
    stop: () => {
      execFileSync('bash', [SCRIPT, 'stop'], { env, stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
