/**
 * The one reader of secret files (`*_FILE` settings: store password, tokens): the secret is the
 * file's first line, since such files usually end with a newline that is not part of it.
 * Problems name the file, never its content.
 */
import { readFileSync } from 'node:fs';

/** The whole text of a secret file (a file of named tokens), or what is wrong with it (without its content). */
export function readSecretText(file: string): { text: string } | { problem: string } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { problem: `cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}` };
  }
}

/** The secret in `file`, or what is wrong with the file (without its content). */
export function readSecretFile(file: string): { secret: string } | { problem: string } {
  const read = readSecretText(file);
  if ('problem' in read) return read;
  const secret = read.text.split(/\r?\n/u)[0] ?? '';
  return secret === '' ? { problem: 'holds an empty first line (expected the secret on the first line)' } : { secret };
}
