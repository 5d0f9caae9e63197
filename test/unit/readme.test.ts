import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// The README's commands are followed literally by newcomers: these checks catch the mistakes
// that made them fail before (a socket directory nobody creates, killing npm instead of the
// sidecar, a link to a file the repository does not hold).
const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The shell lines of the code blocks of one `## ` section, comments removed. */
function shellLines(section: string): string[] {
  const start = readme.indexOf(`## ${section}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/```sh\n([\s\S]*?)```/gu)].flatMap((m) =>
    m[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/u, '').trim())
      .filter(Boolean),
  );
}

describe('README.md', () => {
  it.each(['Set-up', 'Five-minute tour'])('%s: should create every socket directory it uses that may not exist', (section) => {
    const lines = shellLines(section);
    lines.forEach((line, i) => {
      for (const [, socket] of line.matchAll(/--(?:device-)?socket\s+(\S+)/gu)) {
        const dir = dirname(socket!);
        const created = lines
          .slice(0, i)
          .some((earlier) => new RegExp(`^mkdir -p .*${dir.replaceAll('.', '\\.')}(\\s|$)`, 'u').test(earlier));
        expect({ socket, ok: dir === '/tmp' || created }).toEqual({ socket, ok: true });
      }
    });
  });

  it('tour: should kill the sidecar process itself, not the npm process that started it', () => {
    const lines = shellLines('Five-minute tour');
    const background = lines.filter((line) => line.endsWith('&'));
    expect(background.length).toBeGreaterThan(0);
    for (const line of background) expect(line).not.toMatch(/^(npx|npm)\b/u);
    const kills = lines.filter((line) => line.startsWith('kill -9'));
    expect(kills.length).toBeGreaterThan(0);
    for (const kill of kills) {
      const variable = /^kill -9 \$(\w+)$/u.exec(kill)?.[1];
      expect(variable).toBeDefined();
      const at = lines.indexOf(`${variable}=$!`);
      expect(at).toBeGreaterThan(0);
      expect(lines[at - 1]).toMatch(/ start .*&$/u);
    }
  });

  it('should point to the interface description in the repository, and to no file it lacks', () => {
    expect(readme).not.toContain('shared/spec');
    expect(readme).toContain('docs/interface.md');
    for (const [, path] of readme.matchAll(/\]\(((?:docs|config|ontology|examples|scripts)\/[^)#\s]+)\)/gu)) {
      expect(existsSync(join(root, path!)) ? path : `missing: ${path}`).toBe(path);
    }
  });
});
