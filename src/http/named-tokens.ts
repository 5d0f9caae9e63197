/**
 * Named bearer tokens: a token file may hold one token per caller, so that logs, the activity
 * feed and the graph can say who called, and a token may be limited to some workflows.
 *
 * The file format stays compatible with the single-token file of earlier versions:
 * - a file whose first line is one word is a single-token file: that word is the token, the
 *   rest of the file is ignored (as before), even when the word starts with `#`;
 * - otherwise every line is `<name> <token> [<workflow>,<workflow>...]` separated by spaces or
 *   tabs; blank lines and lines starting with `#` are ignored (so a named file starts with a
 *   token line, a blank line, or a comment of more than one word). The optional third field
 *   limits the token to those workflows.
 *
 * Problems name the line and the field, never a token.
 */
import { ValueError } from '../errors.js';
import { assertName } from '../iri/mint.js';
import { preview } from '../iri/validate.js';
import { tokenProblem } from './bearer-auth.js';

/** One caller's token. */
export interface NamedToken {
  /** Who holds it: a letter, then up to 63 letters, digits and `. _ -`. */
  readonly name: string;
  /** The secret, checked as every bearer token (see `tokenProblem`). */
  readonly token: string;
  /**
   * Only these workflows may be run with it (`POST /workflows/{name}/execute`); reads stay
   * open, every other write is refused (403). Absent: no limit.
   */
  readonly workflows?: readonly string[];
}

/** The tokens a server accepts: one unnamed token (the single-token file) or named ones. */
export type TokenSet = string | readonly NamedToken[];

const TOKEN_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/u;
const FIELDS = /[ \t]+/u;

/**
 * What is wrong with `name` as a token's name, or undefined when it is usable.
 * @example tokenNameProblem('planner') // undefined
 */
export function tokenNameProblem(name: unknown): string | undefined {
  if (typeof name === 'string' && TOKEN_NAME.test(name)) return undefined;
  return `${preview(name)} is not a token name: use a letter, then up to 63 letters, digits and . _ -`;
}

/**
 * Checks a list of named tokens: names and tokens usable and each used once, workflow names valid.
 * @throws ValueError naming `what`, the entry and the problem (never a token).
 */
export function assertNamedTokens(value: unknown, what: string): readonly NamedToken[] {
  if (!Array.isArray(value) || value.length === 0) throw new ValueError(`${what} must be a non-empty array of { name, token, workflows? }`);
  const names = new Set<string>();
  const secrets = new Set<string>();
  return Object.freeze(
    value.map((entry: unknown, i) => {
      const where = `${what}[${i}]`;
      if (typeof entry !== 'object' || entry === null) throw new ValueError(`${where} must be an object { name, token, workflows? }`);
      const { name, token, workflows } = entry as Record<string, unknown>;
      const nameProblem = tokenNameProblem(name);
      if (nameProblem !== undefined) throw new ValueError(`${where}.name: ${nameProblem}`);
      const problem = tokenProblem(token);
      if (problem !== undefined) throw new ValueError(`${where}.token (of ${name as string}) ${problem}`);
      if (names.has(name as string)) throw new ValueError(`${where}.name: ${name as string} is named twice`);
      if (secrets.has(token as string)) throw new ValueError(`${where}.token (of ${name as string}) is the token of another name`);
      names.add(name as string);
      secrets.add(token as string);
      return Object.freeze({ name: name as string, token: token as string, ...checkedWorkflows(workflows, `${where}.workflows`) });
    }),
  );
}

function checkedWorkflows(value: unknown, what: string): { workflows?: readonly string[] } {
  if (value === undefined) return {};
  if (!Array.isArray(value) || value.length === 0) throw new ValueError(`${what} must be a non-empty array of workflow names`);
  return { workflows: Object.freeze(value.map((w) => assertName(w, `${what} entry`))) };
}

/**
 * The tokens of a token file's whole text (see the module's note on the format).
 * @throws ValueError naming the line and the problem, never a token.
 * @example parseTokenFile('planner s3cret-token-of-planner open,close\n') // [{ name: 'planner', token: '…', workflows: ['open', 'close'] }]
 */
export function parseTokenFile(text: string): TokenSet {
  const lines = text.split(/\r?\n/u);
  const first = lines[0] ?? '';
  if (first.trim() !== '' && !FIELDS.test(first.trim())) return first;
  const entries: NamedToken[] = [];
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const [name, token, workflows, ...rest] = trimmed.split(FIELDS);
    const where = `line ${i + 1}`;
    if (token === undefined) throw new ValueError(`${where} holds one field; expected "<name> <token> [<workflow>,...]"`);
    if (rest.length > 0)
      throw new ValueError(
        `${where} holds ${rest.length + 3} fields; expected "<name> <token> [<workflow>,...]" (a token cannot hold spaces)`,
      );
    entries.push({ name: name!, token, ...(workflows !== undefined && { workflows: workflows.split(',') }) });
  });
  if (entries.length === 0) throw new ValueError('holds no token (expected a token on the first line, or "<name> <token>" lines)');
  try {
    return assertNamedTokens(entries, 'entry');
  } catch (error) {
    // Entry n is the n-th token line; the message says which name, which is enough to find it.
    throw new ValueError(`has a bad ${(error as Error).message}`);
  }
}
