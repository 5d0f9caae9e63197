import { afterAll, expect } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ValueError } from '../../../src/errors.js';
import { loadSidecarConfig, type LoadSidecarConfigOptions, type SidecarConfig } from '../../../src/sidecar/config.js';

/** A temporary directory for config files (removed after the suite) and loaders reading from it. */
export interface ConfigFixture {
  dir: string;
  /** Writes a file under the directory; returns its path. */
  write: (name: string, text: string) => string;
  /** Loads with an empty environment and the directory as working directory, unless overridden. */
  load: (options?: LoadSidecarConfigOptions) => Promise<SidecarConfig>;
  /** The problem lines of the ValueError a load throws; checks the message's shape on the way. */
  problems: (options: LoadSidecarConfigOptions) => Promise<string[]>;
}

export function configFixture(prefix: string): ConfigFixture {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = (options: LoadSidecarConfigOptions = {}): Promise<SidecarConfig> => loadSidecarConfig({ env: {}, cwd: dir, ...options });
  return {
    dir,
    load,
    write(name, text) {
      const path = join(dir, name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    async problems(options) {
      const error = await load(options).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ValueError);
      const [head, ...lines] = (error as ValueError).message.split('\n');
      expect(head).toMatch(/^invalid sidecar configuration \(\d+ problems?\):$/u);
      for (const line of lines) expect(line.startsWith('  - ')).toBe(true);
      return lines.map((line) => line.slice(4));
    },
  };
}
