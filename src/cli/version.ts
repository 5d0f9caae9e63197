import { readFileSync } from 'node:fs';

/**
 * The package version from package.json, read relative to this module: it runs from
 * dist/cli/*.js when built and from src/cli/*.ts under jest, both two levels below the root.
 */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}
