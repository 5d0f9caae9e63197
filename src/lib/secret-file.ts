/**
 * The one reader of secret files (`*_FILE` settings: store password, tokens): the secret is the
 * file's first line, since such files usually end with a newline that is not part of it.
 * Problems name the file, never its content.
 */
import { readFileSync } from 'node:fs';

/** The secret in `file`, or what is wrong with the file (without its content). */
export function readSecretFile(file: string): { secret: string } | { problem: string } {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: `cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  const secret = content.split(/\r?\n/u)[0] ?? '';
  return secret === '' ? { problem: 'holds an empty first line (expected the secret on the first line)' } : { secret };
}
