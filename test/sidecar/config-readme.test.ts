import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTING_ROWS } from '../../src/settings.js';
import { CONFIG_ENV_VARS, settingsReference } from '../../src/sidecar/config-schema.js';

const README = join(fileURLToPath(new URL('../..', import.meta.url)), 'config', 'README.md');
const BLOCK = /(<!-- settings:begin -->\n)([\s\S]*?)(<!-- settings:end -->)/u;

describe('config/README.md', () => {
  it('should hold the settings reference generated from the settings table', () => {
    const readme = readFileSync(README, 'utf8');
    const generated = `${settingsReference()}\n`;
    if (process.env.UPDATE_CONFIG_README === '1')
      writeFileSync(
        README,
        readme.replace(BLOCK, (_, begin: string, _old, end: string) => `${begin}${generated}${end}`),
      );
    const documented = BLOCK.exec(readFileSync(README, 'utf8'))?.[2];
    // Regenerate with: UPDATE_CONFIG_README=1 jest test/sidecar/config-readme.test.ts
    expect(documented).toBe(generated);
  });

  it('should name every setting, variable and flag of the table in the reference', () => {
    const reference = settingsReference();
    for (const [path, setting] of SETTING_ROWS) {
      if (setting.secret !== undefined && setting.env === undefined) continue;
      expect(reference).toContain(`| \`${path}\` |`);
      if (setting.flag !== undefined) expect(reference).toContain(`\`${setting.flag.split(' ')[0]}\``);
    }
    for (const { name } of CONFIG_ENV_VARS) expect(reference).toContain(`\`${name}\``);
  });
});
