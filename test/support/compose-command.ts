/**
 * The Compose command of this machine: the `docker compose` plugin when the docker client has it,
 * else the standalone `docker-compose` (Debian packages 1.29 and not the plugin), else none.
 */
import { spawnSync } from 'node:child_process';

/** The command and its leading arguments, e.g. `['docker', 'compose']`, or undefined. */
export function composeCommand(): [string, ...string[]] | undefined {
  const candidates: Array<[string, ...string[]]> = [['docker', 'compose'], ['docker-compose']];
  return candidates.find(([command, ...args]) => spawnSync(command, [...args, 'version'], { encoding: 'utf8' }).status === 0);
}
