/**
 * Reads a sidecar config file: YAML (`.yaml`, `.yml`) or JSON (`.json`), chosen by extension.
 * Parse errors name the file, line and column. YAML is read as YAML 1.2 (core schema), so `on`,
 * `yes` and `no` stay strings and no value changes type behind the user's back; duplicate keys
 * and unknown tags are errors.
 */
import { readFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { layerOf, type Layer } from './config-layers.js';
import type { ConfigIssue, ConfigSource } from './config-issues.js';

/** Alias uses a config file may make before it is taken for an expansion attack. */
const YAML_MAX_ALIAS_COUNT = 100;

/** What reading a config file gave: its settings, or the problems that stopped it. */
export interface ConfigFileResult {
  layer: Layer;
  issues: ConfigIssue[];
}

/** Line and column (1-based) of character `offset` in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: (before.at(-1)?.length ?? 0) + 1 };
}

/**
 * Where V8's JSON.parse message places the error: its "(line L column C)", else its "at position
 * N", else the end of the text for a truncated document; undefined when it names no place.
 */
function jsonErrorPlace(message: string, text: string): { line: number; col: number } | undefined {
  const lc = /\(line (\d+) column (\d+)\)/u.exec(message);
  if (lc) return { line: Number(lc[1]), col: Number(lc[2]) };
  const at = /at position (\d+)/u.exec(message);
  if (at) return lineAndColumn(text, Number(at[1]));
  return /end of JSON input/u.test(message) ? lineAndColumn(text, text.length) : undefined;
}

function parseJson(text: string): { value?: unknown; problems: string[] } {
  try {
    return { value: JSON.parse(text), problems: [] };
  } catch (error) {
    const message = (error as Error).message;
    const place = jsonErrorPlace(message, text);
    // V8 quotes a piece of the document, possibly over several lines; drop it (it may hold a secret).
    const what = message
      .replace(/ in JSON at position \d+.*$/su, '')
      .replace(/, ".*"(\.\.\.)? is not valid JSON$/su, '')
      .replace(/^Unexpected token '(.)'.*$/su, (_, token: string) => `Unexpected token ${JSON.stringify(token)}`);
    return { problems: [`${place ? `line ${place.line}, column ${place.col}: ` : ''}${what}`] };
  }
}

function parseYaml(text: string): { value?: unknown; problems: string[] } {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, version: '1.2' });
  const problems = [...doc.errors, ...doc.warnings].map((e) => {
    const pos = e.linePos?.[0] ?? lineAndColumn(text, e.pos[0]);
    // The first line of yaml's message is the reason; the rest repeats the source text.
    return `line ${pos.line}, column ${pos.col}: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/u, '')}`;
  });
  if (problems.length > 0) return { problems };
  try {
    return { value: doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT }), problems: [] };
  } catch {
    // yaml refuses a document whose aliases expand too far (a "billion laughs" document).
    return { problems: [`its aliases expand too far (more than ${YAML_MAX_ALIAS_COUNT} alias uses); write the settings out`] };
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : typeof value;
}

/**
 * Reads and parses `file` (relative to `cwd`). Relative paths inside the file are later
 * resolved against the file's own directory, which the source records.
 */
export async function readConfigFile(file: string, cwd: string): Promise<ConfigFileResult> {
  const path = resolve(cwd, file);
  const source: ConfigSource = { kind: 'file', file, dir: dirname(path) };
  const fail = (message: string): ConfigFileResult => ({ layer: [], issues: [{ source, field: '', message }] });
  const ext = extname(file).toLowerCase();
  if (!['.yaml', '.yml', '.json'].includes(ext)) {
    return fail(`cannot tell the format from the extension ${JSON.stringify(ext)} (expected .yaml, .yml or .json)`);
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return fail(`cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const parsed = ext === '.json' ? parseJson(text) : parseYaml(text);
  if (parsed.problems.length > 0) {
    return {
      layer: [],
      issues: parsed.problems.map((message) => ({
        source,
        field: '',
        message: `not valid ${ext === '.json' ? 'JSON' : 'YAML'}: ${message}`,
      })),
    };
  }
  // An empty YAML document means "no settings".
  const value = parsed.value ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    return fail(`must hold a mapping of settings at the top level, not ${kindOf(value)}`);
  }
  return { layer: layerOf(value as Record<string, unknown>, source), issues: [] };
}
